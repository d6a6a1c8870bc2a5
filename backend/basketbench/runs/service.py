"""Runs: creation (queued), worker updates, listing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from basketbench.core import ownership
from basketbench.core.errors import Conflict, Invalid, NotFound
from basketbench.core.sorting import order_select
from basketbench.core.sqlutil import AnySelect
from basketbench.models import ApiToken, Commit, Machine, Repository, ResultDocument, Run
from basketbench.models.base import utcnow
from basketbench.results import codec_sets as codec_service
from basketbench.runs.schemas import QueueOut, RunClaim, RunOut, RunUpdate
from basketbench.schemas.refs import CodecSetOut

FINAL = {"succeeded", "failed", "cancelled"}


def run_query() -> AnySelect:
    return (
        select(Run, Commit.sha, Repository.name, Machine.name)
        .join(Commit, Commit.id == Run.commit_id)
        .join(Repository, Repository.id == Commit.repository_id)
        .outerjoin(Machine, Machine.id == Run.machine_id)
    )


SORT_COLUMNS: dict[str, Any] = {
    "id": Run.id, "created_at": Run.created_at, "status": Run.status, "stage": Run.stage,
    "tag": Run.tag, "machine": Machine.name, "commit": Commit.sha, "progress": Run.progress,
    "trigger": Run.trigger, "suite": Run.suite, "result_count": Run.result_count,
}
SORT_HELP = f"one of {', '.join(SORT_COLUMNS)}; '-' prefix for descending (default -id)"


def sort_runs(stmt: AnySelect, sort: str | None) -> AnySelect:
    return order_select(stmt, sort, SORT_COLUMNS, "-id", Run.id)


def queues(session: Session) -> list[QueueOut]:
    counts: dict[str, dict[str, int]] = {}
    for tag, status, n in session.execute(
        select(Run.tag, Run.status, func.count()).group_by(Run.tag, Run.status)
    ):
        counts.setdefault(tag, {})[status] = int(n)
    running = session.execute(
        run_query().where(Run.status == "running").order_by(Run.id)).all()
    by_tag: dict[str, list[RunOut]] = {}
    for row in running:
        out = to_out(row)
        by_tag.setdefault(out.tag, []).append(out)
    return [QueueOut(tag=tag, counts=c, running=by_tag.get(tag, []))
            for tag, c in sorted(counts.items())]


def to_out(row: Any) -> RunOut:
    run, sha, repo, machine = row
    return RunOut(
        id=run.id, commit=sha, repository=repo, tag=run.tag, machine=machine,
        machine_id=run.machine_id, suite=run.suite, status=run.status, stage=run.stage,
        progress=run.progress, trigger=run.trigger, attempts=run.attempts,
        created_at=run.created_at, started_at=run.started_at, finished_at=run.finished_at,
        timings=run.timings or {}, log_tail=run.log_tail, build_cache_hit=run.build_cache_hit,
        result_count=run.result_count, codecs=run.codecs,
    )


def get_run_out(session: Session, run_id: int) -> RunOut:
    row = session.execute(run_query().where(Run.id == run_id)).first()
    if row is None:
        raise NotFound(f"unknown run {run_id}")
    return with_codec_sets(session, [to_out(row)])[0]


def with_codec_sets(session: Session, outs: list[RunOut]) -> list[RunOut]:
    """Fill each run's codec_set from its result document (one query per page)."""
    rows = session.execute(select(ResultDocument.run_id, ResultDocument.codec_set_id).where(
        ResultDocument.run_id.in_([o.id for o in outs]),
        ResultDocument.codec_set_id.isnot(None))).all()
    by_run = {run_id: set_id for run_id, set_id in rows}
    sets = codec_service.describe(session, {s for s in by_run.values() if s is not None})
    for out in outs:
        set_id = by_run.get(out.id)
        found = sets.get(set_id) if set_id is not None else None
        out.codec_set = CodecSetOut(**found) if found else None
    return outs


def create_runs(session: Session, commits: list[Commit], tags: list[str], suite: str,
                trigger: str, codecs: str | None = None) -> list[Run]:
    runs = [Run(commit_id=c.id, tag=t, suite=suite, trigger=trigger, status="queued",
                codecs=codecs)
            for c in commits for t in tags]
    session.add_all(runs)
    session.flush()
    # The outbox row commits with the run: whatever the broker does, the run gets sent.
    from basketbench.runs.dispatch import add_dispatches

    add_dispatches(session, runs)
    session.flush()
    return runs


def update_run(session: Session, run_id: int, update: RunUpdate,
               token: ApiToken | None = None) -> RunOut:
    run = session.get(Run, run_id)
    if run is None:
        raise NotFound(f"unknown run {run_id}")
    if token is not None:
        ownership.check_updater(token, run)
    data = update.model_dump(exclude_unset=True)
    if "machine_id" in data and data["machine_id"] is not None \
            and session.get(Machine, data["machine_id"]) is None:
        raise Invalid(f"unknown machine {data['machine_id']}",
                      [{"loc": ["body", "machine_id"], "msg": "unknown machine"}])
    run.heartbeat_at = utcnow()  # any worker update proves its worker alive
    status = data.get("status")
    if status == "running" and run.status != "running":
        run.started_at = data.pop("started_at", None) or utcnow()
        if "attempts" not in data:
            run.attempts += 1
    if status in FINAL and run.finished_at is None:
        run.finished_at = data.pop("finished_at", None) or utcnow()
        if status == "succeeded" and "progress" not in data:
            run.progress = 1.0
    if status == "queued":
        run.finished_at = None
    for key, value in data.items():
        if key == "timings" and value is not None:
            run.timings = {**(run.timings or {}), **value}
        elif key == "log_tail" and value is not None:
            run.log_tail = value[-20000:]  # a tail, not a log store
        else:
            setattr(run, key, value)
    session.commit()
    return get_run_out(session, run_id)


def claim_run(session: Session, run_id: int, claim: RunClaim,
              token: ApiToken | None = None) -> RunOut:
    """A worker takes the queued run for the generation its message carries, atomically:
    one message wins, every other gets 409 (a duplicate, or a dead worker's message
    redelivered by Redis). Only the reaper (runs/dispatch.py) puts a running run back
    to queued, with a new generation, so a run is never taken twice."""
    if claim.machine_id is not None and session.get(Machine, claim.machine_id) is None:
        raise Invalid(f"unknown machine {claim.machine_id}",
                      [{"loc": ["body", "machine_id"], "msg": "unknown machine"}])
    if token is not None:
        tag = session.scalar(select(Run.tag).where(Run.id == run_id))
        if tag is not None:
            ownership.check_tag(token, tag)
    now = utcnow()
    values: dict[str, Any] = {
        "status": "running", "stage": "checkout", "progress": 0.0, "heartbeat_at": now,
        "started_at": now, "finished_at": None, "attempts": Run.attempts + 1,
        "claimed_by_token_id": token.id if token is not None else None,
    }
    if claim.machine_id is not None:
        values["machine_id"] = claim.machine_id
    taken = session.execute(
        update(Run)
        .where(Run.id == run_id, Run.generation == claim.generation, Run.status == "queued")
        .values(**values)
        .execution_options(synchronize_session=False))
    if getattr(taken, "rowcount", 0):
        from basketbench.catalog.worker_tags import seen

        seen(session, str(session.scalar(select(Run.tag).where(Run.id == run_id))))
    session.commit()
    if not getattr(taken, "rowcount", 0):
        run = session.get(Run, run_id)
        if run is None:
            raise NotFound(f"unknown run {run_id}")
        raise Conflict(f"run {run_id} is {run.status} at generation {run.generation}: "
                       f"the message for generation {claim.generation} is stale")
    return get_run_out(session, run_id)
