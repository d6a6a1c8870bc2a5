"""Candidates awaiting their confirmation reruns: counted per tag for /health, and never
pending forever. A candidate that waited longer than detection_pending_timeout, or
whose tag has had no live worker (no machine heartbeat) for detection_worker_silence,
becomes ``unconfirmed`` with the reason: listed, never alerted, and its queued reruns
are cancelled (a worker that comes back later must not spend hours on them)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Change, Machine, Run
from basketbench.models.base import as_utc, utcnow


def awaiting_by_tag(session: Session) -> dict[str, int]:
    """Speed candidates waiting for reruns, per hardware tag."""
    rows = session.execute(select(Machine.tag, func.count(Change.id))
                           .join(Machine, Machine.id == Change.machine_id)
                           .where(Change.state == "confirming").group_by(Machine.tag))
    return {tag: int(n) for tag, n in rows}


def live_tags(session: Session, since: datetime) -> set[str]:
    return set(session.scalars(select(Machine.tag).distinct()
                               .where(Machine.last_heartbeat >= since)))


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:g} h" if seconds >= 3600 else f"{seconds:g} s"


def expire(session: Session, settings: Settings, now: datetime | None = None) -> list[int]:
    """Mark the candidates waiting too long unconfirmed; returns their ids (committed)."""
    now = now or utcnow()
    timeout = timedelta(seconds=settings.detection_pending_timeout)
    silence = timedelta(seconds=settings.detection_worker_silence)
    rows = session.execute(select(Change, Machine.tag)
                           .join(Machine, Machine.id == Change.machine_id)
                           .where(Change.state == "confirming",
                                  Change.created_at <= now - min(timeout, silence))).all()
    if not rows:
        return []
    live = live_tags(session, now - silence)
    expired: list[Change] = []
    for ch, tag in rows:
        if as_utc(ch.created_at) <= now - timeout:
            ch.state_reason = (f"waited more than {_hours(timeout.total_seconds())} for its "
                               "confirmation reruns (detection_pending_timeout)")
        elif tag not in live:
            what = "confirming A/B was" if (ch.confirmation or {}).get("kind") == "ab" \
                else "reruns were"
            ch.state_reason = (f"no live worker on tag {tag!r}: no machine heartbeat for "
                               f"{_hours(silence.total_seconds())} (detection_worker_silence);"
                               f" its {what} never measured")
        else:
            continue
        ch.state = "unconfirmed"
        expired.append(ch)
    run_ids = {i for ch in expired for i in (ch.confirmation or {}).get("run_ids", [])}
    if run_ids:
        session.execute(update(Run).where(Run.id.in_(run_ids), Run.status == "queued")
                        .values(status="cancelled", finished_at=now)
                        .execution_options(synchronize_session=False))
    session.commit()
    return [ch.id for ch in expired]
