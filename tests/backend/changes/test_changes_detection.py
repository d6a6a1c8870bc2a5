"""Detection after ingest, through the API on PostgreSQL: the exact rule, the speed rule
with its interleaved confirmation reruns (uploaded as a worker would), rejection by the
reruns, the fingerprint split, history markers from the records, the status workflow."""

from __future__ import annotations

from typing import Any

from bb_factories import sha
from changes_support import changes, ingest, make_doc, runs
from fastapi.testclient import TestClient

HISTORY = 12


def seed_history(client: TestClient, auth: dict[str, str], n: int = HISTORY) -> None:
    for i in range(n):
        ingest(client, auth, make_doc(i))


def upload_reruns(client: TestClient, auth: dict[str, str], suspect: int, scale: float,
                  parent_scale: float = 1.0) -> list[dict[str, Any]]:
    """What the worker does with the queued confirmation runs: measure and upload."""
    queued = [r for r in runs(client) if r["trigger"] == "confirm"]
    assert queued, "no confirmation runs were queued"
    for k, run in enumerate(sorted(queued, key=lambda r: r["id"])):
        is_suspect = run["commit"] == sha(suspect)
        doc = make_doc(suspect if is_suspect else suspect - 1, seed=1000 + k, run_id=run["id"],
                       scale=scale if is_suspect else parent_scale)
        ingest(client, auth, doc)
    return queued


def test_exact_change_is_raised_at_once_with_its_commit(client: TestClient,
                                                        auth: dict[str, str]) -> None:
    seed_history(client, auth, 3)
    assert changes(client) == []
    ingest(client, auth, make_doc(3, size_scale=1.02))
    found = changes(client)
    # ZSTD-5 on two datasets: compressed bytes and ratio each.
    assert len(found) == 4, found
    assert {c["metric"] for c in found} == {"compressed_bytes", "ratio"}
    assert {c["commit"]["sha"] for c in found} == {sha(3)}
    assert {c["parent"]["sha"] for c in found} == {sha(2)}
    assert all(c["state"] == "confirmed" and c["kind"] == "exact" for c in found)
    assert all(c["direction"] == "regression" for c in found)  # bigger, lower ratio
    size = next(c for c in found if c["metric"] == "compressed_bytes")
    assert abs(size["delta_pct"] - 2.0) < 0.01
    assert size["commit"]["url"] == f"https://github.com/root-project/root/commit/{sha(3)}"
    # no speed was touched: no speed candidate, no confirmation run
    assert [r for r in runs(client) if r["trigger"] == "confirm"] == []


def test_speed_change_is_confirmed_by_interleaved_reruns(client: TestClient,
                                                         auth: dict[str, str]) -> None:
    seed_history(client, auth)
    ingest(client, auth, make_doc(HISTORY, scale=0.90))
    pending = changes(client, state="confirming")
    assert {(c["dataset"], c["configuration"]["setting"]) for c in pending} == {
        ("nanoaod", 505), ("hzz", 505)}
    assert {c["metric"] for c in pending} == {"compress_mbps", "decompress_mbps"}
    assert changes(client) == []  # nothing raised before the reruns
    queued = [r for r in runs(client) if r["trigger"] == "confirm"]
    # parent, suspect, parent, suspect: interleaved on the same tag
    assert [r["commit"] for r in sorted(queued, key=lambda r: r["id"])] == [
        sha(HISTORY - 1), sha(HISTORY)] * 2
    assert {r["tag"] for r in queued} == {"haswell"}

    upload_reruns(client, auth, HISTORY, scale=0.90)
    raised = changes(client)
    assert len(raised) == 4, raised
    for c in raised:
        assert c["state"] == "confirmed" and c["direction"] == "regression"
        assert -11 < c["delta_pct"] < -9
        assert c["q_value"] is not None and c["q_value"] <= 0.05
        assert c["ci_low_pct"] < c["delta_pct"] < c["ci_high_pct"] < 0
    detail = client.get(f"/api/v1/changes/{raised[0]['id']}").json()
    result = detail["confirmation"]["result"]
    assert result["confirmed"] and len(result["parent_reruns"]) == 2
    assert len(result["suspect_reruns"]) == 2 and result["rerun_delta_pct"] < -9
    assert len(detail["evidence"]["reference"]) == HISTORY
    assert len(detail["related"]) == 3  # the same commit's other changes, grouped

    # History markers are these records.
    hist = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "hzz", "setting": 505,
        "metric": "decompress_mbps"}).json()
    assert [(m["sha"], m["previous_sha"]) for m in hist["changes"]] == [
        (sha(HISTORY), sha(HISTORY - 1))]
    assert hist["changes"][0]["change_id"] in {c["id"] for c in raised}
    quiet = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "hzz", "setting": 404,
        "metric": "decompress_mbps"}).json()
    assert quiet["changes"] == []


def test_a_fluke_is_rejected_by_the_reruns(client: TestClient, auth: dict[str, str]) -> None:
    seed_history(client, auth)
    ingest(client, auth, make_doc(HISTORY, scale=0.90))  # one slow run...
    assert changes(client, state="confirming")
    upload_reruns(client, auth, HISTORY, scale=1.0)  # ...that the reruns do not repeat
    assert changes(client) == []
    rejected = changes(client, state="rejected")
    assert len(rejected) == 4
    assert all(c["state"] == "rejected" for c in rejected)
    # the parent's reruns are at the old level too: nothing moves to the parent
    assert changes(client, state="confirming") == []
    assert len([r for r in runs(client) if r["trigger"] == "confirm"]) == 4
    detail = client.get(f"/api/v1/changes/{rejected[0]['id']}").json()
    assert detail["confirmation"]["result"]["verdict"] == "rejected"
    hist = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "hzz", "setting": 505,
        "metric": "decompress_mbps"}).json()
    assert hist["changes"] == []


def upload_queued_reruns(client: TestClient, auth: dict[str, str],
                         scales: dict[int, float]) -> list[dict[str, Any]]:
    """The confirmation runs still waiting for results, measured at the given levels
    (commit index -> speed scale)."""
    queued = [r for r in runs(client) if r["trigger"] == "confirm" and r["result_count"] == 0]
    index = {sha(i): i for i in scales}
    for k, run in enumerate(sorted(queued, key=lambda r: r["id"])):
        i = index[run["commit"]]
        ingest(client, auth, make_doc(i, seed=2000 + run["id"] + k, run_id=run["id"],
                                      scale=scales[i]))
    return queued


def test_a_step_found_one_commit_late_moves_to_its_parent(client: TestClient,
                                                         auth: dict[str, str]) -> None:
    """The step is at commit 12, whose first run fell inside the noise; commit 13 shows
    it. The reruns of 12 and 13 agree with each other, both at the new level: the change
    moves to 12, and 12 is confirmed against 11 by a second round of reruns."""
    step, late = HISTORY, HISTORY + 1
    seed_history(client, auth)
    ingest(client, auth, make_doc(step, scale=1.0))  # the step's first run: old level
    ingest(client, auth, make_doc(late, scale=0.90))
    first = changes(client, state="confirming")
    assert first and {c["commit"]["sha"] for c in first} == {sha(late)}

    round1 = upload_queued_reruns(client, auth, {step: 0.90, late: 0.90})
    assert [r["commit"] for r in sorted(round1, key=lambda r: r["id"])] == [
        sha(step), sha(late)] * 2
    moved = changes(client, state="confirming")
    assert moved and {(c["commit"]["sha"], c["parent"]["sha"]) for c in moved} == {
        (sha(step), sha(step - 1))}
    assert changes(client) == []  # nothing raised before the parent's own reruns
    old = client.get(f"/api/v1/changes/{first[0]['id']}").json()
    assert old["state"] == "rejected"
    assert old["confirmation"]["result"]["verdict"] == "earlier"
    assert old["confirmation"]["result"]["moved_to"] in {c["id"] for c in moved}
    assert abs(old["confirmation"]["result"]["rerun_delta_pct"]) < 1.0

    round2 = upload_queued_reruns(client, auth, {step - 1: 1.0, step: 0.90})
    assert [r["commit"] for r in sorted(round2, key=lambda r: r["id"])] == [
        sha(step - 1), sha(step)] * 2
    raised = changes(client)
    assert len(raised) == len(moved) and len(raised) >= 2
    for c in raised:
        assert (c["commit"]["sha"], c["parent"]["sha"]) == (sha(step), sha(step - 1))
        # the median of 12's runs: its first (old-level) run does not move the estimate
        assert c["state"] == "confirmed" and -11 < c["delta_pct"] < -9
    detail = client.get(f"/api/v1/changes/{raised[0]['id']}").json()
    assert detail["evidence"]["moves"] == 1
    assert detail["evidence"]["moved_from"]["commit"] == sha(late)
    assert detail["confirmation"]["result"]["rerun_delta_pct"] < -9
    hist = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "hzz", "setting": 505,
        "metric": "decompress_mbps"}).json()
    assert [(m["sha"], m["previous_sha"]) for m in hist["changes"]] == [
        (sha(step), sha(step - 1))]


def test_new_fingerprint_starts_a_new_series_without_alert(client: TestClient,
                                                           auth: dict[str, str]) -> None:
    seed_history(client, auth)
    # New kernel: 20 % slower everywhere and other sizes; a new machine version, no alert.
    ingest(client, auth, make_doc(HISTORY, all_scale=0.8, size_scale=1.05,
                                  fingerprint="ffff0000ffff0000"))
    assert changes(client, include_unconfirmed=True) == []
    assert [r for r in runs(client) if r["trigger"] == "confirm"] == []
    machines = client.get("/api/v1/machines").json()["items"]
    assert sorted(m["version"] for m in machines) == [1, 2]
    # The new series then detects its own changes.
    ingest(client, auth, make_doc(HISTORY + 1, size_scale=1.10, fingerprint="ffff0000ffff0000"))
    found = changes(client)
    assert found and {c["machine"]["version"] for c in found} == {2}
    assert {c["parent"]["sha"] for c in found} == {sha(HISTORY)}


def test_status_workflow_needs_a_token_and_a_reason(client: TestClient,
                                                   auth: dict[str, str]) -> None:
    seed_history(client, auth, 2)
    ingest(client, auth, make_doc(2, size_scale=0.97))
    change = changes(client)[0]
    url = f"/api/v1/changes/{change['id']}"
    assert change["status"] == "open"
    assert client.patch(url, json={"status": "acknowledged"}).status_code == 401
    answer = client.patch(url, json={"status": "ignored"}, headers=auth)
    assert answer.status_code == 400 and "reason" in answer.json()["error"]["message"]
    assert client.patch(url, json={"status": "gone"}, headers=auth).status_code == 422
    answer = client.patch(url, json={"status": "acknowledged", "by": "alice"}, headers=auth)
    assert answer.status_code == 200 and answer.json()["status_by"] == "alice"
    answer = client.patch(url, json={"status": "fixed", "reason": "reverted in abc"},
                          headers=auth)
    body = answer.json()
    assert body["status"] == "fixed" and body["status_reason"] == "reverted in abc"
    assert body["status_by"] == "tests"  # the token's name when nobody is named
    assert [c["id"] for c in changes(client, status="fixed")] == [change["id"]]
    assert changes(client, status="open") != [] or len(changes(client)) == 1
    assert client.get("/api/v1/changes/999999").status_code == 404


def test_change_filters(client: TestClient, auth: dict[str, str]) -> None:
    seed_history(client, auth, 2)
    ingest(client, auth, make_doc(2, size_scale=1.03))
    ingest(client, auth, make_doc(3, size_scale=1.03 * 0.95))
    assert len(changes(client)) == 8
    assert {c["commit"]["sha"] for c in changes(client, commit=sha(3))} == {sha(3)}
    assert len(changes(client, commit_from=sha(3))) == 4
    assert len(changes(client, commit_to=sha(2))) == 4
    assert len(changes(client, direction="improvement")) == 4
    assert len(changes(client, metric="ratio", dataset="hzz")) == 2
    assert len(changes(client, setting=404)) == 0
    assert len(changes(client, tag="haswell", machine="bench-01")) == 8
    # newest commit first
    assert [c["commit"]["sha"] for c in changes(client)][0] == sha(3)
    bad = client.get("/api/v1/changes", params={"metric": "speed"})
    assert bad.status_code == 422
    assert client.get("/api/v1/changes", params={"commit": "f" * 40}).status_code == 404
    csv = client.get("/api/v1/changes", params={"format": "csv"})
    assert csv.status_code == 200 and csv.text.count("\n") >= 9


def test_a_step_arriving_while_a_change_is_confirmed_is_screened_once_it_is_decided(
        client: TestClient, auth: dict[str, str]) -> None:
    """Commit 12 has one slow run (a fluke); while it is being confirmed, commit 13 brings
    a real 10 % step. 12 splits the series until it is decided, so 13 is screened against
    12 alone and no test can run. Once the reruns reject 12, 13 is screened again against
    the whole series, and becomes a candidate with its own reruns. 12's screened run,
    contradicted by its reruns, is left out of the series (issue 27: reruns are never
    points): 13's parent is 11."""
    fluke, step = HISTORY, HISTORY + 1
    seed_history(client, auth)
    ingest(client, auth, make_doc(fluke, scale=0.90))
    assert {c["commit"]["sha"] for c in changes(client, state="confirming")} == {sha(fluke)}
    ingest(client, auth, make_doc(step, scale=0.90))
    # screened while 12 is pending: nothing at 13 yet
    assert {c["commit"]["sha"] for c in changes(client, state="confirming")} == {sha(fluke)}
    upload_queued_reruns(client, auth, {fluke - 1: 1.0, fluke: 1.0})
    assert {c["commit"]["sha"] for c in changes(client, state="rejected")} == {sha(fluke)}
    pending = changes(client, state="confirming")
    assert {c["commit"]["sha"] for c in pending} == {sha(step)}, pending
    assert {(c["dataset"], c["configuration"]["setting"]) for c in pending} == {
        ("nanoaod", 505), ("hzz", 505)}
    queued = [r for r in runs(client) if r["trigger"] == "confirm" and r["result_count"] == 0]
    assert {r["commit"] for r in queued} == {sha(fluke - 1), sha(step)}  # the step's pair
    # and once its reruns agree, the step is raised
    upload_queued_reruns(client, auth, {fluke - 1: 1.0, step: 0.90})
    raised = changes(client)
    assert {c["commit"]["sha"] for c in raised} == {sha(step)} and len(raised) == 4, raised
    assert all(-11 < c["delta_pct"] < -9 for c in raised)
