"""Which hardware tags get runs, and what happens to runs nobody serves.

A tag is a worker tag when a worker was seen serving it (machine registration through
the API, machine heartbeat, run claim) or when an operator declared it. Ingest registers
machines too, but those are not workers: their tags get no runs.

- New commits (webhook, a trigger without tags) get runs only for tags served within
  ``worker_tag_ttl`` or declared by an operator (``serving_tags``).
- The reaper expires queued runs older than ``run_queue_expiry`` of a tag whose worker
  was not seen within ``worker_live_seconds``: cancelled, stage ``expired``, the reason
  in the log; their outbox rows are dropped (a message already in the broker is refused
  at claim, 409). ``/health`` and ``GET /worker-tags`` say so per tag.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.core.errors import NotFound
from basketbench.models import Run, RunDispatch, WorkerTag
from basketbench.models.base import as_utc, utcnow
from basketbench.schemas.refs import WorkerTagOut

log = logging.getLogger(__name__)


def _insert(session: Session) -> Any:
    module: Any = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    return module.insert(WorkerTag)


def seen(session: Session, tag: str) -> None:
    """A worker serves ``tag`` now (an upsert; the caller commits)."""
    now = utcnow()
    session.execute(_insert(session).values(tag=tag, operator=False, last_seen_at=now,
                                            created_at=now, expired_runs=0)
                    .on_conflict_do_update(index_elements=["tag"],
                                           set_={"last_seen_at": now}))


def declare(session: Session, tag: str) -> WorkerTag:
    """An operator declares ``tag`` served (runs are created for it from now on)."""
    session.execute(_insert(session).values(tag=tag, operator=True, created_at=utcnow(),
                                            expired_runs=0)
                    .on_conflict_do_update(index_elements=["tag"], set_={"operator": True}))
    session.commit()
    row = session.get(WorkerTag, tag, populate_existing=True)
    assert row is not None
    return row


def undeclare(session: Session, tag: str) -> None:
    row = session.get(WorkerTag, tag)
    if row is None:
        raise NotFound(f"unknown worker tag {tag!r}")
    row.operator = False
    session.commit()


def serving_tags(session: Session, settings: Settings) -> list[str]:
    """The tags new commits get runs for."""
    since = utcnow() - timedelta(seconds=settings.worker_tag_ttl)
    return list(session.scalars(
        select(WorkerTag.tag).where(or_(WorkerTag.operator.is_(True),
                                        WorkerTag.last_seen_at >= since))
        .order_by(WorkerTag.tag)))


def _live(row: WorkerTag | None, settings: Settings, now: datetime) -> bool:
    return bool(row and row.last_seen_at and as_utc(row.last_seen_at)
                >= now - timedelta(seconds=settings.worker_live_seconds))


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.0f} h" if seconds >= 3600 else f"{seconds / 60:.0f} min"


def expire_unserved(session: Session, settings: Settings) -> list[int]:
    """Expire the queued runs older than run_queue_expiry whose tag has no live worker.
    Returns their ids; commits."""
    if settings.run_queue_expiry <= 0:
        return []
    now = utcnow()
    old = now - timedelta(seconds=settings.run_queue_expiry)
    candidates = dict(session.execute(
        select(Run.tag, func.count()).where(Run.status == "queued", Run.created_at < old)
        .group_by(Run.tag)).all())
    if not candidates:
        return []
    tags = {t.tag: t for t in session.scalars(
        select(WorkerTag).where(WorkerTag.tag.in_(candidates)))}
    expired: list[int] = []
    for tag in sorted(candidates):
        row = tags.get(tag)
        if _live(row, settings, now):
            continue
        since = (f"no worker for {_hours((now - as_utc(row.last_seen_at)).total_seconds())}"
                 if row is not None and row.last_seen_at is not None
                 else "no worker has ever served it")
        reason = (f"expired: tag {tag}: {since}; queued longer than "
                  f"{_hours(settings.run_queue_expiry)} (BASKETBENCH_RUN_QUEUE_EXPIRY)\n")
        ids = list(session.scalars(
            update(Run).where(Run.tag == tag, Run.status == "queued", Run.created_at < old)
            .values(status="cancelled", stage="expired", finished_at=now, log_tail=reason)
            .returning(Run.id)))
        if not ids:
            continue
        session.execute(delete(RunDispatch).where(RunDispatch.run_id.in_(ids),
                                                  RunDispatch.sent_at.is_(None)))
        if row is None:
            session.execute(_insert(session).values(
                tag=tag, operator=False, created_at=now, expired_runs=0)
                .on_conflict_do_nothing())
        session.execute(update(WorkerTag).where(WorkerTag.tag == tag).values(
            expired_runs=WorkerTag.expired_runs + len(ids), last_expired_at=now))
        log.warning("tag %s: %s; %d queued run(s) expired", tag, since, len(ids))
        expired += ids
    session.commit()
    return expired


def tag_states(session: Session, settings: Settings) -> list[WorkerTagOut]:
    """Every known worker tag (and every tag with queued runs) with its liveness, queued
    runs and expired runs, and a one-line note when something is wrong."""
    now = utcnow()
    rows = {t.tag: t for t in session.scalars(select(WorkerTag))}
    queued = dict(session.execute(
        select(Run.tag, func.count()).where(Run.status == "queued").group_by(Run.tag)).all())
    serving = set(serving_tags(session, settings))
    out = []
    for tag in sorted(set(rows) | set(queued)):
        row = rows.get(tag)
        live = _live(row, settings, now)
        seen_at = as_utc(row.last_seen_at) if row and row.last_seen_at else None
        n_expired = row.expired_runs if row else 0
        note = None
        if not live and (n_expired or queued.get(tag)):
            idle = (f"no worker for {_hours((now - seen_at).total_seconds())}" if seen_at
                    else "no worker seen")
            note = f"tag {tag}: {idle}, {n_expired} runs expired, {queued.get(tag, 0)} queued"
        out.append(WorkerTagOut(
            tag=tag, operator=bool(row and row.operator), live=live, last_seen_at=seen_at,
            gets_runs=tag in serving, queued=int(queued.get(tag, 0)),
            expired_runs=n_expired,
            last_expired_at=row.last_expired_at if row else None, note=note))
    return out
