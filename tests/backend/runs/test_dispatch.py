"""The run outbox, the claim by generation and the reaper (runs/dispatch.py), on the
session's PostgreSQL database, with a recording publisher in place of the broker."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from basketbench.catalog.machines import register_machine
from basketbench.catalog.worker_tags import seen
from basketbench.core.queue import BrokerUnavailable
from basketbench.models import Run, RunDispatch
from basketbench.models.base import utcnow
from basketbench.runs import dispatch
from bb_factories import post_webhook, push_payload, sha
from sqlalchemy import select


class Broker:
    """Records what would be sent; `down` makes every publish fail like a dead broker."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int, str]] = []
        self.down = False

    def __call__(self, run_id: int, generation: int, tag: str) -> None:
        if self.down:
            raise BrokerUnavailable("ConnectionError: refused")
        self.sent.append((run_id, generation, tag))


def _push(client: Any, session: Any, delivery: str, n: int = 2) -> list[int]:
    register_machine(session, "m1", "haswell", {"cpu": "d"}, "dddd000000000001")
    seen(session, "haswell")  # its worker serves the tag
    session.commit()
    r = post_webhook(client, "push", push_payload([sha(i, delivery) for i in range(n)]),
                     delivery)
    assert r.status_code == 202, r.text
    return list(r.json()["run_ids"])


def test_every_new_run_has_a_pending_outbox_row_until_sent(client, session, settings):
    run_ids = _push(client, session, "d-1")
    rows = session.scalars(select(RunDispatch).where(RunDispatch.run_id.in_(run_ids))).all()
    assert sorted(r.run_id for r in rows) == sorted(run_ids)
    assert all(r.sent_at is None and r.generation == 0 for r in rows)

    broker = Broker()
    broker.down = True
    assert dispatch.dispatch_due(session, settings, broker) == (0, 2)
    session.expire_all()
    rows = session.scalars(select(RunDispatch).where(RunDispatch.run_id.in_(run_ids))).all()
    assert all(r.sent_at is None and r.due_at > utcnow() for r in rows)  # backing off
    assert any(r.tries == 1 and "refused" in (r.last_error or "") for r in rows)

    # Not due yet: nothing is tried. Due again (or re-armed): sent once, in order.
    broker.down = False
    assert dispatch.dispatch_due(session, settings, broker) == (0, 0)
    assert dispatch.rearm(session, run_ids) == 2
    session.commit()
    assert dispatch.dispatch_due(session, settings, broker) == (2, 0)
    assert broker.sent == [(i, 0, "haswell") for i in sorted(run_ids)]
    assert dispatch.dispatch_due(session, settings, broker) == (0, 0)  # never twice


def test_a_webhook_redelivery_makes_pending_runs_due_at_once(client, session, settings):
    run_ids = _push(client, session, "d-2")
    session.execute(RunDispatch.__table__.update().values(due_at=utcnow() + timedelta(hours=1)))
    session.commit()
    broker = Broker()
    assert dispatch.dispatch_due(session, settings, broker) == (0, 0)
    again = post_webhook(client, "push", push_payload([sha(i, "d-2") for i in range(2)]), "d-2")
    assert again.json()["duplicate"] is True and again.json()["run_ids"] == run_ids
    session.expire_all()
    assert dispatch.dispatch_due(session, settings, broker) == (2, 0)


def test_claim_is_exactly_once_and_the_reaper_requeues_a_silent_run(
    client, session, settings, auth
):
    (run_id, _) = _push(client, session, "d-3")
    claim = lambda g: client.post(f"/api/v1/runs/{run_id}/claim",  # noqa: E731
                                  json={"generation": g}, headers=auth)
    first = claim(0)
    assert first.status_code == 200 and first.json()["status"] == "running"
    assert first.json()["attempts"] == 1
    assert claim(0).status_code == 409  # a duplicate message
    assert claim(1).status_code == 409  # a generation that does not exist yet
    assert client.post("/api/v1/runs/999999/claim", json={"generation": 0},
                       headers=auth).status_code == 404

    # A worker update refreshes the heartbeat: not reaped.
    assert client.patch(f"/api/v1/runs/{run_id}", json={}, headers=auth).status_code == 200
    assert dispatch.reap_stale(session, settings) == []

    silent = utcnow() - timedelta(seconds=settings.run_heartbeat_timeout + 1)
    session.execute(Run.__table__.update().where(Run.id == run_id).values(heartbeat_at=silent))
    session.commit()
    assert dispatch.reap_stale(session, settings) == [run_id]
    session.expire_all()
    run = session.get(Run, run_id)
    assert (run.status, run.generation, run.stage) == ("queued", 1, "requeued")
    assert "worker lost" in run.log_tail
    assert claim(0).status_code == 409  # the dead worker's message, redelivered: dropped
    broker = Broker()
    dispatch.dispatch_due(session, settings, broker)
    assert (run_id, 1, "haswell") in broker.sent
    second = claim(1)
    assert second.status_code == 200 and second.json()["attempts"] == 2

    # Lost again and again: failed after run_max_attempts, not requeued forever.
    for _ in range(settings.run_max_attempts):
        session.execute(Run.__table__.update().where(Run.id == run_id)
                        .values(heartbeat_at=silent))
        session.commit()
        dispatch.reap_stale(session, settings)
        session.expire_all()
        run = session.get(Run, run_id)
        if run.status == "failed":
            break
        assert client.post(f"/api/v1/runs/{run_id}/claim", json={"generation": run.generation},
                           headers=auth).status_code == 200
    assert run.status == "failed" and "gave up" in run.log_tail
    assert run.attempts == settings.run_max_attempts
