"""The detection outbox and the passes that drain it.

Ingest writes a ``detection_queue`` row with each document (same transaction). After its
answer the request drains its machine's queue, if no other pass of that machine is
running: passes of one machine are serialised by an advisory lock (service.lock_machine),
and a request that finds the lock taken leaves its row to the pass holding it instead of
waiting for it with a database connection (which emptied the pool under 4 parallel
uploads: 503s for ingest and lost detection passes). The sweeper thread of every API
process picks up rows nobody drained: a request that found the lock taken just as its
holder finished, an API killed after its answer, a pass that failed (retried with
back-off, given up after DETECTION_MAX_TRIES).

One pass covers every queued document of one machine, commit and run: a commit's
documents arriving together are screened once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import timedelta

from sqlalchemy import delete, func, select, text
from sqlalchemy.orm import Session, sessionmaker

from basketbench.changes.detection import pending as candidates
from basketbench.changes.detection.rescreen import rescreen_newer
from basketbench.changes.detection.rescreen import row as _row
from basketbench.changes.detection.service import DETECTION_LOCK, after_ingest, follow_up
from basketbench.core.config import Settings
from basketbench.models import PendingDetection, ResultDocument
from basketbench.models.base import utcnow
from basketbench.runs.dispatch import backoff

log = logging.getLogger(__name__)

DETECTION_MAX_TRIES = 5
# The sweeper leaves rows younger than this to the request that wrote them.
SWEEP_AFTER_SECONDS = 1.0


def enqueue(session: Session, document: ResultDocument) -> None:
    """The outbox row of a document just flushed (call in the ingest's transaction)."""
    session.add(_row(document.id, document.machine_id, document.commit_id, document.run_id))


def try_lock_machine(session: Session, machine_id: int) -> bool:
    """The machine's detection lock until this transaction ends, if nobody holds it."""
    if session.get_bind().dialect.name != "postgresql":
        return True  # SQLite (the laptop mode) has one writer at a time anyway
    return bool(session.scalar(text("SELECT pg_try_advisory_xact_lock(:k, :m)"),
                               {"k": DETECTION_LOCK, "m": machine_id}))


def _next_group(session: Session, machine_id: int) -> list[PendingDetection]:
    """The oldest due row of the machine and every due row of its commit and run."""
    due = (PendingDetection.machine_id == machine_id, PendingDetection.due_at <= utcnow())
    first = session.scalar(select(PendingDetection).where(*due)
                           .order_by(PendingDetection.id).limit(1))
    if first is None:
        return []
    return list(session.scalars(
        select(PendingDetection)
        .where(*due, PendingDetection.commit_id == first.commit_id,
               PendingDetection.run_id.is_not_distinct_from(first.run_id))
        .order_by(PendingDetection.id)))


def drain_machine(factory: sessionmaker[Session], settings: Settings, machine_id: int) -> int:
    """Run the machine's queued passes while its lock is free; never raises. Returns the
    number of passes run (0: nothing due, or another pass holds the machine)."""
    passes = 0
    while True:
        try:
            with factory() as session:
                if not try_lock_machine(session, machine_id):
                    return passes
                group = _next_group(session, machine_id)
                if not group:
                    session.commit()
                    return passes
                ids = [row.id for row in group]
                session.execute(delete(PendingDetection).where(PendingDetection.id.in_(ids)))
                try:
                    # commits the pass and the deletion together
                    out = after_ingest(session, settings, group[0].document_id)
                    session.commit()
                except Exception as exc:
                    session.rollback()
                    _defer(session, settings, ids, exc)
                    continue
                passes += 1
                follow_up(session, settings, out)
                if out.confirmed or out.rejected:
                    rescreen_newer(session, out.confirmed + out.rejected)
        except Exception as exc:  # the database went away: the sweeper retries later
            log.warning("detection pass of machine %s not run: %s", machine_id,
                        str(exc).splitlines()[0][:300])
            return passes


def _defer(session: Session, settings: Settings, ids: Sequence[int], exc: Exception) -> None:
    """Back off (or give up on) a group whose pass failed; the rows stay for the record."""
    rows = list(session.scalars(select(PendingDetection).where(PendingDetection.id.in_(ids))))
    for row in rows:
        row.tries += 1
        row.last_error = f"{type(exc).__name__}: {exc}"[:1000]
        row.due_at = (None if row.tries >= DETECTION_MAX_TRIES else utcnow() + timedelta(
            seconds=backoff(row.tries, settings.dispatch_backoff_min,
                            settings.dispatch_backoff_max)))
    session.commit()
    log.exception("change detection of document(s) %s failed (try %s)",
                  [r.document_id for r in rows], rows[0].tries if rows else "?",
                  exc_info=exc)


def pending(session: Session) -> int:
    """Documents waiting for detection (given-up rows not counted)."""
    return int(session.scalar(select(func.count()).select_from(PendingDetection)
                              .where(PendingDetection.due_at.is_not(None))) or 0)


def sweep(factory: sessionmaker[Session], settings: Settings) -> int:
    """Drain every machine with rows left behind (older than SWEEP_AFTER_SECONDS), and
    mark candidates that wait for reruns too long unconfirmed (candidates.expire)."""
    cutoff = utcnow() - timedelta(seconds=SWEEP_AFTER_SECONDS)
    with factory() as session:
        expired = candidates.expire(session, settings)
        if expired:
            log.info("change candidates %s left unconfirmed: their reruns never came",
                     expired)
        machines = list(session.scalars(
            select(PendingDetection.machine_id).distinct()
            .where(PendingDetection.due_at <= utcnow(), PendingDetection.created_at <= cutoff)))
    return sum(drain_machine(factory, settings, m) for m in machines)


class DetectionSweeper(threading.Thread):
    """Background thread of the API process: drains what requests left in the queue.
    Survives any database outage (it logs and tries again on the next pass)."""

    def __init__(self, factory: sessionmaker[Session], settings: Settings) -> None:
        super().__init__(name="basketbench-detection", daemon=True)
        self.factory = factory
        self.settings = settings
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.settings.dispatch_interval):
            try:
                sweep(self.factory, self.settings)
            except Exception as exc:
                log.warning("detection sweep failed: %s", str(exc).splitlines()[0][:300])

    def stop(self) -> None:
        self._stop_event.set()

