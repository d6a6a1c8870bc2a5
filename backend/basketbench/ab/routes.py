"""/ab-runs: upload of interleaved A/B comparisons (a worker's A/B stage) and their listing."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from basketbench.ab import ingest, listing
from basketbench.ab.schemas import AbIngestOut, AbRunPage
from basketbench.changes.detection.service import run_after_ab
from basketbench.web import guards
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, SettingsDep

router = APIRouter(prefix="/ab-runs", tags=["ab"])

_INGEST_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": AbIngestOut, "description": "duplicate: this upload was already stored"},
}


@router.post("", response_model=AbIngestOut, status_code=201, responses=_INGEST_RESPONSES,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"type": "object", "additionalProperties": True}}}}})
async def upload_ab_run(request: Request, response: Response, session: SessionDep,
                        settings: SettingsDep, token: MachineToken,
                        background: BackgroundTasks) -> AbIngestOut:
    """Store one interleaved A/B comparison: `{machine_id, commit, reference: {kind, commit,
    label}, origin, run_id?, repository?, codecs?, document}`, the document being
    `basketbench-ab-v1`. 422 with every reason when anything is off (nothing stored); the
    same upload again answers 200 with the stored run."""
    body = guards.loads(await request.body())
    out = await run_in_threadpool(ingest.ingest, session, settings, body, token)
    if out.duplicate:
        response.status_code = 200
    elif settings.detection:
        # after the answer: it confirms the changes waiting for it, or screens its commit
        background.add_task(run_after_ab, request.app.state.sessionmaker, settings,
                            out.ab_run_id)
    return out


@router.get("", response_model=AbRunPage, dependencies=[ReadAccess])
def list_ab_runs(
    session: SessionDep,
    machine: Annotated[str | None, Query(max_length=200,
                                         description="machine id or name")] = None,
    commit: Annotated[str | None, Query(max_length=40, description="side B's commit (sha "
                                        "or unique prefix)")] = None,
    reference: Annotated[str | None, Query(max_length=40, description="side A's commit")] = None,
    origin: Annotated[str | None, Query(
        pattern="^(pipeline|compare)$",
        description="pipeline (measured with each commit) or compare (asked for)")] = None,
    run: Annotated[int | None, Query(ge=1, description="the run that measured it")] = None,
    limit: Annotated[int, Query(ge=1, le=200, description="page size")] = 50,
    offset: Annotated[int, Query(ge=0, description="rows skipped")] = 0,
) -> AbRunPage:
    """A/B comparisons, newest first, each with its effects per (dataset, setting, metric):
    ratio = median of the per-pair speed ratios B/A (> 1: B faster), its interval, the pairs
    behind it and the per-pair ratios themselves."""
    return listing.list_ab_runs(session, machine, commit, reference, origin, run, limit,
                                offset)
