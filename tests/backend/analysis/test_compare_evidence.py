"""No speed verdict without evidence (issue 32): compare's speed rows carry an interleaved
A/B of the two builds on the machine (ab), instruction counts of both sides (counts), or
nothing (none: the numbers, no verdict); POST /ab-requests queues the A/B that is missing.
Real PostgreSQL, the real app; A/B runs are stored as the ab-runs upload stores them."""

from __future__ import annotations

from typing import Any

import pytest
from basketbench.models import AbEffect, AbRun, Commit, Configuration, Dataset, Machine, Run
from bb_factories import document, post_webhook, push_payload, sha
from changes_support import with_load_record
from sqlalchemy import event, func, select


@pytest.fixture
def pair(client, auth) -> list[str]:
    """Two commits on bench-01 measured at different times: the head's runs 10 % slower."""
    shas = [sha(i, "ev") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "ev").status_code == 202
    for i, s in enumerate(shas):
        doc = document(commit=s, scale=0.9 if i else 1.0, seed=i)
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    return shas


def _store_ab(session, b_sha: str, a_sha: str, effects: dict[tuple[int, str], tuple],
              *, error: str | None = None, run_id: int | None = None) -> int:
    """An A/B of B against A on bench-01 with (ratio, ci_low, ci_high, pairs) per
    (setting, metric) of nanoaod, shaped as the ab-runs upload stores it."""
    ids = {c.sha: c.id for c in session.scalars(select(Commit))}
    machine = session.scalar(select(Machine).where(Machine.name == "bench-01"))
    ab = AbRun(run_id=run_id, machine_id=machine.id, commit_id=ids[b_sha],
               reference_kind="commit", reference_commit_id=ids[a_sha], origin="compare",
               disturbed_fraction=0.04, error=error,
               method={"confidence": 0.95, "ci": "bootstrap of the median",
                       "disturbed_rule": "cpu/wall < 0.9"},
               load={"loadavg_start": [4.1, 3.9, 3.5], "loadavg_end": [4.4, 4.0, 3.6]})
    session.add(ab)
    session.flush()
    ds = session.scalar(select(Dataset.id).where(Dataset.name == "nanoaod"))
    confs = {c.setting: c.id for c in session.scalars(select(Configuration))}
    for (setting, metric), (ratio, low, high, pairs) in effects.items():
        session.add(AbEffect(ab_run_id=ab.id, dataset_id=ds, configuration_id=confs[setting],
                             metric=metric, ratio=ratio, ci_low=low, ci_high=high,
                             pairs=pairs, disturbed_pairs=1, samples=[ratio] * pairs))
    session.commit()
    return ab.id


def _with_counts(doc: dict[str, Any], lz4_more: float, busy: bool) -> dict[str, Any]:
    """Instructions per MB of both operations (decompression of lz4, 404, ``lz4_more``
    higher), as a counted run stores them; 1 MB per result, so per MB = counted."""
    for r in doc["results"]:
        base = 1_000_000.0 * (1 + r["setting"])
        d = 2_400_000.0 * (1 + lz4_more) if r["setting"] == 404 else base
        r.update(compress_instructions=int(3 * base), compress_instructions_per_mb=3 * base,
                 decompress_instructions=int(d), decompress_instructions_per_mb=d)
    return with_load_record(doc, busy)


def _compare(client, base: str, head: str, extra: str = "") -> dict[str, Any]:
    r = client.get(f"/api/v1/compare?base_commit={base}&head_commit={head}&machine=bench-01"
                   f"&dataset=nanoaod{extra}")
    assert r.status_code == 200, r.text
    return r.json()


def _speed(body: dict[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    return {(r["configuration"]["setting"], r["metric"]): r for r in body["rows"]
            if r["metric"] in ("compress_mbps", "decompress_mbps")}


def test_runs_at_different_times_get_no_speed_verdict(client, pair):
    body = _compare(client, *pair)
    rows = _speed(body)
    assert len(rows) == 10
    for row in rows.values():  # the runs say -10 %; without evidence that is no verdict
        assert row["delta_pct"] == pytest.approx(-10, abs=1.5)
        assert row["evidence"] == {"kind": "none"}
        assert not row["significant"] and not row["regression"]
    assert body["ab"] is None and body["rule"]["evidence"] == {"ab": 0, "counts": 0, "none": 10}
    assert "different times" in body["rule"]["speed_without_evidence"]


def test_an_interleaved_ab_decides_its_rows(client, session, pair):
    base, head = pair
    slower, equal, small = (0.95, 0.94, 0.96, 30), (1.004, 0.995, 1.012, 30), (
        1.012, 1.006, 1.018, 30)
    # an older A/B of the pair says the opposite: the newest one is the evidence
    _store_ab(session, head, base, {(505, "compress_mbps"): (1.2, 1.1, 1.3, 30)})
    ab_id = _store_ab(session, head, base, {
        (505, "compress_mbps"): slower, (505, "decompress_mbps"): equal,
        (101, "compress_mbps"): small, (404, "compress_mbps"): (None, None, None, 0)})
    body = _compare(client, base, head)
    rows = _speed(body)
    assert rows[(505, "compress_mbps")]["evidence"] == {
        "kind": "ab", "ratio": 0.95, "ci_low": 0.94, "ci_high": 0.96, "pairs": 30,
        "disturbed_pairs": 1}
    assert rows[(505, "compress_mbps")]["significant"]
    assert rows[(505, "compress_mbps")]["regression"]
    # an interval holding 1: equal; an interval excluding 1 below the 2 % minimum effect
    assert rows[(505, "decompress_mbps")]["evidence"]["kind"] == "ab"
    assert not rows[(505, "decompress_mbps")]["significant"]
    assert rows[(101, "compress_mbps")]["evidence"]["kind"] == "ab"
    assert not rows[(101, "compress_mbps")]["significant"]
    # no undisturbed pair left: no estimate, so no evidence; rows the A/B did not measure
    assert rows[(404, "compress_mbps")]["evidence"] == {"kind": "none"}
    assert rows[(207, "decompress_mbps")]["evidence"] == {"kind": "none"}
    assert body["ab"] == {
        "ab_run_id": ab_id, "measured_at": body["ab"]["measured_at"], "confidence": 0.95,
        "interval": "bootstrap of the median", "disturbed_fraction": 0.04,
        "disturbed_rule": "cpu/wall < 0.9", "loadavg_start": [4.1, 3.9, 3.5],
        "loadavg_end": [4.4, 4.0, 3.6], "reference_kind": "commit", "origin": "compare",
        "swapped": False}
    assert body["rule"]["evidence"] == {"ab": 3, "counts": 0, "none": 7}
    assert body["counts"]["regressions"] == 1  # sizes equal; one speed row decided
    decided = _compare(client, base, head, "&merged=true&order=decided")["rows"]
    assert (decided[0]["configuration"]["setting"], decided[0]["metric"]) == (
        505, "compress_mbps")
    # the A/B as the other way round (base as its side B): head over base is the inverse
    back = _compare(client, head, base)
    flipped = _speed(back)[(505, "compress_mbps")]
    assert back["ab"]["swapped"] and flipped["evidence"]["ratio"] == pytest.approx(1 / 0.95)
    assert flipped["evidence"]["ci_low"] == pytest.approx(1 / 0.96)
    assert flipped["significant"] and not flipped["regression"]


def test_a_failed_ab_and_another_machine_are_no_evidence(client, session, pair):
    base, head = pair
    _store_ab(session, head, base, {(505, "compress_mbps"): (0.9, 0.88, 0.92, 30)},
              error="build of the reference failed")
    assert _compare(client, base, head)["ab"] is None
    machines = client.get(f"/api/v1/compare?base_machine=bench-01&head_machine=bench-01"
                          f"&commit={head}&metric=compress_mbps").json()
    assert all(r["evidence"] == {"kind": "none"} for r in machines["rows"])
    assert "two machines" in machines["rule"]["speed_without_evidence"]


def test_instruction_counts_decide_when_there_is_no_ab(client, auth):
    shas = [sha(i, "evc") for i in range(2)]
    assert post_webhook(client, "push", push_payload(shas), "evc").status_code == 202
    for i, s in enumerate(shas):  # head: 1 % more decompression instructions on lz4 (404)
        doc = _with_counts(document(commit=s, seed=i, scale=0.5 if i else 1.0),
                           lz4_more=0.01 if i else 0.0, busy=i == 1)
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    body = _compare(client, *shas)
    rows = _speed(body)
    lz4 = rows[(404, "decompress_mbps")]
    assert lz4["evidence"] == {
        "kind": "counts", "base_instructions_per_mb": 2_400_000.0,
        "head_instructions_per_mb": pytest.approx(2_424_000.0),
        "instructions_delta_pct": pytest.approx(1.0)}
    assert lz4["significant"] and lz4["regression"]
    # the runs say -50 % everywhere (the head's run was busy); the counts did not move
    others = [r for k, r in rows.items() if k != (404, "decompress_mbps")]
    assert all(r["evidence"]["kind"] == "counts" and not r["significant"] for r in others)
    assert all(r["delta_pct"] == pytest.approx(-50, abs=1) for r in others)
    assert body["head"]["busy"] is True
    assert body["rule"]["evidence"] == {"ab": 0, "counts": 10, "none": 0}


def test_the_evidence_costs_one_bounded_statement(client, session, pair):
    base, head = pair
    _store_ab(session, head, base, {(505, "compress_mbps"): (0.95, 0.94, 0.96, 30)})
    engine = client.app.state.sessionmaker.kw["bind"]
    seen: list[str] = []

    def count(conn, cursor, statement, *args) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        _compare(client, base, head)
        with_ab = [s for s in seen if "ab_" in s]
        seen.clear()
        _compare(client, base, head, "&metric=ratio")  # no speed row: no A/B query
        without = [s for s in seen if "ab_" in s]
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(with_ab) == 1 and "max(ab_runs.id)" in with_ab[0]
    assert without == []


def test_ab_requests_queue_an_ab_run_once(client, auth, session, pair):
    base, head = pair
    body = {"base_commit": base, "head_commit": head, "machine": "bench-01"}
    assert client.post("/api/v1/ab-requests", json=body).status_code == 401
    first = client.post("/api/v1/ab-requests", json=body, headers=auth)
    assert first.status_code == 201, first.text
    out = first.json()
    assert (out["tag"], out["machine"], out["commit"], out["reference_commit"]) == (
        "haswell", "bench-01", head, base)
    assert (out["reference_kind"], out["origin"], out["status"]) == (
        "commit", "compare", "queued")
    assert out["ab_run_id"] is None and not out["duplicate"]
    run = session.get(Run, out["run_id"])
    # the worker's A/B stage reads side A from the suite (ab:<reference sha>)
    assert (run.suite, run.tag, run.trigger, run.status) == (f"ab:{base}", "haswell",
                                                            "ab:tests", "queued")
    # a second click: the pending one, nothing queued twice
    again = client.post("/api/v1/ab-requests", json=body, headers=auth)
    assert again.status_code == 200 and again.json()["duplicate"]
    assert again.json()["run_id"] == out["run_id"]
    by_tag = client.post("/api/v1/ab-requests", headers=auth, json={
        "base_commit": base[:10], "head_commit": head, "tag": "haswell"})
    assert by_tag.status_code == 200 and by_tag.json()["run_id"] == out["run_id"]
    listed = client.get(f"/api/v1/ab-requests?machine=bench-01&base_commit={base}"
                        f"&head_commit={head}").json()["items"]
    assert [r["run_id"] for r in listed] == [out["run_id"]]
    assert client.get(f"/api/v1/ab-requests?base_commit={head}&head_commit={base}"
                      ).json()["items"] == []
    # the worker uploads the A/B with the run's id: the request shows it, compare uses it
    ab_id = _store_ab(session, head, base, {(505, "compress_mbps"): (0.95, 0.94, 0.96, 30)},
                      run_id=out["run_id"])
    landed = client.get(f"/api/v1/ab-requests/{out['run_id']}").json()
    assert (landed["ab_run_id"], landed["measured_on"]) == (ab_id, "bench-01")
    assert _compare(client, base, head)["ab"]["ab_run_id"] == ab_id


BAD_REQUESTS = [
    ({"base_commit": "SAME", "head_commit": "SAME", "machine": "bench-01"}, 422,
     "two different commits"),
    ({"base_commit": "BASE", "head_commit": "HEAD"}, 422, "give machine or tag"),
    ({"base_commit": "BASE", "head_commit": "HEAD", "machine": "m", "tag": "t"}, 422,
     "give machine or tag"),
    ({"base_commit": "BASE", "head_commit": "f" * 40, "machine": "bench-01"}, 404,
     "unknown commit"),
    ({"base_commit": "BASE", "head_commit": "HEAD", "machine": "nowhere"}, 404,
     "unknown machine"),
    ({"base_commit": "not hex", "head_commit": "HEAD", "tag": "t"}, 422, "base_commit"),
    ({"base_commit": "BASE", "head_commit": "HEAD", "tag": "t", "extra": 1}, 422, "extra"),
]


def test_bad_ab_requests_say_why(client, auth, session, pair):
    names = {"SAME": pair[0], "BASE": pair[0], "HEAD": pair[1]}
    for body, status, reason in BAD_REQUESTS:  # one seeded pair for every case
        sent = {k: names.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
        r = client.post("/api/v1/ab-requests", json=sent, headers=auth)
        assert r.status_code == status, (body, r.text)
        assert reason in r.text and "Traceback" not in r.text, (body, r.text)
    assert session.scalar(select(func.count()).select_from(Run)) == 0  # nothing half written
    assert client.get("/api/v1/ab-requests/999999").status_code == 404
