from __future__ import annotations

import asyncio
from importlib import metadata
from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse
from sqlalchemy import Engine, text

from basketbench.api.deps import SettingsDep
from basketbench.schemas.ci import Health

router = APIRouter(tags=["health"])

# Monitoring must learn of an outage within a second, whatever the database does
# (0.75 s for the ping, the rest for a busy event loop).
HEALTH_BUDGET_SECONDS = 0.75


def _version() -> str:
    try:
        return metadata.version("basketbench")
    except metadata.PackageNotFoundError:
        return "unknown"


def _ping(engine: Engine) -> None:
    with engine.connect() as conn:
        conn.execute(text("SELECT 1"))


@router.get("/health", response_model=Health,
            responses={503: {"model": Health, "description": "the database is unavailable"}})
async def get_health(request: Request, settings: SettingsDep) -> Any:
    try:
        await asyncio.wait_for(run_in_threadpool(_ping, request.app.state.engine),
                               HEALTH_BUDGET_SECONDS)
        db = "ok"
    except Exception:  # refused, timed out, pool exhausted: report, do not fail
        db = "unavailable"
    body = Health(status="ok" if db == "ok" else "unavailable", database=db,
                  version=_version(), embedded=settings.embedded)
    if db == "ok":
        return body
    return JSONResponse(body.model_dump(), status_code=503,
                        headers={"Retry-After": str(settings.retry_after)})
