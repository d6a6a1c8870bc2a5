"""Advise runs: `basketbench advise` on a file under a worker's data root, from the dashboard."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Path, Query

from basketbench.recommend import advice_runs as service
from basketbench.recommend.schemas import (
    AdviceDocument,
    AdviceDocumentIn,
    AdvicePathOut,
    AdviseIn,
    AdviseRunOut,
    AdviseRunsOut,
)
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep, UserToken

RunId = Annotated[int, Path(ge=1, le=2**31 - 1)]

router = APIRouter(prefix="/advise", tags=["recommend"])


@router.post("", response_model=AdviseRunOut, status_code=201)
def post_advise(session: SessionDep, token: UserToken, body: AdviseIn) -> Any:
    """Queue `advise` on `path` (relative to the data root of a worker of `tag`)."""
    run = service.create(session, body.tag, body.path, token.name)
    return next(r for r in service.listing(session, 1) if r["run_id"] == run.id)


@router.get("", response_model=AdviseRunsOut, dependencies=[ReadAccess])
def list_advise(session: SessionDep,
                limit: Annotated[int, Query(ge=1, le=500)] = 50) -> Any:
    """The newest advise runs, with their status, progress and whether advice is stored."""
    return {"items": service.listing(session, limit)}


@router.get("/{run_id}", response_model=AdviceDocument, dependencies=[ReadAccess])
def get_advice(session: SessionDep, run_id: RunId) -> Any:
    """The advice document (what `basketbench advise --json` writes)."""
    return service.document(session, run_id)


@router.get("/{run_id}/path", response_model=AdvicePathOut, dependencies=[ReadAccess])
def get_advice_path(session: SessionDep, run_id: RunId) -> Any:
    """For the worker: which file to advise on."""
    return {"run_id": run_id, "path": service.path_of(session, run_id)}


@router.put("/{run_id}", status_code=204)
def put_advice(session: SessionDep, token: MachineToken, run_id: RunId,
               document: Annotated[AdviceDocumentIn, Body()]) -> None:
    """The worker that claimed the run stores its advice document: a complete one (what
    `advise --json` writes), from the claiming token only (403 from another, 409 before
    the run is claimed)."""
    service.store(session, run_id, document.model_dump(mode="json"), token)
