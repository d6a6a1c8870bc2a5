"""Bisection's bookkeeping through the API, the worker's part played by the test:
a size change between two measured commits with 9 unmeasured commits between them.
The full loop with a real git repository and Celery worker is in
tests/workers/test_bisection.py."""

from __future__ import annotations

from datetime import UTC, datetime

from bb_factories import sha
from changes_support import changes, ingest, make_doc, runs
from fastapi.testclient import TestClient

GOOD, BAD, CULPRIT = 3, 20, 15  # measured: 0..3 and 20; the step is planted at 15


def range_body(first: int, last: int) -> dict[str, object]:
    return {"commits": [
        {"sha": sha(i), "parents": [sha(i - 1 if i > first else GOOD)], "author": "Dev",
         "date": datetime(2026, 11, 1, 10, i, tzinfo=UTC).isoformat(),
         "message": f"commit {i}"}
        for i in range(first, last + 1)]}


def test_bisection_isolates_the_culprit(client: TestClient, auth: dict[str, str]) -> None:
    for i in range(GOOD + 1):
        ingest(client, auth, make_doc(i))
    ingest(client, auth, make_doc(BAD, size_scale=1.03))
    found = changes(client)
    assert len(found) == 4 and {c["parent"]["sha"] for c in found} == {sha(GOOD)}
    lead = max(found, key=lambda c: abs(c["delta_pct"]))
    bis = client.get(f"/api/v1/changes/{lead['id']}").json()["bisection"]
    # No broker in this test: the commit list waits for a worker.
    assert bis["status"] == "waiting" and bis["good"] == sha(GOOD) and bis["bad"] == sha(BAD)
    lead_id = bis["lead"]

    url = f"/api/v1/changes/{lead_id}/bisection/range"
    assert client.post(url, json=range_body(GOOD + 1, BAD)).status_code == 401
    wrong = client.post(url, json=range_body(GOOD + 1, BAD - 1), headers=auth)
    assert wrong.status_code == 422
    answer = client.post(url, json=range_body(GOOD + 1, BAD), headers=auth)
    assert answer.status_code == 200, answer.text
    assert answer.json()["bisection"]["status"] == "running"
    again = client.post(url, json=range_body(GOOD + 1, BAD), headers=auth)
    assert again.status_code == 409

    # The commits are stored in git order between good and bad.
    orders = {c["sha"]: c["order"] for c in client.get(
        "/api/v1/commits", params={"limit": 100}).json()["items"]}
    chain = [sha(i) for i in range(GOOD, BAD + 1)]
    assert [orders[s] for s in chain] == sorted(orders[s] for s in chain)

    measured = []
    for _ in range(10):
        pending = [r for r in runs(client) if r["trigger"] == "bisect" and r["result_count"] == 0]
        if not pending:
            break
        assert len(pending) == 1
        run = pending[0]
        i = next(k for k in range(GOOD, BAD + 1) if sha(k) == run["commit"])
        measured.append(i)
        ingest(client, auth, make_doc(i, run_id=run["id"],
                                      size_scale=1.03 if i >= CULPRIT else 1.0))
    # binary search over 17 candidates: at most 5 measurements
    assert 3 <= len(measured) <= 5, measured
    moved = changes(client)
    assert {c["commit"]["sha"] for c in moved} == {sha(CULPRIT)}
    assert {c["parent"]["sha"] for c in moved} == {sha(CULPRIT - 1)}
    detail = client.get(f"/api/v1/changes/{lead_id}").json()
    bis = detail["bisection"]
    assert bis["status"] == "done" and bis["culprit"] == sha(CULPRIT)
    assert bis["detected_commit"] == sha(BAD)
    assert [s["sha"] for s in bis["steps"]] == [sha(i) for i in measured]
    assert all(s["verdict"] in ("old", "new") for s in bis["steps"])
    # the plot's marker moved with the record
    hist = client.get("/api/v1/history", params={
        "machine": "bench-01", "dataset": "hzz", "setting": 505,
        "metric": "compressed_bytes"}).json()
    assert [m["sha"] for m in hist["changes"]] == [sha(CULPRIT)]


def test_adjacent_commits_need_no_bisection(client: TestClient, auth: dict[str, str]) -> None:
    for i in range(3):
        ingest(client, auth, make_doc(i))
    ingest(client, auth, make_doc(5, size_scale=1.03))
    lead = changes(client)[0]
    lead_id = client.get(f"/api/v1/changes/{lead['id']}").json()["bisection"]["lead"]
    answer = client.post(f"/api/v1/changes/{lead_id}/bisection/range",
                         json=range_body(5, 5), headers=auth)
    assert answer.status_code == 200
    assert answer.json()["bisection"]["status"] == "not_needed"
    assert answer.json()["run_ids"] == []


def test_releases_are_named_and_not_bisected(client: TestClient,
                                             auth: dict[str, str]) -> None:
    """The demo measures ROOT releases under stable ids without ROOT's repository: they
    carry their name and date, and a change between two of them says it cannot be
    bisected instead of waiting for a commit list that never comes."""
    from basketbench.measure.realroot.releases import lookup, release_commit_sha

    old, new = (release_commit_sha(lookup(v)) for v in ("6.38.00", "6.40.00"))
    ingest(client, auth, make_doc(0, commit=old))
    ingest(client, auth, make_doc(1, commit=new, size_scale=1.03))
    named = client.get(f"/api/v1/commits/{new}").json()
    assert named["message"] == "ROOT 6.40.00 (release)" and named["author"] == "ROOT team"
    assert named["date"].startswith("2026-05-20")
    found = changes(client)
    assert found and {c["commit"]["sha"] for c in found} == {new}
    bis = client.get(f"/api/v1/changes/{found[0]['id']}").json()["bisection"]
    assert bis["status"] == "impossible" and "6.38.00 and 6.40.00" in bis["reason"]
