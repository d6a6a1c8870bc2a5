"""Issue 27 through the API on PostgreSQL: a one-commit regression reverted at the next
commit is recorded as a revert linked both ways; candidates whose reruns never come are
counted per tag on /health and end unconfirmed with the reason (listed, not alerted, their
queued reruns cancelled); the listing says what is wrong with its parameters (422)."""

from __future__ import annotations

from datetime import timedelta

from basketbench.changes.detection import pending
from basketbench.models.base import utcnow
from bb_factories import make_settings, sha
from changes_support import changes, ingest, make_doc, runs
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session
from test_changes_detection import seed_history

HISTORY = 12


def answer_reruns(client: TestClient, auth: dict[str, str], scales: dict[int, float]) -> int:
    """Measure the queued confirmation runs as a worker would (scale per commit index)."""
    queued = [r for r in runs(client) if r["trigger"] == "confirm" and r["result_count"] == 0
              and r["status"] == "queued"]
    by_sha = {sha(i): i for i in scales}
    for k, run in enumerate(sorted(queued, key=lambda r: r["id"])):
        i = by_sha[run["commit"]]
        ingest(client, auth, make_doc(i, seed=2000 + run["id"] * 10 + k, run_id=run["id"],
                                      scale=scales[i]))
    return len(queued)


def test_a_regression_reverted_at_the_next_commit_is_recorded_as_its_revert(
        client: TestClient, auth: dict[str, str]) -> None:
    seed_history(client, auth, HISTORY)
    spike, back = HISTORY, HISTORY + 1
    ingest(client, auth, make_doc(spike, scale=0.70))
    assert answer_reruns(client, auth, {spike - 1: 1.0, spike: 0.70}) == 4
    first = changes(client)
    assert first and {c["commit"]["sha"] for c in first} == {sha(spike)}
    assert all(c["delta_pct"] < -25 and c["reverted_by"] is None for c in first)

    ingest(client, auth, make_doc(back))
    reverts = changes(client, state="pending")
    assert reverts and {c["commit"]["sha"] for c in reverts} == {sha(back)}
    assert {c["test"] for c in reverts} == {"revert"}
    assert answer_reruns(client, auth, {spike: 0.70, back: 1.0}) == 4

    found = {c["id"]: c for c in changes(client)}
    second = [c for c in found.values() if c["commit"]["sha"] == sha(back)]
    assert len(second) == len(first)
    for c in second:
        assert c["state"] == "confirmed" and c["delta_pct"] > 25
        assert c["reverts"]["sha"] == sha(spike)
        reverted = found[c["reverts"]["change_id"]]
        assert reverted["reverted_by"] == {"change_id": c["id"], "sha": sha(back)}
        assert (reverted["dataset"], reverted["metric"]) == (c["dataset"], c["metric"])


def test_candidates_without_a_worker_are_counted_then_left_unconfirmed(
        client: TestClient, auth: dict[str, str], session: Session) -> None:
    seed_history(client, auth, HISTORY)
    ingest(client, auth, make_doc(HISTORY, scale=0.90))
    waiting = changes(client, state="pending")
    assert waiting and all(c["state"] == "confirming" for c in waiting)
    tag = waiting[0]["machine"]["tag"]
    assert client.get("/api/v1/health").json()["detection_awaiting_reruns"] == {tag: len(waiting)}

    settings = make_settings("unused", detection_worker_silence=600,
                             detection_pending_timeout=86400)
    # Not yet: younger than the silence that proves the tag has no worker.
    assert pending.expire(session, settings) == []
    expired = pending.expire(session, settings, now=utcnow() + timedelta(seconds=601))
    assert sorted(expired) == sorted(c["id"] for c in waiting)

    assert changes(client) == []  # listed, not alerted
    left = changes(client, state="unconfirmed")
    assert {c["id"] for c in left} == set(expired)
    assert all(f"no live worker on tag '{tag}'" in c["state_reason"] for c in left)
    assert client.get("/api/v1/health").json()["detection_awaiting_reruns"] == {}
    confirm_runs = [r for r in runs(client) if r["trigger"] == "confirm"]
    assert confirm_runs and {r["status"] for r in confirm_runs} == {"cancelled"}


def test_a_tag_with_a_live_worker_waits_until_the_timeout(
        client: TestClient, auth: dict[str, str], session: Session) -> None:
    seed_history(client, auth, HISTORY)
    ingest(client, auth, make_doc(HISTORY, scale=0.90))
    waiting = changes(client, state="pending")
    machine_id = waiting[0]["machine"]["id"]
    assert client.post(f"/api/v1/machines/{machine_id}/heartbeat", headers=auth).status_code == 200
    settings = make_settings("unused", detection_worker_silence=3600,
                             detection_pending_timeout=7200)
    assert pending.expire(session, settings, now=utcnow() + timedelta(seconds=3000)) == []
    expired = pending.expire(session, settings, now=utcnow() + timedelta(seconds=7300))
    assert len(expired) == len(waiting)
    assert all("waited more than 2 h" in c["state_reason"]
               for c in changes(client, state="unconfirmed"))


def test_listing_parameters_are_checked(client: TestClient, auth: dict[str, str]) -> None:
    seed_history(client, auth, 3)
    too_many = client.get("/api/v1/changes", params={"limit": 1001})
    assert too_many.status_code == 422 and "limit" in too_many.text
    assert client.get("/api/v1/changes", params={"limit": 1000}).status_code == 200
    reversed_range = client.get("/api/v1/changes",
                                params={"commit_from": sha(2), "commit_to": sha(0)})
    assert reversed_range.status_code == 422
    assert "commit_from" in reversed_range.text
    ok = client.get("/api/v1/changes", params={"commit_from": sha(0), "commit_to": sha(2)})
    assert ok.status_code == 200
    assert client.get("/api/v1/changes", params={"state": "pending"}).status_code == 200
    assert client.get("/api/v1/changes", params={"state": "later"}).status_code == 422


def test_a_size_back_to_its_old_value_is_linked_at_once(client: TestClient,
                                                        auth: dict[str, str]) -> None:
    seed_history(client, auth, 3)
    ingest(client, auth, make_doc(3, size_scale=1.02))
    ingest(client, auth, make_doc(4))
    found = {c["id"]: c for c in changes(client)}
    later = [c for c in found.values() if c["commit"]["sha"] == sha(4)]
    assert len(later) == 4 and all(c["kind"] == "exact" for c in later)
    for c in later:
        first = found[c["reverts"]["change_id"]]
        assert first["commit"]["sha"] == sha(3) and first["metric"] == c["metric"]
        assert first["reverted_by"] == {"change_id": c["id"], "sha": sha(4)}
