"""/arena-runs (upload, a machine's token) and /arena (the latest board per file and
machine, one row's history over ROOT commits): docs/API.md, "Codec arena"."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.concurrency import run_in_threadpool

from basketbench.arena import ingest, service
from basketbench.arena.schemas import ArenaBoardsOut, ArenaHistoryOut, ArenaStored
from basketbench.web import guards
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, SettingsDep

router = APIRouter(tags=["arena"], dependencies=[ReadAccess])
upload_router = APIRouter(tags=["arena"])

_INGEST_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {"model": ArenaStored, "description": "duplicate: this document was already stored"},
}
Family = Literal["zlib", "zstd", "lz4", "lzma"]


@upload_router.post(
    "/arena-runs", response_model=ArenaStored, status_code=201, responses=_INGEST_RESPONSES,
    openapi_extra={"requestBody": {"required": True, "content": {"application/json": {
        "schema": {"type": "object", "additionalProperties": True}}}}})
async def upload_arena_run(request: Request, response: Response, session: SessionDep,
                           settings: SettingsDep, token: MachineToken) -> ArenaStored:
    """Store one codec arena measurement: `{machine_id, commit?, repository?, run_id?,
    document}`, the document being `basketbench-arena-v1` (`basketbench arena FILE.root
    --json`). `commit`: the commit whose build was ROOT's reference layer (none: the host's
    layer). 422 with every reason when anything is off (nothing stored); the same document
    again from the same machine answers 200 with the stored run."""
    # A token limited to other hardware tags than the machine's: 403 (docs/API.md, scopes).
    body = guards.loads(await request.body())
    out = await run_in_threadpool(ingest.ingest, session, settings, body, token)
    if out.duplicate:
        response.status_code = 200
    return out


@router.get("/arena", response_model=ArenaBoardsOut)
def get_arena(
    session: SessionDep,
    file: Annotated[str | None, Query(min_length=1, max_length=300,
                                      description="only this file (its name)")] = None,
    machine: Annotated[str | None, Query(min_length=1, max_length=200,
                                         description="machine id or name")] = None,
    family: Annotated[Family | None, Query(description="only candidates of this codec "
                                           "family")] = None,
    shapes: Annotated[bool, Query(description="also the rows per data shape")] = False,
    results: Annotated[bool, Query(description="false: only the runs (which files and "
                                   "machines have a board)")] = True,
    limit: Annotated[int, Query(ge=1, le=100, description="at most this many (file, "
                                "machine) boards")] = 20,
) -> ArenaBoardsOut:
    """The newest arena run of each (file, machine): "what would switching ROOT's X to Y
    do?" per candidate and level, with the exact size change, the interleaved speed ratios
    candidate / ROOT (median and interval; > 1: the candidate is faster), instructions per
    MB, whether ROOT can read the output, and the ZSTD / LZ4 level mapping."""
    return service.boards(session, file=file, machine=machine, family=family, shapes=shapes,
                          with_results=results, limit=limit)


@router.get("/arena/history", response_model=ArenaHistoryOut)
def get_arena_history(
    session: SessionDep,
    file: Annotated[str, Query(min_length=1, max_length=300, description="the file's name")],
    machine: Annotated[str, Query(min_length=1, max_length=200,
                                  description="machine id or name")],
    candidate: Annotated[str, Query(min_length=1, max_length=100,
                                    description="zlib-ng, libdeflate, zstd, lz4-ctx, ...")],
    level: Annotated[int, Query(ge=-(2**17), le=100, description="the candidate's native "
                                "level")],
    reference_setting: Annotated[int, Query(ge=100, le=599, description="ROOT's setting "
                                            "it is compared with (101, 505, ...)")],
    view: Annotated[Literal["candidate", "shape", "mapping"], Query(
        description="the whole file, one data shape, or the level mapping")] = "candidate",
    shape: Annotated[str | None, Query(min_length=1, max_length=100,
                                       description="the data shape (view=shape)")] = None,
    limit: Annotated[int, Query(ge=1, le=2000, description="the newest this many runs")] = 200,
) -> ArenaHistoryOut:
    """One candidate and level against one ROOT setting, over the ROOT commits whose build
    was the reference (oldest first): size change and speed ratios as ROOT and the
    libraries move."""
    return service.history(session, file=file, machine=machine, candidate=candidate,
                           level=level, reference_setting=reference_setting, view=view,
                           shape=shape, limit=limit)
