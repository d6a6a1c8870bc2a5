from __future__ import annotations

from importlib import metadata

from fastapi import APIRouter
from sqlalchemy import text

from basketbench.api.deps import SessionDep, SettingsDep
from basketbench.schemas.ci import Health

router = APIRouter(tags=["health"])


def _version() -> str:
    try:
        return metadata.version("basketbench")
    except metadata.PackageNotFoundError:
        return "unknown"


@router.get("/health", response_model=Health)
def get_health(session: SessionDep, settings: SettingsDep) -> Health:
    try:
        session.execute(text("SELECT 1"))
        db = "ok"
    except Exception:  # report, don't fail: this is what monitoring polls
        db = "unavailable"
    return Health(status="ok" if db == "ok" else "degraded", database=db, version=_version(),
                  embedded=settings.embedded)
