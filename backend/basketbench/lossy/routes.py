"""Lossy float sweeps: upload (a token), the size-against-error view of one sweep, a series'
history over commits (docs/lossy.md)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query

from basketbench.lossy import service
from basketbench.lossy.schemas import (
    LossyColumnsOut,
    LossyHistoryOut,
    LossyStored,
    LossySweepsOut,
    LossyUpload,
)
from basketbench.web.deps import MachineToken, ReadAccess, SessionDep

router = APIRouter(tags=["lossy"], dependencies=[ReadAccess])
upload_router = APIRouter(tags=["lossy"])

Setting = Annotated[int, Query(ge=100, le=509, description="compression setting, "
                                "algorithm * 100 + level")]


@upload_router.post("/lossy-sweeps", response_model=LossyStored, status_code=201)
def post_lossy_sweep(session: SessionDep, _token: MachineToken, body: LossyUpload) -> Any:
    """Store a `basketbench lossy --json` document measured with a commit's codecs
    (replaces an earlier sweep of the same commit, file and codecs)."""
    return service.store(session, body)


@router.get("/lossy-sweeps", response_model=LossySweepsOut)
def get_lossy_sweeps(
    session: SessionDep,
    file: Annotated[str | None, Query(max_length=300, description="only sweeps of this file "
                                      "(its name)")] = None,
    limit: Annotated[int, Query(ge=1, le=500, description="at most this many, newest "
                                "first")] = 100,
) -> Any:
    """The newest sweeps (optionally of one file)."""
    return {"sweeps": service.list_sweeps(session, file, limit)}


@router.get("/lossy-sweeps/{sweep_id}", response_model=LossyColumnsOut)
def get_lossy_sweep(
    session: SessionDep,
    sweep_id: Annotated[int, Path(description="the sweep's id (GET /lossy-sweeps)")],
    setting: Annotated[int | None, Query(ge=100, le=509, description="default: the sweep's "
                                         "first setting")] = None,
    column: Annotated[list[str] | None, Query(
        max_length=service.MAX_COLUMNS, description="columns to show (repeatable); default: "
        "the 8 largest at full")] = None,
) -> Any:
    """Every representation of the columns asked for (default: the 8 largest) at one setting
    (default: the sweep's first): bytes, saving against full and errors; the physics
    quantities computed from those columns."""
    return service.columns_view(session, sweep_id, setting, column or [])


@router.get("/lossy/history", response_model=LossyHistoryOut)
def get_lossy_history(
    session: SessionDep,
    file: Annotated[str, Query(min_length=1, max_length=300, description="the file's name")],
    column: Annotated[str, Query(min_length=1, max_length=300,
                                 description="the branch or field name")],
    representation: Annotated[Literal["full", "half", "trunc", "quant"], Query(
        description="how the column is stored")],
    bits: Annotated[int, Query(ge=1, le=32, description="bits on storage (32 for full, 16 for "
                               "half)")],
    setting: Setting,
    codecs: Annotated[str | None, Query(max_length=100, description="default: every codec set")]
    = None,
    limit: Annotated[int, Query(ge=1, le=2000, description="the newest this many commits")]
    = 200,
) -> Any:
    """One column's bytes at one representation and setting over the newest commits."""
    return service.history(session, file=file, column=column, representation=representation,
                           bits=bits, setting=setting, codecs=codecs, limit=limit)
