"""The run outbox, its dispatcher and the reaper of runs whose worker died.

A run is created together with a ``run_dispatches`` row (same transaction), so it is
never lost whatever the broker does. The dispatcher thread publishes due rows and marks
them sent; a broker failure leaves the row pending with a doubling back-off. The reaper
requeues a running run whose heartbeat stopped: it bumps the run's generation and writes
a new outbox row; a worker may only claim a run with the generation its message carries,
so the dead worker's message, redelivered later, is dropped (exactly once).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from datetime import timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from basketbench.catalog.worker_tags import expire_unserved
from basketbench.core.config import Settings
from basketbench.core.queue import BrokerUnavailable, publish
from basketbench.models import Run, RunDispatch
from basketbench.models.base import utcnow

log = logging.getLogger(__name__)

BATCH = 50
# Set by requests that queued runs: the dispatchers of this process look at once.
_wakeup = threading.Event()

Publisher = Callable[[int, int, str], None]


def wake() -> None:
    _wakeup.set()


def add_dispatches(session: Session, runs: Sequence[Run]) -> None:
    """Outbox rows for runs just flushed (call in the transaction that creates them)."""
    now = utcnow()
    session.add_all([RunDispatch(run_id=r.id, generation=r.generation, tag=r.tag,
                                 created_at=now, due_at=now, tries=0) for r in runs])


def rearm(session: Session, run_ids: Sequence[int]) -> int:
    """Make the pending outbox rows of these runs due now (a webhook redelivery)."""
    if not run_ids:
        return 0
    result = session.execute(
        update(RunDispatch)
        .where(RunDispatch.run_id.in_(list(run_ids)), RunDispatch.sent_at.is_(None))
        .values(due_at=utcnow()))
    return int(getattr(result, "rowcount", 0) or 0)


def backoff(tries: int, first: float, ceiling: float) -> float:
    return float(min(ceiling, first * 2 ** max(tries - 1, 0)))


def dispatch_due(session: Session, settings: Settings, send: Publisher) -> tuple[int, int]:
    """One pass: publish every due row (locked, so two API processes never send one row
    twice). Stops at the first broker failure: the broker is down for the rest too.
    Returns (sent, failed)."""
    now = utcnow()
    rows = list(session.scalars(
        select(RunDispatch)
        .where(RunDispatch.sent_at.is_(None), RunDispatch.due_at <= now)
        .order_by(RunDispatch.due_at, RunDispatch.id)
        .limit(BATCH)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)))
    sent = failed = 0
    for row in rows:
        run = session.get(Run, row.run_id, populate_existing=True)
        if run is None or run.status != "queued" or run.generation != row.generation:
            row.sent_at = now  # obsolete: the run moved on (cancelled, or requeued again)
            row.last_error = "obsolete"
            continue
        try:
            send(row.run_id, row.generation, row.tag)
        except BrokerUnavailable as exc:
            failed = len(rows) - sent
            row.tries += 1
            row.last_error = str(exc)[:1000]
            delay = timedelta(seconds=backoff(row.tries, settings.dispatch_backoff_min,
                                               settings.dispatch_backoff_max))
            # Every row waits: one failed publish is enough to know the broker is away.
            for other in rows[rows.index(row):]:
                if other.sent_at is None:
                    other.due_at = utcnow() + delay
            log.warning("broker unavailable, %d run(s) stay in the outbox (retry in %s): %s",
                        failed, delay, exc)
            break
        row.sent_at = utcnow()
        row.tries += 1
        row.last_error = None
        sent += 1
    session.commit()
    return sent, failed


def reap_stale(session: Session, settings: Settings) -> list[int]:
    """Requeue (new generation, new outbox row) or fail the running runs whose heartbeat
    stopped. Returns their ids."""
    cutoff = utcnow() - timedelta(seconds=settings.run_heartbeat_timeout)
    stale = list(session.scalars(
        select(Run).where(
            Run.status == "running",
            or_(Run.heartbeat_at < cutoff,
                and_(Run.heartbeat_at.is_(None), Run.started_at < cutoff)))
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)))
    for run in stale:
        note = (f"worker lost: no heartbeat for {settings.run_heartbeat_timeout:.0f} s "
                f"(attempt {run.attempts})")
        if run.attempts >= settings.run_max_attempts:
            run.status, run.stage, run.finished_at = "failed", "failed", utcnow()
            run.log_tail = f"{note}; gave up after {run.attempts} attempts\n"
            log.warning("run %s: %s; failed", run.id, note)
            continue
        run.status, run.stage, run.progress = "queued", "requeued", 0.0
        run.generation += 1
        run.log_tail = note + "; requeued\n"
        session.flush()
        add_dispatches(session, [run])
        log.warning("run %s: %s; requeued as generation %s", run.id, note, run.generation)
    session.commit()
    return [r.id for r in stale]


class Dispatcher(threading.Thread):
    """Background thread of the API process: outbox passes and reaping. Survives any
    database or broker outage (it logs and tries again on the next pass)."""

    def __init__(self, factory: sessionmaker[Session], settings: Settings,
                 send: Publisher | None = None, reap: bool = True) -> None:
        super().__init__(name="basketbench-dispatcher", daemon=True)
        self.factory = factory
        self.settings = settings
        self.send: Publisher = send or (lambda r, g, t: publish(r, g, t, settings))
        self.reap = reap
        self._stop_event = threading.Event()

    def run(self) -> None:
        next_reap = 0.0
        while not self._stop_event.is_set():
            _wakeup.clear()  # a wake during the pass below makes the wait return at once
            try:
                with self.factory() as session:
                    dispatch_due(session, self.settings, self.send)
                if self.reap and time.monotonic() >= next_reap:
                    next_reap = time.monotonic() + self.settings.reap_interval
                    with self.factory() as session:
                        expire_unserved(session, self.settings)
                        if reap_stale(session, self.settings):
                            continue  # send the requeued runs now
            except Exception as exc:  # database unavailable: try again on the next pass
                log.warning("dispatcher pass failed: %s", str(exc).splitlines()[0][:300])
            _wakeup.wait(self.settings.dispatch_interval)

    def stop(self) -> None:
        self._stop_event.set()
        _wakeup.set()
