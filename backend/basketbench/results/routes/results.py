"""/results: stored results (list, listing.py) and ingest (harness JSON, ingest.py;
Google Benchmark JSON, gbench.py)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, Depends, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from basketbench.catalog.routes.lookup import ConfigFilterDep
from basketbench.changes.detection.queue import drain_machine
from basketbench.core.config import Settings
from basketbench.results import ingest, listing
from basketbench.results.gbench import gbench_batch
from basketbench.results.schemas import IngestOut, ResultOut, ResultPage
from basketbench.web import guards
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, SettingsDep
from basketbench.web.listing import (
    CSV_RESPONSES,
    PageParams,
    fetch_page,
    page_params,
    respond,
    stream_csv,
)

router = APIRouter(prefix="/results", tags=["results"])
Pages = Annotated[PageParams, Depends(page_params)]

@router.get("", response_model=ResultPage, responses=CSV_RESPONSES, dependencies=[ReadAccess])
def list_results(
    request: Request, session: SessionDep, page: Pages, f: ConfigFilterDep,
    run: int | None = None, commit: str | None = None, machine: str | None = None,
    tag: str | None = None, dataset: str | None = None, configuration: int | None = None,
    codec_set: Annotated[str | None, Query(
        max_length=100, description="only results measured with this codec set "
        "(host, builtin, root-6.40.00, ...)")] = None,
    root_version: Annotated[str | None, Query(
        max_length=50, description="only results measured with this ROOT release, "
        "e.g. 6.40.00")] = None,
) -> Any:
    """Each item says what measured it (`provenance`): codec set and measured library
    versions, ROOT release or commit, build profile, harness version and hash, machine
    version."""
    stmt = listing.results_query(session, f, run, commit, machine, tag, dataset, configuration,
                                 codec_set, root_version)
    if page.csv:
        return stream_csv(request.app.state.sessionmaker, stmt, page, listing.result_out,
                          ResultOut, "results")
    count = listing.count_results(session, f, run, commit, machine, tag, dataset, configuration,
                                  codec_set, root_version)
    rows, total = fetch_page(session, stmt, page, count)
    return respond([listing.result_out(r) for r in rows], total, page, "results", ResultPage)


async def _json_body(request: Request) -> Any:
    # The size limit is enforced while reading (guards.GuardMiddleware).
    return guards.loads(await request.body())


def _target(commit: str | None, machine: str | None, tag: str | None, run_id: int | None,
            repository: str | None) -> ingest.Target:
    return ingest.Target(commit=commit, machine=machine, tag=tag, run_id=run_id,
                         repository=repository)


def _detect_after(request: Request, settings: Settings, background: BackgroundTasks,
                  out: IngestOut) -> None:
    """Change detection of a stored document, after the answer (detection/queue.py)."""
    if settings.detection:
        background.add_task(drain_machine, request.app.state.sessionmaker, settings,
                            out.machine_id)


_INGEST_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": IngestOut, "description": "duplicate: this document was already stored"},
}


@router.post("", response_model=IngestOut, status_code=201, responses=_INGEST_RESPONSES,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"type": "object", "additionalProperties": True}}}}})
async def ingest_results(
    request: Request, response: Response, session: SessionDep, settings: SettingsDep,
    token: MachineToken, background: BackgroundTasks, commit: str | None = None,
    machine: str | None = None,
    tag: str | None = None, run_id: int | None = None, repository: str | None = None,
) -> IngestOut:
    doc = await _json_body(request)
    # The work is synchronous (SQL, validation): keep it off the event loop.
    out = await run_in_threadpool(ingest.ingest_harness, session, settings, doc,
                                  _target(commit, machine, tag, run_id, repository), token)
    if out.duplicate:
        response.status_code = 200
    else:
        _detect_after(request, settings, background, out)
    return out


@router.post("/gbench", response_model=IngestOut, status_code=201, responses=_INGEST_RESPONSES,
             openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
                 "schema": {"type": "object", "additionalProperties": True}}}}})
async def ingest_gbench(
    request: Request, response: Response, session: SessionDep, settings: SettingsDep,
    token: MachineToken, background: BackgroundTasks,
    commit: Annotated[str | None, Query()] = None,
    machine: str | None = None, tag: str | None = None, run_id: int | None = None,
    repository: str | None = None,
    dataset: Annotated[str | None, Query(description="dataset name (default: gbench)")] = None,
) -> IngestOut:
    doc = await _json_body(request)
    batch, _skipped = gbench_batch(doc, _target(commit, machine, tag, run_id, repository),
                                   dataset)
    out = await run_in_threadpool(ingest.store_batch, session, settings, batch, token)
    if out.duplicate:
        response.status_code = 200
    else:
        _detect_after(request, settings, background, out)
    return out
