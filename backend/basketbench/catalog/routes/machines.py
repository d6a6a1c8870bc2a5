from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Response
from sqlalchemy import select

from basketbench.catalog import lookup, worker_tags
from basketbench.catalog import machines as service
from basketbench.catalog.schemas import MachineIn, MachineOut, MachinePage, MachineRegistered
from basketbench.catalog.service import machines_out
from basketbench.core import ownership
from basketbench.models import Machine
from basketbench.results import codec_sets as codec_service
from basketbench.schemas.refs import MachineCodecSetOut
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep
from basketbench.web.listing import CSV_RESPONSES, PageParams, fetch_page, page_params, respond

router = APIRouter(prefix="/machines", tags=["machines"])
Pages = Annotated[PageParams, Depends(page_params)]


@router.get("", response_model=MachinePage, responses=CSV_RESPONSES, dependencies=[ReadAccess])
def list_machines(session: SessionDep, page: Pages, tag: str | None = None,
                  name: str | None = None, active: bool | None = None) -> Any:
    stmt = select(Machine).order_by(Machine.tag, Machine.name, Machine.version)
    if tag:
        stmt = stmt.where(Machine.tag == tag)
    if name:
        stmt = stmt.where(Machine.name == name)
    if active is not None:
        stmt = stmt.where(Machine.active.is_(active))
    rows, total = fetch_page(session, stmt, page)
    items = machines_out(session, [r[0] for r in rows])
    return respond(items, total, page, "machines", MachinePage)


@router.get("/{machine_id}", response_model=MachineOut, dependencies=[ReadAccess])
def get_machine(session: SessionDep, machine_id: int) -> MachineOut:
    return machines_out(session, [lookup.get_machine(session, str(machine_id))])[0]


@router.get("/{machine_id}/codec-sets", response_model=list[MachineCodecSetOut],
            dependencies=[ReadAccess])
def get_machine_codec_sets(session: SessionDep, machine_id: int) -> Any:
    """The codec library sets this machine measured with (host, builtin, named sets)."""
    machine = lookup.get_machine(session, str(machine_id))
    return codec_service.machine_codec_sets(session, machine.id)


@router.post("", response_model=MachineRegistered, status_code=201,
             responses={200: {"model": MachineRegistered,
                              "description": "already registered (same fingerprint)"}})
def register_machine(session: SessionDep, token: MachineToken, body: MachineIn,
                     response: Response) -> MachineRegistered:
    ownership.check_tag(token, body.tag)
    machine, created = service.register_machine(
        session, body.name, body.tag, body.fingerprint, body.fingerprint_hash)
    # Registered through the API: a worker (ingest registers machines without this).
    worker_tags.seen(session, machine.tag)
    session.commit()
    if not created:
        response.status_code = 200
    out = machines_out(session, [machine])[0]
    return MachineRegistered(**out.model_dump(), created=created)


@router.post("/{machine_id}/heartbeat", response_model=MachineOut)
def machine_heartbeat(session: SessionDep, token: MachineToken, machine_id: int) -> MachineOut:
    ownership.check_tag(token, lookup.get_machine(session, str(machine_id)).tag)
    return machines_out(session, [service.heartbeat(session, machine_id)])[0]
