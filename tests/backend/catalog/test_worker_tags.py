"""Issue 22: runs only for tags a worker serves (or an operator declared); queued runs of a
tag without a live worker expire with a reason, shown in /health and GET /worker-tags."""

from __future__ import annotations

from datetime import timedelta

from basketbench.catalog.worker_tags import expire_unserved
from basketbench.models import Run, RunDispatch, WorkerTag
from basketbench.models.base import utcnow
from bb_factories import document, post_webhook, push_payload, sha
from sqlalchemy import func, select, update


def _runs(session, tag: str) -> list[Run]:
    session.expire_all()
    return list(session.scalars(select(Run).where(Run.tag == tag).order_by(Run.id)))


def test_a_tag_only_ingest_named_gets_no_runs(client, auth, session):
    # The document's machine has no tag: ingest registers it with its arch, x86_64.
    r = client.post("/api/v1/results", json=document(tag=None, machine="laptop-7"),
                    headers=auth)
    assert r.status_code == 201, r.text
    r = post_webhook(client, "push", push_payload([sha(1, "w")]), "w-1")
    assert r.status_code == 202 and r.json()["run_ids"] == []
    assert _runs(session, "x86_64") == []
    assert client.post("/api/v1/trigger", json={"commits": [sha(1, "w")]},
                       headers=auth).status_code == 422


def test_a_worker_registration_makes_its_tag_get_runs(client, auth, session):
    r = client.post("/api/v1/machines", headers=auth,
                    json={"name": "w-arm", "tag": "arm64", "fingerprint": {"cpu": "a"}})
    assert r.status_code == 201, r.text
    r = post_webhook(client, "push", push_payload([sha(2, "w")]), "w-2")
    assert r.status_code == 202 and len(r.json()["run_ids"]) == 1
    assert [run.tag for run in _runs(session, "arm64")] == ["arm64"]


def test_an_operator_declared_tag_gets_runs_and_can_be_withdrawn(client, auth, session):
    assert client.put("/api/v1/worker-tags/zen5", headers={}).status_code == 401
    r = client.put("/api/v1/worker-tags/zen5", headers=auth)
    assert r.status_code == 200 and r.json()["gets_runs"] and not r.json()["live"]
    r = client.post("/api/v1/trigger", json={"commits": [sha(3, "w")]}, headers=auth)
    assert r.status_code == 202 and r.json()["tags"] == ["zen5"]
    assert client.delete("/api/v1/worker-tags/zen5", headers=auth).status_code == 204
    assert client.delete("/api/v1/worker-tags/nope", headers=auth).status_code == 404
    assert client.put("/api/v1/worker-tags/bad%20tag", headers=auth).status_code == 422
    r = post_webhook(client, "push", push_payload([sha(4, "w")]), "w-4")
    assert r.json()["run_ids"] == []


def test_old_queued_runs_of_a_tag_without_a_live_worker_expire(client, auth, session,
                                                               settings):
    for tag in ("arm64", "haswell"):
        r = client.post("/api/v1/machines", headers=auth,
                        json={"name": f"w-{tag}", "tag": tag, "fingerprint": {"cpu": tag}})
        assert r.status_code == 201, r.text
    r = client.post("/api/v1/trigger", json={"commits": [sha(5, "w"), sha(6, "w")]},
                    headers=auth)
    assert r.status_code == 202 and len(r.json()["run_ids"]) == 4
    now = utcnow()
    # arm64's worker was last seen 3 h ago; haswell's is live. Both tags' runs are 7 h old.
    session.execute(update(WorkerTag).where(WorkerTag.tag == "arm64")
                    .values(last_seen_at=now - timedelta(hours=3)))
    session.execute(update(Run).values(created_at=now - timedelta(hours=7)))
    session.commit()

    expired = expire_unserved(session, settings.model_copy(
        update={"run_queue_expiry": 6 * 3600.0, "worker_live_seconds": 600.0}))
    arm = _runs(session, "arm64")
    assert sorted(expired) == [r.id for r in arm]
    for run in arm:
        assert (run.status, run.stage) == ("cancelled", "expired")
        assert run.log_tail.startswith("expired: tag arm64: no worker for 3 h; queued "
                                       "longer than 6 h")
        assert run.finished_at is not None
    assert [r.status for r in _runs(session, "haswell")] == ["queued", "queued"]
    pending = session.scalar(select(func.count()).select_from(RunDispatch)
                             .where(RunDispatch.run_id.in_(expired)))
    assert pending == 0  # nothing left to publish for them

    health = client.get("/api/v1/health").json()
    assert health["worker_tags"] == ["tag arm64: no worker for 3 h, 2 runs expired, 0 queued"]
    tags = {t["tag"]: t for t in client.get("/api/v1/worker-tags").json()}
    assert tags["arm64"]["expired_runs"] == 2 and not tags["arm64"]["live"]
    assert tags["haswell"]["live"] and tags["haswell"]["note"] is None
    shown = client.get("/api/v1/runs?tag=arm64").json()["items"]
    assert {(r["status"], r["stage"]) for r in shown} == {("cancelled", "expired")}
    # A second pass finds nothing more; a claim of an expired run's message is refused.
    assert expire_unserved(session, settings.model_copy(
        update={"run_queue_expiry": 6 * 3600.0})) == []
    r = client.post(f"/api/v1/runs/{arm[0].id}/claim", json={"generation": 0}, headers=auth)
    assert r.status_code == 409


def test_expiry_zero_never_expires(session, settings, client, auth):
    assert client.put("/api/v1/worker-tags/ppc", headers=auth).status_code == 200
    client.post("/api/v1/trigger", json={"commits": [sha(7, "w")]}, headers=auth)
    session.execute(update(Run).values(created_at=utcnow() - timedelta(days=30)))
    session.commit()
    assert expire_unserved(session, settings.model_copy(update={"run_queue_expiry": 0})) == []
    assert [r.status for r in _runs(session, "ppc")] == ["queued"]
