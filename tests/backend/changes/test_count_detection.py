"""Instruction counts in detection (issue 23, point 3), through the API on PostgreSQL: a
count step is a change from one run with no reruns; a speed candidate is judged by the
counts of its two commits (code, or probably the machine); a run on a busy machine is not
screened for speed, but its counts are."""

from __future__ import annotations

from typing import Any

from bb_factories import sha
from changes_support import changes, ingest, make_doc, runs, with_counts
from fastapi.testclient import TestClient

HISTORY = 12
COUNT = "decompress_instructions_per_mb"


def counted(i: int, **kw: Any) -> dict[str, Any]:
    count_scale, busy = kw.pop("count_scale", 1.0), kw.pop("busy", False)
    return with_counts(make_doc(i, **kw), count_scale=count_scale, busy=busy)


def confirm_runs(client: TestClient) -> list[dict[str, Any]]:
    return [r for r in runs(client) if r["trigger"] == "confirm"]


def test_a_one_percent_count_step_is_a_change_from_one_run(client: TestClient,
                                                           auth: dict[str, str]) -> None:
    for i in range(3):
        ingest(client, auth, counted(i))
    ingest(client, auth, counted(3, count_scale=1.01))
    found = changes(client)
    # ZSTD-5's decompression count on both datasets, confirmed at once at its own commit
    assert {(c["dataset"], c["configuration"]["setting"], c["metric"]) for c in found} == {
        ("nanoaod", 505, COUNT), ("hzz", 505, COUNT)}
    for c in found:
        assert (c["state"], c["kind"], c["test"]) == ("confirmed", "exact", "count")
        assert c["commit"]["sha"] == sha(3) and c["parent"]["sha"] == sha(2)
        assert abs(c["delta_pct"] - 1.0) < 1e-9
        assert c["direction"] == "regression"  # more instructions per MB
    assert confirm_runs(client) == []  # no reruns: counts are near-exact
    detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
    assert "deterministic" in detail["evidence"]["rule"]
    assert detail["evidence"]["threshold_pct"] == 0.5
    lines = client.get("/api/v1/changes/summary").json()["items"]
    assert [ln["line"] for ln in lines] == [
        "ZSTD decompression instructions per MB +1.00 %, 2 series on 2 datasets, bench-01"]

    # 0.3 % more is within the threshold (0.5 %): nothing new
    ingest(client, auth, counted(4, count_scale=1.01 * 1.003))
    assert len(changes(client)) == 2
    # back to the old count (within the threshold): a change that reverts the first
    ingest(client, auth, counted(5))
    back = [c for c in changes(client) if c["commit"]["sha"] == sha(5)]
    assert len(back) == 2 and all(c["direction"] == "improvement" for c in back)
    first = {c["dataset"]: c["id"] for c in found}
    assert {c["dataset"]: c["reverts"]["change_id"] for c in back} == first


def test_a_speed_step_without_a_count_step_is_probably_the_machine(
        client: TestClient, auth: dict[str, str]) -> None:
    for i in range(HISTORY):
        ingest(client, auth, counted(i))
    ingest(client, auth, counted(HISTORY, scale=0.90))
    pending = changes(client, state="confirming")
    assert {(c["dataset"], c["metric"]) for c in pending} == {
        (ds, m) for ds in ("nanoaod", "hzz") for m in ("compress_mbps", "decompress_mbps")}
    assert {c["attribution"] for c in pending} == {"probably the machine"}
    detail = client.get(f"/api/v1/changes/{pending[0]['id']}").json()
    assert "within 0.5 %" in detail["evidence"]["attribution_reason"]
    assert changes(client) == []  # no count moved


def test_a_speed_step_with_its_count_step_is_code(client: TestClient,
                                                 auth: dict[str, str]) -> None:
    for i in range(HISTORY):
        ingest(client, auth, counted(i))
    ingest(client, auth, counted(HISTORY, scale=0.90, count_scale=1.05))
    pending = changes(client, state="confirming")
    verdicts = {(c["dataset"], c["metric"]): c["attribution"] for c in pending}
    # decompression's count moved: code; compression's did not: probably the machine
    assert verdicts == {(ds, "decompress_mbps"): "code" for ds in ("nanoaod", "hzz")} | {
        (ds, "compress_mbps"): "probably the machine" for ds in ("nanoaod", "hzz")}
    assert {c["metric"] for c in changes(client)} == {COUNT}  # the count change itself


def test_a_busy_run_is_not_screened_for_speed_but_its_counts_are(
        client: TestClient, auth: dict[str, str]) -> None:
    for i in range(HISTORY):
        ingest(client, auth, counted(i))
    ingest(client, auth, counted(HISTORY, scale=0.80, count_scale=1.02, busy=True))
    assert changes(client, state="confirming") == []  # a 20 % slower run, not tested
    assert confirm_runs(client) == []
    found = changes(client)
    assert {(c["metric"], c["state"]) for c in found} == {(COUNT, "confirmed")}
    detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
    assert "busy machine" in detail["evidence"]["speed"]
    # the busy run's speeds are not a point of the series either: the next commit at the
    # old speed is no step back
    ingest(client, auth, counted(HISTORY + 1, count_scale=1.02))
    assert changes(client, state="confirming") == [] and confirm_runs(client) == []
