"""Runs: creation (queued), worker updates, listing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from basketbench.models import Commit, Machine, Repository, Run
from basketbench.models.base import utcnow
from basketbench.schemas.runs import QueueOut, RunOut, RunUpdate
from basketbench.services.errors import Invalid, NotFound
from basketbench.services.sorting import order_select
from basketbench.services.sqlutil import AnySelect

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
        result_count=run.result_count,
    )


def get_run_out(session: Session, run_id: int) -> RunOut:
    row = session.execute(run_query().where(Run.id == run_id)).first()
    if row is None:
        raise NotFound(f"unknown run {run_id}")
    return to_out(row)


def create_runs(session: Session, commits: list[Commit], tags: list[str], suite: str,
                trigger: str) -> list[Run]:
    runs = [Run(commit_id=c.id, tag=t, suite=suite, trigger=trigger, status="queued")
            for c in commits for t in tags]
    session.add_all(runs)
    session.flush()
    return runs


def update_run(session: Session, run_id: int, update: RunUpdate) -> RunOut:
    run = session.get(Run, run_id)
    if run is None:
        raise NotFound(f"unknown run {run_id}")
    data = update.model_dump(exclude_unset=True)
    if "machine_id" in data and data["machine_id"] is not None \
            and session.get(Machine, data["machine_id"]) is None:
        raise Invalid(f"unknown machine {data['machine_id']}",
                      [{"loc": ["body", "machine_id"], "msg": "unknown machine"}])
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
