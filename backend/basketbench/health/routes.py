from __future__ import annotations

import asyncio
from importlib import metadata
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from basketbench.catalog import worker_tags
from basketbench.changes.detection import exclusions as speed_exclusions
from basketbench.changes.detection import pending as detection_pending
from basketbench.changes.detection import queue as detection_queue
from basketbench.core.config import Settings
from basketbench.runs.ci_schemas import Health
from basketbench.web.deps import SettingsDep

router = APIRouter(tags=["health"])

# Monitoring must learn of an outage within a second, whatever the database does
# (0.75 s for the ping, the rest for a busy event loop).
HEALTH_BUDGET_SECONDS = 0.75


def _version() -> str:
    try:
        return metadata.version("basketbench")
    except metadata.PackageNotFoundError:
        return "unknown"


Ping = tuple[int, list[str], dict[str, int], list[speed_exclusions.SpeedExclusion]]


def _ping(engine: Engine, settings: Settings) -> Ping:
    """The database answers; returns the detection backlog (a small table), the notes of
    tags without a live worker (small tables, and queued runs by an index), the speed
    candidates awaiting reruns per tag and the tags whose speeds detection left out (the
    newest documents, by the primary key)."""
    with Session(engine) as session:
        notes = [t.note for t in worker_tags.tag_states(session, settings) if t.note]
        return (detection_queue.pending(session), notes,
                detection_pending.awaiting_by_tag(session),
                speed_exclusions.by_tag(session, settings))


@router.get("/health", response_model=Health,
            responses={503: {"model": Health, "description": "the database is unavailable"}})
async def get_health(request: Request, settings: SettingsDep) -> Any:
    pending: int | None = None
    notes: list[str] = []
    awaiting: dict[str, int] | None = None
    excluded: list[speed_exclusions.SpeedExclusion] | None = None
    try:
        pending, notes, awaiting, excluded = await asyncio.wait_for(
            run_in_threadpool(_ping, request.app.state.engine, settings), HEALTH_BUDGET_SECONDS)
        db = "ok"
    except Exception:  # refused, timed out, pool exhausted: report, do not fail
        db = "unavailable"
    body = Health(status="ok" if db == "ok" else "unavailable", database=db,
                  version=_version(), embedded=settings.embedded, detection_pending=pending,
                  worker_tags=notes, detection_awaiting_reruns=awaiting,
                  speed_exclusions=excluded)
    if db == "ok":
        return body
    return JSONResponse(body.model_dump(), status_code=503,
                        headers={"Retry-After": str(settings.retry_after)})
