"""Injection aliases: ``SessionDep``, ``SettingsDep``, ``TokenDep`` (writes), ``ReadAccess``."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import ApiToken
from basketbench.services import tokens
from basketbench.services.errors import Unauthorized

log = logging.getLogger(__name__)
_bearer = HTTPBearer(auto_error=False, description="token from `basketbench token create`")


# Dependencies that do no I/O are async: FastAPI runs a sync one in a worker thread,
# a hop that costs every request (history, the hot read, has several).
async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session(request: Request) -> Iterator[Session]:
    session = request.app.state.sessionmaker()
    try:
        yield session
    finally:
        try:
            session.close()
        except DBAPIError as exc:  # the connection died with the database: drop it quietly
            log.warning("closing a session failed: %s", str(exc).splitlines()[0][:200])
            session.invalidate()


SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[Session, Depends(get_session)]
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def require_token(session: SessionDep, credentials: Credentials) -> ApiToken:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise Unauthorized("missing bearer token")
    token = tokens.authenticate(session, credentials.credentials)
    if token is None:
        raise Unauthorized("invalid or revoked token")
    return token


TokenDep = Annotated[ApiToken, Depends(require_token)]


async def read_access(settings: SettingsDep, session: SessionDep,
                      credentials: Credentials) -> None:
    """Reads are public unless BASKETBENCH_PRIVATE_READS=true (then the token is looked up
    in a worker thread: SQL)."""
    if settings.private_reads:
        await run_in_threadpool(require_token, session, credentials)


ReadAccess = Depends(read_access)
