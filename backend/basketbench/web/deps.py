"""Injection aliases: ``SessionDep``, ``SettingsDep``, ``ReadAccess``, and the token a write
needs: ``MachineToken``, ``UserToken``, ``AdminToken`` (``require_scope``; docs/API.md lists
each write endpoint's scope)."""

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
from basketbench.core.errors import Forbidden, Unauthorized
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


def _in_session(make: Callable[[], Session], work: Callable[..., T], args: tuple[Any, ...],
                read_only: bool = False) -> T:
    session = make()
    try:
        if read_only:
            # No BEGIN before the first statement and no ROLLBACK when the connection
            # goes back to the pool: two of a read's round trips. Nothing is lost: at
            # READ COMMITTED (the server's default, never changed here) each statement
            # takes its own snapshot inside a transaction too.
            session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        return work(session, *args)
    finally:
        _close(session)


async def run_in_session(request: Request, work: Callable[..., T], *args: Any) -> T:
    """``work(session, *args)`` in one worker thread, its session opened and closed there:
    one thread hop instead of three (SessionDep's opening and closing each take one), for
    work that may write (the private-reads token check stamps the token's last use)."""
    return await run_in_threadpool(_in_session, request.app.state.sessionmaker, work, args)


async def run_read(request: Request, work: Callable[..., T], *args: Any) -> T:
    """run_in_session for work that only reads (history, trade-off, compare), its
    connection in autocommit."""
    return await run_in_threadpool(_in_session, request.app.state.sessionmaker, work, args,
                                   True)


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


# Any valid token, whatever its scope: for reads behind BASKETBENCH_PRIVATE_READS. A write
# names the scope it needs instead (below); tests/backend/web/test_scopes.py fails for a
# write route that does not.
TokenDep = Annotated[ApiToken, Depends(require_token)]

# One dependency function per scope, made once: FastAPI caches a dependency per request by
# its function, and the matrix test finds a route's scope through it (SCOPE_OF).
SCOPE_OF: dict[Callable[..., ApiToken], str] = {}


def require_scope(scope: str) -> Callable[..., ApiToken]:
    """The dependency of a write that needs ``scope`` ("machine", "user" or "admin"; an
    admin token passes every one): 401 without a valid token, 403 with one of another
    scope."""
    for dependency, known in SCOPE_OF.items():
        if known == scope:
            return dependency
    if scope not in tokens.IMPLIED:
        raise ValueError(f"unknown token scope {scope!r}")

    def scoped(token: TokenDep) -> ApiToken:
        if not tokens.allows(token, scope):
            raise Forbidden(f"this endpoint needs a {scope} token; token {token.name!r} "
                            f"has scope {token.scope}")
        return token

    scoped.__name__ = f"require_{scope}_token"
    SCOPE_OF[scoped] = scope
    return scoped


MachineToken = Annotated[ApiToken, Depends(require_scope("machine"))]
UserToken = Annotated[ApiToken, Depends(require_scope("user"))]
AdminToken = Annotated[ApiToken, Depends(require_scope("admin"))]


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
