"""Queued interleaved A/Bs: "measure commit B against commit A on a worker of this tag".

An A/B request is an ordinary run (commit = side B: queued, dispatched to the tag, claimed,
its stage and progress reported like any other) whose suite names side A,
"ab:<reference sha>" -- what the worker's A/B stage executes (workers/.../pipeline/ab_run.py:
it builds both commits, runs `basketbench ab` and uploads the document to POST /ab-runs
with this run's id, reference kind "commit", origin "compare") -- plus a row of
ab_requests with the pair, the machine asked for and who asked, so the compare page finds
the request of its pair. The ab_runs row whose run_id is the run is the answer, and compare
shows its effects as the evidence of its speed rows (analysis/compare/evidence.py).

``queue`` is also the hand-off for detection's confirming A/Bs (reference kind parent or
previous, origin pipeline)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, aliased

from basketbench.catalog.lookup import get_commit, get_machine, get_repository
from basketbench.core.errors import Invalid, NotFound
from basketbench.models import AbRequest, AbRun, Commit, Machine, Run
from basketbench.runs import dispatch
from basketbench.runs.ab_schemas import AbRequestIn, AbRequestOut
from basketbench.runs.service import create_runs

# The worker reads side A from the suite: "ab:" + the reference commit's full sha.
SUITE_PREFIX = "ab:"
PENDING = ("queued", "running")


def request(session: Session, body: AbRequestIn, who: str) -> AbRequestOut:
    """Queue the A/B ``body`` asks for, or answer the one of this pair already pending on
    the tag (a second click queues nothing)."""
    repo_id = (get_repository(session, body.repository).id
               if body.repository is not None else None)
    base = get_commit(session, body.base_commit, repo_id)
    head = get_commit(session, body.head_commit, repo_id)
    if base.id == head.id:
        raise Invalid("an A/B needs two different commits",
                      [{"loc": ["body", "head_commit"], "msg": "same commit as base_commit"}])
    machine = get_machine(session, body.machine) if body.machine is not None else None
    tag = machine.tag if machine is not None else str(body.tag)
    pending = session.scalar(
        select(Run.id).join(AbRequest, AbRequest.run_id == Run.id)
        .where(Run.tag == tag, Run.status.in_(PENDING), AbRequest.commit_id == head.id,
               AbRequest.reference_commit_id == base.id)
        .order_by(Run.id.desc()).limit(1))
    if pending is not None:
        return get(session, pending).model_copy(update={"duplicate": True})
    run = queue(session, tag, machine, head, base, "commit", "compare", who)
    session.commit()
    dispatch.wake()
    return get(session, run.id)


def trigger_of(who: str) -> str:
    """The trigger of the runs ``queue`` makes for ``who``."""
    return f"ab:{who}"[:50]


def queue(session: Session, tag: str, machine: Machine | None, commit: Commit,
          reference: Commit, reference_kind: str, origin: str, who: str) -> Run:
    """The run and its request, in the caller's transaction (the dispatch outbox row
    commits with them)."""
    run = create_runs(session, [commit], [tag], SUITE_PREFIX + reference.sha,
                      trigger_of(who))[0]
    session.add(AbRequest(run_id=run.id, commit_id=commit.id, reference_commit_id=reference.id,
                          reference_kind=reference_kind, origin=origin,
                          machine_id=machine.id if machine is not None else None,
                          requested_by=who[:200]))
    session.flush()
    return run


def _query() -> Any:
    b, a = aliased(Commit), aliased(Commit)
    asked, measured = aliased(Machine), aliased(Machine)
    return (select(Run, AbRequest, b.sha, a.sha, asked.name, AbRun.id, measured.name)
            .join(AbRequest, AbRequest.run_id == Run.id)
            .join(b, b.id == AbRequest.commit_id)
            .join(a, a.id == AbRequest.reference_commit_id)
            .outerjoin(asked, asked.id == AbRequest.machine_id)
            .outerjoin(AbRun, AbRun.run_id == Run.id)
            .outerjoin(measured, measured.id == AbRun.machine_id))


def _out(row: Any) -> AbRequestOut:
    run, req, head, base, asked, ab_run_id, measured_on = row
    return AbRequestOut(
        run_id=run.id, tag=run.tag, machine=asked, commit=head, reference_commit=base,
        reference_kind=req.reference_kind, origin=req.origin, requested_by=req.requested_by,
        status=run.status, stage=run.stage, progress=run.progress, created_at=run.created_at,
        finished_at=run.finished_at, ab_run_id=ab_run_id, measured_on=measured_on)


def get(session: Session, run_id: int) -> AbRequestOut:
    row = session.execute(_query().where(Run.id == run_id).order_by(AbRun.id.desc())
                          .limit(1)).first()
    if row is None:
        raise NotFound(f"run {run_id} is not an A/B request")
    return _out(row)


def listing(session: Session, machine: str | None, base_commit: str | None,
            head_commit: str | None, limit: int) -> list[AbRequestOut]:
    """The newest requests, of one machine's tag and one pair of commits if given (the
    compare page asks for its pair: is one pending, has one landed)."""
    stmt = _query()
    if machine is not None:
        stmt = stmt.where(Run.tag == get_machine(session, machine).tag)
    if base_commit is not None:
        stmt = stmt.where(AbRequest.reference_commit_id == get_commit(session, base_commit).id)
    if head_commit is not None:
        stmt = stmt.where(AbRequest.commit_id == get_commit(session, head_commit).id)
    rows = session.execute(stmt.order_by(Run.id.desc(), AbRun.id.desc()).limit(limit)).all()
    return [_out(r) for r in rows]
