"""Outgoing webhook in the Slack / Mattermost incoming-webhook format ({"text": ...},
markdown links)."""

from __future__ import annotations

from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Commit, Machine
from basketbench.services.notify.delivery import record, send
from basketbench.services.notify.summary import Summary


def payload(summary: Summary) -> dict[str, Any]:
    lines = [f"*{summary.headline()}*",
             f"<{summary.commit_url}|{summary.repository}@{summary.commit[:12]}> · "
             f"<{summary.changes_url}|all changes of this commit>"]
    for r in summary.rows[:15]:
        kind = "regression" if r.direction == "regression" else "improvement"
        lines.append(f"• {kind} {r.delta_pct:+.2f} % {r.metric} — {r.series} "
                     f"(<{r.plot_url}|history>)")
    if len(summary.rows) > 15:
        lines.append(f"… and {len(summary.rows) - 15} more")
    return {"username": "basketbench", "text": "\n".join(lines)}


def deliver(session: Session, settings: Settings, summary: Summary) -> bool:
    url = settings.notify_webhook_url
    assert url
    body = payload(summary)
    with httpx.Client(timeout=10) as client:
        result = send(client, "POST", url, json=body, attempts=settings.notify_attempts,
                      max_wait=settings.notify_max_wait)
    commit_id, machine_id = _ids(session, summary)
    record(session, channel="webhook", target=url, commit_id=commit_id, machine_id=machine_id,
           change_ids=[r.change_id for r in summary.rows], payload=body, result=result)
    return result.ok


def _ids(session: Session, summary: Summary) -> tuple[int, int | None]:
    from basketbench.models import Repository

    commit_id = session.scalar(select(Commit.id).join(Repository).where(
        Commit.sha == summary.commit, Repository.name == summary.repository))
    machine_id = session.scalar(select(Machine.id).where(Machine.name == summary.machine,
                                                         Machine.tag == summary.tag)
                                .order_by(Machine.version.desc()).limit(1))
    assert commit_id is not None
    return int(commit_id), machine_id
