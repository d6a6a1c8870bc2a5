"""Worker tags: which hardware tags get runs (catalog/worker_tags.py)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Response

from basketbench.catalog import worker_tags as service
from basketbench.schemas.refs import WorkerTagOut
from basketbench.web.deps import AdminToken, ReadAccess, SessionDep, SettingsDep

router = APIRouter(prefix="/worker-tags", tags=["runs"])
TagPath = Annotated[str, Path(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$")]


@router.get("", response_model=list[WorkerTagOut], dependencies=[ReadAccess])
def list_worker_tags(session: SessionDep, settings: SettingsDep) -> list[WorkerTagOut]:
    """Every tag a worker served or an operator declared, and every tag with queued runs:
    live or not, whether new commits get runs for it, queued and expired runs."""
    return service.tag_states(session, settings)


@router.put("/{tag}", response_model=WorkerTagOut)
def declare_worker_tag(session: SessionDep, settings: SettingsDep, _token: AdminToken,
                       tag: TagPath) -> WorkerTagOut:
    """Declare a tag served: new commits get runs for it even before a worker is seen."""
    service.declare(session, tag)
    return next(t for t in service.tag_states(session, settings) if t.tag == tag)


@router.delete("/{tag}", status_code=204, response_class=Response)
def undeclare_worker_tag(session: SessionDep, _token: AdminToken, tag: TagPath) -> Response:
    """Withdraw an operator's declaration (a worker seeing the tag still counts)."""
    service.undeclare(session, tag)
    return Response(status_code=204)
