"""The rerun budget of a hardware tag (the rule: stats/budget.py): confirmation reruns
are machine hours, so a tag spends at most ``detection_rerun_budget`` reruns per commit
its regular runs measured, over a window of ``detection_budget_commits`` such commits (a
young history's window counts as full: the budget is a rate, not a debt), and a quarter
of it is kept for strong evidence. Candidates beyond it are left ``unconfirmed`` with the
reason."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from basketbench.changes.detection.common import RERUN_TRIGGERS
from basketbench.core.config import Settings
from basketbench.models import Change, Machine, ResultDocument, Run
from basketbench.stats.budget import BudgetRule, strong

DOCUMENTS_PER_COMMIT = 20  # documents read per commit of the window, at most


def rule(settings: Settings) -> BudgetRule:
    return BudgetRule(per_commit=settings.detection_rerun_budget,
                      window=max(1, settings.detection_budget_commits),
                      round_cost=2 * max(settings.detection_confirm_runs, 1))


def spent(session: Session, settings: Settings, tag: str) -> int:
    """Confirmation reruns the tag queued since the oldest commit of its window (all of
    them while the window is not full)."""
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
    stmt = select(func.count()).select_from(Run).where(Run.tag == tag, Run.trigger == "confirm")
    if since is not None and len(commits) >= window:
        stmt = stmt.where(Run.created_at >= since)
    return int(session.scalar(stmt) or 0)


def is_strong(settings: Settings, group: list[Change]) -> bool:
    """A candidate group with evidence that would pass the final decision as it stands."""
    q = settings.detection_fdr
    return any(strong(ch.q_value if ch.q_value is not None else ch.p_value,
                      (ch.delta_pct or 0) / 100,
                      ch.min_effect_pct or settings.detection_default_min_effect, q,
                      revert=ch.test == "revert")
               for ch in group)


def grants(session: Session, settings: Settings, tag: str, group: list[Change],
           already: int | None = None) -> bool:
    """Whether one more round of reruns for ``group`` fits the tag's budget."""
    used = spent(session, settings, tag) if already is None else already
    return rule(settings).grants(used, is_strong(settings, group))


def reason(settings: Settings, tag: str) -> str:
    return (f"the rerun budget of tag {tag!r} is spent: at most "
            f"{settings.detection_rerun_budget:g} confirmation reruns per measured commit "
            f"over a window of {settings.detection_budget_commits} commits, a quarter of it "
            "kept for strong evidence (detection_rerun_budget)")
