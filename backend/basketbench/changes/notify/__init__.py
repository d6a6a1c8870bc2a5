"""Telling people about confirmed changes: an outgoing Slack/Mattermost-compatible
webhook and, with a GitHub token, a commit status plus a comment on the commit's pull
requests.

Durable: ``enqueue`` writes each delivery as a pending notification_deliveries row in
the transaction that confirms its changes (an outbox); the notification dispatcher of
every API process (``dispatcher.NotifyDispatcher``) claims due rows, sends them, retries
them with back-off and records every attempt. A restart resumes the retries; two API
processes never send one row twice."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.changes.notify import github, webhook
from basketbench.changes.notify.dispatcher import wake
from basketbench.changes.notify.summary import summarise
from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, NotificationDelivery, Repository
from basketbench.models.base import utcnow

__all__ = ["enqueue", "wake"]


def enabled(settings: Settings) -> bool:
    return bool(settings.notify_webhook_url or settings.github_token)


def enqueue(session: Session, settings: Settings, change_ids: list[int]) -> int:
    """Pending deliveries about these confirmed changes, one set per (commit, machine).
    Call in the transaction that confirms them, and ``wake()`` after its commit.
    Returns the number of rows written."""
    if not change_ids or not enabled(settings):
        return 0
    changes = list(session.scalars(select(Change).where(
        Change.id.in_(change_ids), Change.state == "confirmed").order_by(Change.id)))
    groups: dict[tuple[int, int], list[Change]] = defaultdict(list)
    for ch in changes:
        groups[(ch.commit_id, ch.machine_id)].append(ch)
    now = utcnow()
    written = 0
    for (commit_id, machine_id), group in groups.items():
        commit = session.get(Commit, commit_id)
        machine = session.get(Machine, machine_id)
        assert commit is not None and machine is not None
        repo = session.get(Repository, commit.repository_id)
        assert repo is not None
        summary = summarise(session, settings, repo, commit, machine, group)
        if not summary.rows:  # only speed shifts without evidence: no verdict to tell
            continue
        rows = []
        if settings.notify_webhook_url:
            rows.append(("webhook", settings.notify_webhook_url, webhook.payload(summary)))
        if settings.github_token:
            rows += github.deliveries(settings, summary)
        ids = [r.change_id for r in summary.rows]
        for channel, target, payload in rows:
            session.add(NotificationDelivery(
                commit_id=commit_id, machine_id=machine_id, channel=channel,
                target=target[:1000], status="pending", attempts=0, change_ids=ids,
                payload=payload, created_at=now, due_at=now, attempt_log=[]))
            written += 1
    session.flush()
    return written
