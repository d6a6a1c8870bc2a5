"""Telling people about confirmed changes: an outgoing Slack/Mattermost-compatible
webhook and, with a GitHub token, a commit status plus a comment on the commit's pull
requests. Every delivery is recorded (notification_deliveries)."""

from __future__ import annotations

import logging
from collections import defaultdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, Repository
from basketbench.models.base import utcnow
from basketbench.services.notify import github, webhook
from basketbench.services.notify.summary import summarise

log = logging.getLogger(__name__)


def notify_changes(session: Session, settings: Settings, change_ids: list[int]) -> None:
    """One message per (commit, machine) group of confirmed changes; never raises."""
    changes = list(session.scalars(select(Change).where(
        Change.id.in_(change_ids), Change.state == "confirmed").order_by(Change.id)))
    groups: dict[tuple[int, int], list[Change]] = defaultdict(list)
    for ch in changes:
        groups[(ch.commit_id, ch.machine_id)].append(ch)
    for (commit_id, machine_id), group in groups.items():
        commit = session.get(Commit, commit_id)
        machine = session.get(Machine, machine_id)
        assert commit is not None and machine is not None
        repo = session.get(Repository, commit.repository_id)
        assert repo is not None
        summary = summarise(session, settings, repo, commit, machine, group)
        try:
            if settings.notify_webhook_url:
                webhook.deliver(session, settings, summary)
            if settings.github_token:
                github.deliver(session, settings, summary)
        except Exception:
            log.exception("notifying commit %s failed", commit.sha)
        for ch in group:
            ch.notified_at = utcnow()
        session.commit()
