from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request

from basketbench.catalog.service import runs_filter
from basketbench.changes.detection import exclusions
from basketbench.changes.detection.service import run_after_final
from basketbench.runs import causes as run_causes
from basketbench.runs import service
from basketbench.runs.schemas import QueueOut, RunClaim, RunOut, RunPage, RunUpdate
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, SettingsDep
from basketbench.web.listing import CSV_RESPONSES, PageParams, fetch_page, page_params, respond

router = APIRouter(prefix="/runs", tags=["runs"])
Pages = Annotated[PageParams, Depends(page_params)]


@router.get("", response_model=RunPage, responses=CSV_RESPONSES, dependencies=[ReadAccess])
def list_runs(session: SessionDep, settings: SettingsDep, page: Pages, status: str | None = None,
              stage: str | None = None, tag: str | None = None, machine: str | None = None,
              commit: str | None = None,
              sort: Annotated[str | None, Query(description=service.SORT_HELP)] = None) -> Any:
    stmt = runs_filter(service.run_query(), session, status, stage, tag, machine, commit)
    stmt = service.sort_runs(stmt, sort)
    rows, total = fetch_page(session, stmt, page)
    outs = service.with_codec_sets(session, [service.to_out(r) for r in rows])
    outs = run_causes.with_causes(session, outs)
    excluded = exclusions.of_runs(session, settings, [o.id for o in outs])
    for out in outs:
        out.speed_excluded = excluded.get(out.id)
    return respond(outs, total, page, "runs", RunPage)


@router.get("/queues", response_model=list[QueueOut], dependencies=[ReadAccess])
def run_queues(session: SessionDep) -> list[QueueOut]:
    """Per hardware tag: how many runs are queued, running, failed... over all runs, with
    the running ones (their stage and progress)."""
    return service.queues(session)


@router.get("/{run_id}", response_model=RunOut, dependencies=[ReadAccess])
def get_run(session: SessionDep, run_id: int) -> RunOut:
    return service.get_run_out(session, run_id)


@router.patch("/{run_id}", response_model=RunOut)
def update_run(request: Request, session: SessionDep, settings: SettingsDep, token: MachineToken,
               run_id: int, body: RunUpdate, background: BackgroundTasks) -> RunOut:
    out = service.update_run(session, run_id, body, token)
    if out.status in ("failed", "cancelled") and out.trigger in ("confirm", "bisect"):
        # a confirmation or bisection run that brought nothing still ends its step
        background.add_task(run_after_final, request.app.state.sessionmaker, settings, run_id)
    return out


@router.post("/{run_id}/claim", response_model=RunOut,
             responses={409: {"description": "the run is not claimable at this generation"}})
def claim_run(session: SessionDep, token: MachineToken, run_id: int, body: RunClaim) -> RunOut:
    """Exactly once: the worker that got a run's task message takes the run before it
    starts; 409 means the message is stale and must be dropped."""
    return service.claim_run(session, run_id, body, token)
