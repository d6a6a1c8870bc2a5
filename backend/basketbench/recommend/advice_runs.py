"""Advise runs: `basketbench advise` on a file already under a worker's data root.

An advise run is an ordinary run (suite "advise": queued, dispatched, claimed, its stage and
progress reported like any other) plus a row of `advice_runs` with the file's path, relative
to the worker's data root, and the advice document the worker uploads. The run is recorded
against the tracker's newest commit (runs belong to a commit); the worker measures with its
own default rzbench. The worker checks again that the path stays inside its data root."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core import ownership
from basketbench.core.errors import Invalid, NotFound
from basketbench.models import AdviceRun, ApiToken, Commit, Run
from basketbench.runs import dispatch
from basketbench.runs.service import create_runs

SUITE = "advise"


def check_path(path: str) -> str:
    """A relative path without '..': the data root's files only (a message naming `path`)."""
    p = PurePosixPath(path)
    if not path.strip() or p.is_absolute() or ".." in p.parts or "\\" in path or "\0" in path:
        raise Invalid(f"path {path!r}: give a file's path relative to the worker's data root, "
                      "without '..'", [{"loc": ["body", "path"], "msg": "not a relative path"}])
    return str(p)


def create(session: Session, tag: str, path: str, who: str) -> Run:
    rel = check_path(path)
    commit = session.scalar(select(Commit).order_by(Commit.id.desc()).limit(1))
    if commit is None:
        raise Invalid("no commit is known yet: an advise run is recorded against the newest one")
    run = create_runs(session, [commit], [tag], SUITE, f"advise:{who}")[0]
    session.add(AdviceRun(run_id=run.id, path=rel))
    session.commit()
    dispatch.wake()
    return run


def _advice(session: Session, run_id: int) -> AdviceRun:
    found = session.get(AdviceRun, run_id)
    if found is None:
        raise NotFound(f"run {run_id} is not an advise run")
    return found


def listing(session: Session, limit: int) -> list[dict[str, Any]]:
    rows = session.execute(
        select(Run, AdviceRun.path, AdviceRun.document.isnot(None))
        .join(AdviceRun, AdviceRun.run_id == Run.id)
        .order_by(Run.id.desc()).limit(limit)).all()
    return [
        {"run_id": run.id, "tag": run.tag, "path": path, "status": run.status,
         "stage": run.stage, "progress": run.progress, "created_at": run.created_at,
         "finished_at": run.finished_at, "has_document": bool(has_doc),
         "reason": failure_reason(run)}
        for run, path, has_doc in rows
    ]


def failure_reason(run: Run) -> str | None:
    """The first line of a failed or cancelled run's log ("stage advise failed: ...")."""
    if run.status not in ("failed", "cancelled") or not run.log_tail:
        return None
    lines = [ln.strip() for ln in run.log_tail.splitlines() if ln.strip()]
    return lines[0][:500] if lines else None


def path_of(session: Session, run_id: int) -> str:
    return _advice(session, run_id).path


def document(session: Session, run_id: int) -> dict[str, Any]:
    doc = _advice(session, run_id).document
    if doc is None:
        raise NotFound(f"advise run {run_id} has no advice yet")
    return doc


def store(session: Session, run_id: int, doc: dict[str, Any], token: ApiToken) -> None:
    """The worker that claimed the run stores its advice (a document already checked
    complete by the route's schema, AdviceDocumentIn)."""
    found = _advice(session, run_id)
    run = session.get(Run, run_id)
    assert run is not None  # advice_runs.run_id references runs.id
    ownership.check_claimer(token, run)
    found.document = doc
    session.commit()
