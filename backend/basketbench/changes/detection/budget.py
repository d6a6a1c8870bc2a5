"""The rerun budget of a hardware tag: confirmation reruns are machine hours, so a tag
spends at most ``detection_rerun_budget`` reruns per commit its regular runs measured,
over its last ``detection_budget_commits`` such commits (at least one round of reruns,
so that a young history can confirm its first change). Candidates beyond it are left
``unconfirmed`` with the reason."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from basketbench.changes.detection.common import RERUN_TRIGGERS
from basketbench.core.config import Settings
from basketbench.models import Machine, ResultDocument, Run

DOCUMENTS_PER_COMMIT = 20  # documents read per commit of the window, at most


def remaining(session: Session, settings: Settings, tag: str) -> int:
    """Reruns the tag may still queue now."""
    window = max(1, settings.detection_budget_commits)
    rows = session.execute(
        select(ResultDocument.commit_id, ResultDocument.received_at)
        .join(Machine, Machine.id == ResultDocument.machine_id)
        .outerjoin(Run, Run.id == ResultDocument.run_id)
        .where(Machine.tag == tag, or_(Run.id.is_(None), Run.trigger.not_in(RERUN_TRIGGERS)))
        .order_by(ResultDocument.id.desc()).limit(window * DOCUMENTS_PER_COMMIT)).all()
    commits: set[int] = set()
    since = None
    for commit_id, received_at in rows:
        if commit_id not in commits and len(commits) >= window:
            break
        commits.add(commit_id)
        since = received_at
    if since is None:
        return 0
    spent = int(session.scalar(select(func.count()).select_from(Run).where(
        Run.tag == tag, Run.trigger == "confirm", Run.created_at >= since)) or 0)
    one_round = 4 * max(settings.detection_confirm_runs, 1)
    allowed = max(int(settings.detection_rerun_budget * len(commits)), one_round)
    return allowed - spent


def reason(settings: Settings, tag: str) -> str:
    return (f"the rerun budget of tag {tag!r} is spent: at most "
            f"{settings.detection_rerun_budget:g} confirmation reruns per measured commit "
            f"over its last {settings.detection_budget_commits} commits "
            "(detection_rerun_budget)")
