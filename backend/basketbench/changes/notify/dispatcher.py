"""The notification dispatcher: a thread of the API process that sends the pending
notification_deliveries rows (the outbox written by ``notify.enqueue``).

One row at a time: claim it (SELECT ... FOR UPDATE SKIP LOCKED, then a lease and a
bumped ``claims`` counter, committed), send one HTTP request with a bounded timeout
outside any transaction, then record the attempt only if the claim is still ours. A
failed attempt makes the row due again after the server's wait or a doubling back-off;
after ``notify_attempts`` attempts, or a final answer, it is failed. A process killed
while it holds a row only delays it: the lease runs out and another dispatcher (or
the restarted one) takes it over. The dispatcher wakes when a request wrote rows, when
the next row is due, and at least every ``dispatch_interval`` seconds.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from datetime import datetime, timedelta

import httpx
from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session, sessionmaker

from basketbench.changes.notify import github
from basketbench.changes.notify.delivery import Attempt, attempt
from basketbench.core.config import Settings
from basketbench.models import Change, NotificationDelivery
from basketbench.models.base import as_utc, utcnow

log = logging.getLogger(__name__)

HTTP_TIMEOUT = 10.0  # seconds per request (connect, read, write); capped at half the lease
SENDER = f"{socket.gethostname()}:{os.getpid()}"  # which API process made an attempt
_wakeup = threading.Event()


def wake() -> None:
    """Rows were written: look at once (the dispatcher of this process)."""
    _wakeup.set()


def claim_next(session: Session, settings: Settings) -> tuple[int, int] | None:
    """Claim the most overdue pending row nobody holds: (id, claims) or None."""
    now = utcnow()
    row = session.scalars(
        select(NotificationDelivery)
        .where(NotificationDelivery.status == "pending", NotificationDelivery.due_at <= now,
               or_(NotificationDelivery.lease_until.is_(None),
                   NotificationDelivery.lease_until < now))
        .order_by(NotificationDelivery.due_at, NotificationDelivery.id)
        .limit(1)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)).first()
    if row is None:
        session.rollback()
        return None
    row.claims += 1
    row.lease_until = now + timedelta(seconds=settings.notify_lease)
    claimed = (row.id, row.claims)
    session.commit()
    return claimed


def request(settings: Settings, channel: str, target: str, payload: dict[str, object],
            attempts_before: int) -> Attempt:
    """One HTTP attempt of a row."""
    extra: dict[str, str] = {}
    if channel.startswith("github"):
        if not settings.github_token:
            return Attempt(False, None, "no GitHub token configured (BASKETBENCH_GITHUB_TOKEN)")
        extra = github.headers(settings)
    method, body = ("GET", None) if channel == "github-pulls" else ("POST", payload)
    backoff = settings.notify_backoff_min * 2 ** attempts_before
    timeout = min(HTTP_TIMEOUT, settings.notify_lease / 2)
    with httpx.Client(timeout=timeout, headers=extra) as client:
        return attempt(client, method, target, json=body, backoff=backoff,
                       max_wait=settings.notify_max_wait)


def record(session: Session, settings: Settings, row: NotificationDelivery,
           result: Attempt) -> None:
    """The attempt's outcome on the row (and what a success implies), in the caller's
    transaction."""
    now = utcnow()
    row.attempts += 1
    row.response_code, row.error = result.code, result.error
    row.lease_until = None
    retry = (not result.ok and result.retry_in is not None
             and row.attempts < settings.notify_attempts)
    row.attempt_log = [*(row.attempt_log or []), {
        "at": now.isoformat(), "code": result.code, "error": result.error,
        "retry_in": result.retry_in if retry else None, "by": SENDER}]
    if result.ok:
        row.status, row.sent_at, row.due_at = "sent", now, None
        session.execute(update(Change).where(Change.id.in_(row.change_ids or []),
                                             Change.notified_at.is_(None))
                        .values(notified_at=now))
        if row.channel == "github-pulls":
            for target, payload in github.comments(result.body, row.payload):
                session.add(NotificationDelivery(
                    commit_id=row.commit_id, machine_id=row.machine_id,
                    channel="github-comment", target=target[:1000], status="pending",
                    attempts=0, change_ids=list(row.change_ids or []), payload=payload,
                    created_at=now, due_at=now, attempt_log=[]))
    elif retry:
        assert result.retry_in is not None
        row.due_at = now + timedelta(seconds=result.retry_in)
    else:
        row.status, row.due_at = "failed", None


def send_one(factory: sessionmaker[Session], settings: Settings, row_id: int,
             claims: int) -> bool:
    """Send a claimed row once and record it. False when the claim was lost meanwhile
    (the attempt is then not recorded: its new holder sends it)."""
    with factory() as session:
        row = session.get(NotificationDelivery, row_id)
        if row is None:
            return False
        channel, target, payload = row.channel, row.target, dict(row.payload or {})
        attempts_before = row.attempts
    result = request(settings, channel, target, payload, attempts_before)
    with factory() as session:
        row = session.scalars(select(NotificationDelivery)
                              .where(NotificationDelivery.id == row_id)
                              .with_for_update()
                              .execution_options(populate_existing=True)).first()
        if row is None or row.claims != claims or row.status != "pending":
            log.warning("delivery %s: claim %s lost while sending (%s)", row_id, claims,
                        "sent" if result.ok else result.error)
            return False
        record(session, settings, row, result)
        session.commit()
    if not result.ok:
        log.info("delivery %s (%s) attempt failed: %s", row_id, channel, result.error)
    return True


def next_wake(session: Session) -> datetime | None:
    """When a pending row is next due or its lease runs out."""
    rows = session.execute(
        select(NotificationDelivery.due_at, NotificationDelivery.lease_until)
        .where(NotificationDelivery.status == "pending")
        .order_by(NotificationDelivery.due_at).limit(100)).all()
    times = [max(as_utc(due), as_utc(lease)) if lease is not None else as_utc(due)
             for due, lease in rows if due is not None]
    return min(times, default=None)


def run_pass(factory: sessionmaker[Session], settings: Settings,
             stop: threading.Event | None = None) -> int:
    """Send every due row; returns how many attempts were made."""
    made = 0
    while stop is None or not stop.is_set():
        with factory() as session:
            claimed = claim_next(session, settings)
        if claimed is None:
            return made
        send_one(factory, settings, *claimed)
        made += 1
    return made


class NotifyDispatcher(threading.Thread):
    """Background thread of the API process; survives database and network outages
    (it logs and tries again on the next pass)."""

    def __init__(self, factory: sessionmaker[Session], settings: Settings) -> None:
        super().__init__(name="basketbench-notify", daemon=True)
        self.factory = factory
        self.settings = settings
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            _wakeup.clear()  # a wake during the pass makes the wait below return at once
            wait = self.settings.dispatch_interval
            try:
                run_pass(self.factory, self.settings, self._stop_event)
                with self.factory() as session:
                    due = next_wake(session)
                if due is not None:
                    wait = min(wait, max(0.05, (due - utcnow()).total_seconds()))
            except Exception as exc:  # database unavailable: try again on the next pass
                log.warning("notification pass failed: %s", str(exc).splitlines()[0][:300])
            _wakeup.wait(wait)

    def stop(self, timeout: float = HTTP_TIMEOUT + 5) -> None:
        self._stop_event.set()
        _wakeup.set()
        if self.is_alive():
            self.join(timeout)
