"""No speed verdict without evidence in notifications (issue 32): PR comments, commit
statuses and webhook alerts tell a speed change only when an interleaved A/B or
instruction counts back it, say which, and say how many speed shifts were left out."""

from __future__ import annotations

from typing import Any

from basketbench.changes import notify
from basketbench.changes.notify import github, webhook
from basketbench.changes.notify.summary import evidence_of, summarise
from basketbench.models import (
    Change,
    Commit,
    Configuration,
    Dataset,
    Machine,
    NotificationDelivery,
    Repository,
)
from bb_factories import document, make_settings, post_webhook, push_payload, sha
from sqlalchemy import select


def _change(**fields: Any) -> Change:
    values: dict[str, Any] = {"kind": "speed", "test": "pair", "metric": "compress_mbps",
                              "direction": "regression", "delta_pct": -5.0, "state": "confirmed",
                              "evidence": {}, "confirmation": {}, "bisection": {}}
    values.update(fields)
    return Change(**values)


def test_evidence_in_words():
    assert evidence_of(_change(kind="exact", test="exact", metric="compressed_bytes")) == "exact"
    assert evidence_of(_change(kind="exact", test="count",
                               metric="decompress_instructions_per_mb")) == "instruction counts"
    assert evidence_of(_change(test="ab", evidence={"ab_ratio": 0.95, "ab_pairs": 40})) == (
        "A/B, 40 pairs")
    confirmed = _change(test="single", confirmation={"kind": "ab", "result": {"pairs": 24}})
    assert evidence_of(confirmed) == "A/B, 24 pairs"
    assert evidence_of(_change(evidence={"attribution": "code"})) == (
        "instruction counts moved with it")
    # runs measured at different times, even confirmed by reruns: no verdict
    assert evidence_of(_change(test="pair", confirmation={"run_ids": [3, 4]})) is None
    assert evidence_of(_change(kind="drift", test="drift")) is None
    assert evidence_of(_change(evidence={"attribution": "probably the machine"})) is None


def test_alerts_statuses_and_comments_state_the_evidence(client, auth, session):
    shas = [sha(i, "ne") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "ne").status_code == 202
    for s in shas:
        assert client.post("/api/v1/results", json=document(commit=s),
                           headers=auth).status_code == 201
    commit = session.scalar(select(Commit).where(Commit.sha == shas[1]))
    machine = session.scalar(select(Machine))
    repo = session.get(Repository, commit.repository_id)
    ds = session.scalar(select(Dataset.id))
    confs = {c.setting: c.id for c in session.scalars(select(Configuration))}
    where = {"commit_id": commit.id, "machine_id": machine.id, "dataset_id": ds}
    backed = _change(**where, configuration_id=confs[505], test="ab", delta_pct=-4.0,
                     ci_low_pct=-4.6, ci_high_pct=-3.4,
                     evidence={"ab_ratio": 0.96, "ab_ci": [0.954, 0.966], "ab_pairs": 30})
    size = _change(**where, configuration_id=confs[101], kind="exact", test="exact",
                   metric="compressed_bytes", delta_pct=1.0)
    shifted = _change(**where, configuration_id=confs[404], test="pair", delta_pct=-60.0)
    alone = _change(**where, configuration_id=confs[207], test="edivisive", delta_pct=-30.0)
    session.add_all([backed, size, shifted, alone])
    session.flush()
    settings = make_settings("postgresql://unused", github_token="ghp_test",
                             notify_webhook_url="http://127.0.0.1:9/hook",
                             public_url="http://bench.example")

    summary = summarise(session, settings, repo, commit, machine, [backed, size, shifted,
                                                                   alone])
    assert [r.change_id for r in summary.rows] == [backed.id, size.id]
    assert (summary.regressions, summary.without_evidence) == (2, 2)
    assert summary.headline().endswith(
        "; 2 speed shift(s) without A/B or instruction-count evidence: no verdict")
    table = summary.markdown_table()
    assert "| evidence |" in table and "| A/B, 30 pairs |" in table and "| exact |" in table
    assert "-60.00" not in table and "-30.00" not in table
    status = github.deliveries(settings, summary)[0][2]
    assert status["state"] == "failure"
    assert status["description"].endswith("2 speed shift(s) without A/B: no verdict")
    comment = github.comment_body(summary)
    assert "speed verdicts only from an interleaved A/B" in comment
    assert "[A/B, 30 pairs]" in webhook.payload(summary)["text"]

    # the outbox: deliveries name only the backed changes; a group of speed shifts without
    # evidence alone gets none (a commit status "success" would claim a verdict too)
    try:
        assert notify.enqueue(session, settings, [backed.id, size.id, shifted.id]) == 3
        rows = session.scalars(select(NotificationDelivery)).all()
        assert {tuple(r.change_ids) for r in rows} == {(backed.id, size.id)}
        for r in rows:
            session.delete(r)
        session.flush()
        assert notify.enqueue(session, settings, [shifted.id, alone.id]) == 0
    finally:
        session.rollback()
