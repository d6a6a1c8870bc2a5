"""Errors raised by services, mapped to HTTP by web/errors.py."""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    status = 400
    code = "bad_request"

    def __init__(self, message: str, details: list[Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details or []


class NotFound(ServiceError):
    status = 404
    code = "not_found"


class Invalid(ServiceError):
    status = 422
    code = "invalid"


class BadRequest(ServiceError):
    status = 400
    code = "bad_request"


class Unauthorized(ServiceError):
    status = 401
    code = "unauthorized"


class Forbidden(ServiceError):
    status = 403
    code = "forbidden"


class Conflict(ServiceError):
    status = 409
    code = "conflict"
