"""Speed detection from per-commit A/B effects first (issue 32), on PostgreSQL through the
API: a commit whose interleaved A/B against its previous measured commit shows -3 % on
ZSTD-5 gets A/B candidates (no history screen of those series at that commit, no reruns),
their confirmation is one more A/B of the commit against the same reference (recorded as a
request), and the confirmed change lists the confirming A/B's effect and interval; a
confirming A/B at the old level rejects them."""

from __future__ import annotations

from typing import Any

import numpy as np
from basketbench.catalog.commits import CommitInfo, store_commits
from basketbench.changes.detection import service
from basketbench.core.config import Settings
from basketbench.models import Commit, Configuration, Dataset, Machine, Repository
from basketbench.models.ab import AbEffect, AbRun
from bb_factories import sha
from changes_support import changes, ingest, make_doc, runs
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session
from test_changes_detection import seed_history

HISTORY = 12


def add_ab(session: Session, commit: int, reference: int, ratio_505: float,
           seed: int, others: dict[int, float] | None = None,
           measured: set[int] | None = None) -> int:
    """An A/B run of sha(commit) against sha(reference) as the A/B pipeline stores it:
    per (dataset, configuration, metric) 15 per-pair ratios at 0.5 % noise; ZSTD-5's true
    ratio is ratio_505, another setting's is others[setting] (else 1); only the settings
    in ``measured`` when given (a suite's [ab] settings)."""
    rng = np.random.default_rng(seed)
    ids = {i: session.scalar(select(Commit.id).where(Commit.sha == sha(i)))
           for i in (commit, reference)}
    machine = session.scalar(select(Machine.id))
    run = AbRun(machine_id=machine, commit_id=ids[commit], reference_kind="previous",
                reference_commit_id=ids[reference], origin="pipeline", disturbed_fraction=0.0,
                method={"ratio": "median of pairs", "ci": "sign test"}, load=None)
    session.add(run)
    session.flush()
    for ds in session.scalars(select(Dataset)):
        for conf in session.scalars(select(Configuration)):
            if measured is not None and conf.setting not in measured:
                continue
            for metric in ("compress_mbps", "decompress_mbps"):
                true = ratio_505 if conf.setting == 505 else (others or {}).get(conf.setting,
                                                                                 1.0)
                samples = np.sort(true * (1 + rng.normal(0, 0.005, 15)))
                session.add(AbEffect(ab_run_id=run.id, dataset_id=ds.id,
                                     configuration_id=conf.id, metric=metric,
                                     ratio=float(np.median(samples)), ci_low=float(samples[3]),
                                     ci_high=float(samples[11]), pairs=15, disturbed_pairs=0,
                                     samples=samples.tolist()))
    session.commit()
    return run.id


def measured_commit(session: Session, i: int) -> None:
    """The commit row before its results land (as the pipeline knows it)."""
    repo = session.scalar(select(Repository).where(Repository.name == "root-project/root"))
    assert repo is not None
    store_commits(session, repo, [CommitInfo(sha=sha(i), parents=[sha(i - 1)])])
    session.commit()


def ab_changes(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    return [c for c in changes(client, **params) if c["test"] == "ab"]


def test_a_speed_change_from_the_ab_is_confirmed_by_one_more_ab(
        client: TestClient, auth: dict[str, str], session: Session, settings: Settings) -> None:
    seed_history(client, auth, HISTORY)
    measured_commit(session, HISTORY)
    add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=1)
    # the regular run shows -10 % on ZSTD-5: the history screen would send it to reruns,
    # but the A/B covers those series at this commit
    ingest(client, auth, make_doc(HISTORY, scale=0.90))
    pending = changes(client, state="confirming")
    assert pending and {c["test"] for c in pending} == {"ab"}
    assert {(c["dataset"], c["configuration"]["setting"]) for c in pending} == {
        ("nanoaod", 505), ("hzz", 505)}
    assert all(-3.7 < c["delta_pct"] < -2.3 for c in pending)
    assert [r for r in runs(client) if r["trigger"] == "confirm"] == []  # no reruns
    detail = client.get(f"/api/v1/changes/{pending[0]['id']}").json()
    request = detail["confirmation"]["ab_request"]
    assert request["commit_sha"] == sha(HISTORY) and request["reference_sha"] == sha(HISTORY - 1)
    assert detail["confirmation"]["kind"] == "ab"

    confirming = add_ab(session, HISTORY, HISTORY - 1, 0.965, seed=2)
    out = service.after_ab_run(session, settings, confirming)
    assert len(out.confirmed) == len(pending)
    effects = {(e.dataset_id, e.configuration_id, e.metric): e
               for e in session.scalars(select(AbEffect).where(AbEffect.ab_run_id == confirming))}
    for c in changes(client, state="confirmed"):
        if c["test"] != "ab":
            continue
        ch = client.get(f"/api/v1/changes/{c['id']}").json()
        e = next(e for (_, conf, metric), e in effects.items()
                 if metric == c["metric"] and e.ratio is not None
                 and abs((e.ratio - 1) * 100 - c["delta_pct"]) < 1e-9)
        assert c["ci_low_pct"] == (e.ci_low - 1) * 100 and c["ci_high_pct"] == (e.ci_high - 1) * 100
        assert c["ci_low_pct"] <= c["delta_pct"] <= c["ci_high_pct"] < 0
        assert ch["confirmation"]["result"]["ab_run_id"] == confirming


def test_an_ab_candidate_the_confirming_ab_does_not_repeat_is_rejected(
        client: TestClient, auth: dict[str, str], session: Session, settings: Settings) -> None:
    seed_history(client, auth, HISTORY)
    ingest(client, auth, make_doc(HISTORY))
    # the A/B lands after the regular results: it screens the commit by itself
    first = add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=3)
    out = service.after_ab_run(session, settings, first)
    assert out.candidates and len(ab_changes(client, state="confirming")) == len(out.candidates)
    again = service.after_ab_run(session, settings, first)  # the same run twice: no duplicate
    assert again.candidates == []
    null = add_ab(session, HISTORY, HISTORY - 1, 1.0, seed=4)
    out = service.after_ab_run(session, settings, null)
    assert out.confirmed == [] and len(out.rejected) == 4
    assert ab_changes(client) == []


def test_a_series_the_first_ab_did_not_measure_is_screened_by_the_next_one(
        client: TestClient, auth: dict[str, str], session: Session, settings: Settings) -> None:
    """A commit's A/B runs of different suites (a push's default suite: ZSTD-5 only here;
    the trigger's own suite: every setting): each series is screened by the first A/B that
    measured it. The second A/B decides the first's candidates and screens the series only
    it brought (ZLIB-1 +50 %); a third decides those; a fourth screens nothing again (its
    LZ4-4 at -50 % was screened at 1.0 by the second)."""
    seed_history(client, auth, HISTORY)
    ingest(client, auth, make_doc(HISTORY))
    first = add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=6, measured={505})
    out = service.after_ab_run(session, settings, first)
    assert len(out.candidates) == 4  # ZSTD-5, two datasets, two metrics
    pending = {c["id"]: c for c in ab_changes(client, state="confirming")}
    assert {c["configuration"]["setting"] for c in pending.values()} == {505}

    second = add_ab(session, HISTORY, HISTORY - 1, 0.965, seed=7, others={101: 1.5})
    out = service.after_ab_run(session, settings, second)
    assert sorted(out.confirmed) == sorted(pending)  # the first run's candidates, decided
    raised = {c["id"]: c for c in ab_changes(client, state="confirming")}
    assert sorted(out.candidates) == sorted(raised) and len(raised) == 4
    for c in raised.values():
        assert c["configuration"]["setting"] == 101 and 45 < c["delta_pct"] < 55
        detail = client.get(f"/api/v1/changes/{c['id']}").json()
        assert detail["evidence"]["ab_run_id"] == second
        assert detail["confirmation"]["ab_request"]["screened_ab_run_id"] == second

    third = add_ab(session, HISTORY, HISTORY - 1, 1.0, seed=8, others={101: 1.5})
    out = service.after_ab_run(session, settings, third)
    assert sorted(out.confirmed) == sorted(raised) and out.candidates == []
    fourth = add_ab(session, HISTORY, HISTORY - 1, 1.0, seed=9, others={404: 0.5})
    out = service.after_ab_run(session, settings, fourth)
    assert out.candidates == [] and out.confirmed == [] and out.rejected == []
    confirmed = ab_changes(client, state="confirmed")
    assert {c["configuration"]["setting"] for c in confirmed} == {101, 505}
    assert len(confirmed) == 8 and ab_changes(client, state="confirming") == []


def test_ab_runs_landing_before_the_results_each_screen_what_they_first_measured(
        client: TestClient, auth: dict[str, str], session: Session, settings: Settings) -> None:
    """Two A/B runs of a commit land before its results: the results' pass screens ZSTD-5
    by the first and ZLIB-1 by the second (which measured ZSTD-5 too, at no change), one
    confirming A/B asked per run."""
    seed_history(client, auth, HISTORY)
    measured_commit(session, HISTORY)
    first = add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=10, measured={505})
    second = add_ab(session, HISTORY, HISTORY - 1, 1.0, seed=11, others={101: 1.5})
    for run in (first, second):  # nothing to screen against yet: no results of the commit
        assert service.after_ab_run(session, settings, run).candidates == []
        session.commit()  # the pass's transaction ends (and its machine lock with it)
    ingest(client, auth, make_doc(HISTORY))
    pending = ab_changes(client, state="confirming")
    by_run: dict[int, set[int]] = {}
    for c in pending:
        detail = client.get(f"/api/v1/changes/{c['id']}").json()
        by_run.setdefault(detail["evidence"]["ab_run_id"], set()).add(
            c["configuration"]["setting"])
    assert by_run == {first: {505}, second: {101}} and len(pending) == 8
    asked = client.get("/api/v1/ab-requests", params={"head_commit": sha(HISTORY)}).json()
    assert len(asked["items"]) == 2


def _estimate(rng: np.random.Generator, true: float) -> dict[str, Any]:
    samples = np.sort(true * (1 + rng.normal(0, 0.005, 15)))
    return {"ratio": float(np.median(samples)), "ci_low": float(samples[3]),
            "ci_high": float(samples[11]), "pairs": 15, "disturbed_pairs": 0,
            "samples": samples.tolist()}


def upload_ab(client: TestClient, auth: dict[str, str], session: Session, run_id: int,
              ratios: dict[int, float], left_out: frozenset[int] = frozenset()) -> int:
    """The worker's upload of the A/B run ``run_id`` of sha(HISTORY) against its previous
    commit: every setting but ``left_out``, at ratios[setting] (else 1); its ab_runs id."""
    rng = np.random.default_rng(5)
    settings_ = sorted({c.setting for c in session.scalars(select(Configuration))
                        if c.setting >= 100 and c.setting not in left_out})  # not memcpy
    results = [{"dataset": d.name, "setting": s, "roundtrip_ok": True,
                "compressed_bytes": {"a": 1000, "b": 1000},
                "compress": _estimate(rng, ratios.get(s, 1.0)),
                "decompress": _estimate(rng, ratios.get(s, 1.0))}
               for d in session.scalars(select(Dataset)) for s in settings_]
    side = {"build": "cache", "label": "build", "codec_versions": {}}
    upload = {
        "machine_id": session.scalar(select(Machine.id)), "commit": sha(HISTORY),
        "run_id": run_id, "origin": "compare",
        "reference": {"kind": "commit", "commit": sha(HISTORY - 1)},
        "document": {"schema": "basketbench-ab-v1", "a": side, "b": side,
                     "method": {"order": "random", "ratio": "median", "ci": "order statistics",
                                "confidence": 0.95, "disturbed_rule": "none",
                                "repetitions_per_pair": 1},
                     "load": {"loadavg_start": [1, 1, 1], "loadavg_end": [1, 1, 1]},
                     "disturbed_fraction": 0.0, "results": results}}
    stored = client.post("/api/v1/ab-runs", json=upload, headers=auth)
    assert stored.status_code == 201, stored.text
    return int(stored.json()["ab_run_id"])


def test_an_ab_that_did_not_measure_a_candidate_leaves_it_waiting_unless_it_was_asked_for(
        client: TestClient, auth: dict[str, str], session: Session, settings: Settings) -> None:
    """An A/B of another suite (no request behind it) that did not measure a waiting
    candidate's series says nothing of it: the candidate waits on. The confirming A/B
    detection asked for decides it, and rejects it as missing when it did not measure it."""
    seed_history(client, auth, HISTORY)
    ingest(client, auth, make_doc(HISTORY))
    first = add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=12)
    assert len(service.after_ab_run(session, settings, first).candidates) == 4
    session.commit()
    pending = {c["id"] for c in ab_changes(client, state="confirming")}
    other = add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=13, measured={101})
    out = service.after_ab_run(session, settings, other)
    session.commit()
    assert out.confirmed == [] and out.rejected == [] and out.candidates == []
    assert {c["id"] for c in ab_changes(client, state="confirming")} == pending

    (queued,) = [r for r in runs(client) if r["suite"] == f"ab:{sha(HISTORY - 1)}"]
    assert queued["trigger"] == "ab:detection"
    upload_ab(client, auth, session, queued["id"], {}, left_out=frozenset({505}))
    session.expire_all()
    rejected = [c for c in changes(client, include_unconfirmed="true") if c["id"] in pending]
    assert {c["state"] for c in rejected} == {"rejected"}
    assert {c["state_reason"] for c in rejected} == {
        "the confirming A/B brought no result for this series"}


def test_the_confirming_ab_is_queued_and_its_upload_decides(
        client: TestClient, auth: dict[str, str], session: Session) -> None:
    """The hand-off end to end through the API: detection queues the confirming A/B as a run
    of suite ab:<reference> (an A/B request of origin pipeline); the worker's upload of that
    run (which knows only "a commit asked for") is stored as the request's kind and origin,
    and, after the answer, confirms the changes waiting for it."""
    seed_history(client, auth, HISTORY)
    measured_commit(session, HISTORY)
    add_ab(session, HISTORY, HISTORY - 1, 0.97, seed=1)
    ingest(client, auth, make_doc(HISTORY, scale=0.90))
    pending = ab_changes(client, state="confirming")
    assert pending
    queued = [r for r in runs(client) if r["suite"] == f"ab:{sha(HISTORY - 1)}"]
    assert len(queued) == 1 and queued[0]["commit"] == sha(HISTORY)
    (asked,) = client.get("/api/v1/ab-requests", params={"head_commit": sha(HISTORY)}).json()[
        "items"]
    assert (asked["origin"], asked["reference_kind"]) == ("pipeline", "previous")

    run = session.get(AbRun, upload_ab(client, auth, session, queued[0]["id"], {505: 0.965}))
    assert run is not None and (run.reference_kind, run.origin) == ("previous", "pipeline")
    confirmed = ab_changes(client, state="confirmed")
    assert {c["id"] for c in confirmed} == {c["id"] for c in pending}
    for c in confirmed:
        detail = client.get(f"/api/v1/changes/{c['id']}").json()
        assert detail["confirmation"]["result"]["ab_run_id"] == run.id
