"""Screening again the commits measured after a decided speed change."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from basketbench.changes.detection.common import RERUN_TRIGGERS
from basketbench.models import Change, Commit, PendingDetection, ResultDocument, Run
from basketbench.models.base import utcnow


def row(document_id: int, machine_id: int, commit_id: int,
         run_id: int | None) -> PendingDetection:
    now = utcnow()
    return PendingDetection(document_id=document_id, machine_id=machine_id,
                            commit_id=commit_id, run_id=run_id, created_at=now, due_at=now,
                            tries=0)


RESCREEN_COMMITS = 20


def rescreen_newer(session: Session, decided: Sequence[int]) -> int:
    """Queue again the commits measured after decided speed changes. While a change was
    being confirmed, it split its series (service.segment_start), so the commits after it
    were screened against the few points since it, often too few for any test: a step
    among them went unseen. Now that the change is decided, screen them against the
    series as it stands (at most RESCREEN_COMMITS, oldest first). Returns how many."""
    oldest: dict[tuple[int, int], int] = {}  # (machine, repository) -> git order
    for machine_id, repository_id, order in session.execute(
            select(Change.machine_id, Commit.repository_id, Commit.order)
            .join(Commit, Commit.id == Change.commit_id)
            .where(Change.id.in_(list(decided)), Change.kind == "speed")):
        key = (machine_id, repository_id)
        oldest[key] = min(order, oldest.get(key, order))
    queued = 0
    for (machine_id, repository_id), order in oldest.items():
        rows = session.execute(
            select(ResultDocument.id, ResultDocument.commit_id, ResultDocument.run_id)
            .join(Commit, Commit.id == ResultDocument.commit_id)
            .outerjoin(Run, Run.id == ResultDocument.run_id)
            .where(ResultDocument.machine_id == machine_id,
                   Commit.repository_id == repository_id, Commit.order > order,
                   or_(Run.id.is_(None), Run.trigger.not_in(RERUN_TRIGGERS)))
            .order_by(Commit.order, ResultDocument.id).limit(RESCREEN_COMMITS * 50)).all()
        waiting = set(session.scalars(select(PendingDetection.commit_id)
                                      .where(PendingDetection.machine_id == machine_id)))
        commits: dict[int, tuple[int, int | None]] = {}  # commit -> (a document, its run)
        for document_id, commit_id, run_id in rows:
            if len(commits) >= RESCREEN_COMMITS and commit_id not in commits:
                break
            commits.setdefault(commit_id, (document_id, run_id))
        for commit_id, (document_id, run_id) in commits.items():
            if commit_id in waiting:  # screened soon anyway
                continue
            session.add(row(document_id, machine_id, commit_id, run_id))
            queued += 1
    try:
        session.commit()
    except IntegrityError:  # another process queued one of them meanwhile: it is queued
        session.rollback()
        return 0
    return queued
