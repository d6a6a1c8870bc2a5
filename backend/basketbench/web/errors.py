"""One error format for every failure: ``{"error": {"code", "message", "details"}}``."""

from __future__ import annotations

import logging
import traceback
from typing import Any

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DataError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.exceptions import HTTPException as StarletteHTTPException

from basketbench.core.errors import ServiceError

log = logging.getLogger(__name__)

# One log record per failure, never megabytes: a statement with 65 535 parameters or a
# 4 MB value would otherwise be written out whole.
MAX_LOG_LINE = 2000
MAX_LOG_RECORD = 16_000

_CODES = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
          405: "method_not_allowed", 409: "conflict", 413: "too_large", 415: "unsupported_media",
          422: "invalid", 429: "too_many_requests", 503: "unavailable"}


def error_response(status: int, code: str, message: str, details: list[Any] | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "details": details or []}}
    return JSONResponse(body, status_code=status, headers=headers)


def _clean(errors: list[Any]) -> list[dict[str, Any]]:
    out = []
    for e in errors:
        out.append({"loc": [str(p) for p in e.get("loc", ())], "msg": e.get("msg", ""),
                    "type": e.get("type", "")})
    return out


def install(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def _service(_: Request, exc: ServiceError) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
        return error_response(exc.status, exc.code, exc.message, exc.details, headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "invalid", "request validation failed",
                              _clean(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _CODES.get(exc.status_code, "error")
        return error_response(exc.status_code, code, str(exc.detail), [],
                              dict(exc.headers) if exc.headers else None)

    @app.exception_handler(DataError)
    async def _data(_: Request, exc: DataError) -> JSONResponse:
        # The database refused a value (e.g. an id beyond 32 bits): the input was bad.
        return error_response(400, "bad_request", "a value is out of range",
                              [str(exc.orig).splitlines()[0] if exc.orig else ""])

    retry_after = str(getattr(getattr(app.state, "settings", None), "retry_after", 5))

    async def _unavailable(_: Request, exc: Exception) -> JSONResponse:
        # Refused, timed out, cut by the statement guard, or no free pooled connection:
        # the database is (for now) unavailable, not the request wrong.
        first = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        log.warning("database unavailable: %s", first[0][:300] if first else type(exc))
        return error_response(503, "unavailable", "the database is unavailable; retry later",
                              [], {"Retry-After": retry_after})

    # psycopg's own OperationalError (QueryCanceled, a cut or reset connection) comes from
    # work on the driver connection itself: ingest's COPY.
    for error in (OperationalError, InterfaceError, PoolTimeout, psycopg.OperationalError):
        app.add_exception_handler(error, _unavailable)

    @app.exception_handler(Exception)
    async def _unexpected(_: Request, exc: Exception) -> JSONResponse:
        log.error("unhandled error: %s", bounded_traceback(exc))
        return error_response(500, "internal", "internal server error")


def bounded_traceback(exc: BaseException) -> str:
    lines = []
    for line in "".join(traceback.format_exception(exc)).splitlines():
        lines.append(line if len(line) <= MAX_LOG_LINE
                     else f"{line[:MAX_LOG_LINE]}... [{len(line) - MAX_LOG_LINE} more chars]")
    text = "\n".join(lines)
    if len(text) > MAX_LOG_RECORD:
        text = f"{text[:MAX_LOG_RECORD // 2]}\n... [cut]\n{text[-MAX_LOG_RECORD // 2:]}"
    return text
