"""Injection aliases: ``SessionDep``, ``SettingsDep``, ``TokenDep`` (writes), ``ReadAccess``."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from basketbench.core import tokens
from basketbench.core.config import Settings
from basketbench.core.errors import Unauthorized
from basketbench.models import ApiToken

log = logging.getLogger(__name__)
T = TypeVar("T")
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
        _close(session)


def _close(session: Session) -> None:
    try:
        session.close()
    except DBAPIError as exc:  # the connection died with the database: drop it quietly
        log.warning("closing a session failed: %s", str(exc).splitlines()[0][:200])
        session.invalidate()


def _in_session(make: Callable[[], Session], work: Callable[..., T], args: tuple[Any, ...]) -> T:
    session = make()
    try:
        return work(session, *args)
    finally:
        _close(session)


async def run_in_session(request: Request, work: Callable[..., T], *args: Any) -> T:
    """``work(session, *args)`` in one worker thread, its session opened and closed there:
    for the hottest reads, one thread hop per request instead of three (SessionDep's
    opening and closing each take one)."""
    return await run_in_threadpool(_in_session, request.app.state.sessionmaker, work, args)


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


def _bearer_of(request: Request) -> HTTPAuthorizationCredentials | None:
    """The Authorization header's credentials, read by hand: a dependency on the HTTPBearer
    scheme would mark every public read as locked in the API docs."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if not scheme or not value.strip():
        return None
    return HTTPAuthorizationCredentials(scheme=scheme, credentials=value.strip())


async def read_access(request: Request, settings: SettingsDep) -> None:
    """Reads are public unless BASKETBENCH_PRIVATE_READS=true (then the token is looked up
    in a worker thread: SQL). No session of its own otherwise: public reads that open
    theirs in one thread (run_in_session) pay no extra hops for this check."""
    if settings.private_reads:
        await run_in_session(request, require_token, _bearer_of(request))


ReadAccess = Depends(read_access)
