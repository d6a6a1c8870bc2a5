"""Why a rerun exists: the changes a confirmation run was queued for (change detection
reruns a suspect commit and its parent, trigger "confirm"), so the runs page can link them."""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, aliased

from basketbench.models import Change, Commit
from basketbench.runs.schemas import RunOut


def with_causes(session: Session, outs: list[RunOut]) -> list[RunOut]:
    """Fill ``change_ids`` and ``change_commit`` of the page's confirmation runs (one query:
    the changes at or just after their commits, matched by the run ids they recorded)."""
    wanted = {o.id: o for o in outs if o.trigger == "confirm"}
    if not wanted:
        return outs
    shas = {o.commit for o in wanted.values()}
    ids = select(Commit.id).where(Commit.sha.in_(shas))
    suspect = aliased(Commit)
    rows = session.execute(
        select(Change.id, Change.confirmation, suspect.sha)
        .join(suspect, suspect.id == Change.commit_id)
        .where(or_(Change.commit_id.in_(ids), Change.parent_commit_id.in_(ids))))
    found: dict[int, list[int]] = defaultdict(list)
    commit_of: dict[int, str] = {}
    for change_id, confirmation, sha in rows:
        for run_id in (confirmation or {}).get("run_ids", []):
            if run_id in wanted:
                found[run_id].append(change_id)
                commit_of[run_id] = sha
    for run_id, out in wanted.items():
        out.change_ids = sorted(found.get(run_id, []))
        out.change_commit = commit_of.get(run_id)
    return outs
