"""Bounded work per request: body size enforced while reading, JSON checked before any
handler sees it, and in-flight caps that answer 429 / 503 with Retry-After instead of
letting one client slow everyone.

Pure ASGI (not BaseHTTPMiddleware): the body is counted chunk by chunk as it arrives, so
an oversized upload costs at most its limit, and streamed answers stay streamed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
from fastapi import HTTPException

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

MB = 1024 * 1024
# GitHub's webhook payloads stop at 25 MB.
WEBHOOK_MAX_BODY = 25 * MB
# Result documents (harness or Google Benchmark JSON): the largest real ones are ~30 MB.
INGEST_MAX_BODY = 256 * MB
# An advice document (`basketbench advise --json`, one row per branch): the page reads 20 MB.
ADVICE_MAX_BODY = 20 * MB
# A lossy sweep (`basketbench lossy --json`, one row per column x representation x setting):
# PHYSLITE's 411 float columns make ~4 MB.
LOSSY_MAX_BODY = 64 * MB
# An arena document (`basketbench arena --json`): a few hundred rows per file, a few
# thousand with the per-shape rows.
ARENA_MAX_BODY = 32 * MB
# Everything else (trigger, run updates, machine registration) is small.
DEFAULT_MAX_BODY = 2 * MB
# Deeper JSON is no real document: orjson (serialising) and recursion stop near 255.
MAX_JSON_DEPTH = 64


def body_limit(path: str) -> int:
    if path.endswith("/webhooks/github"):
        return WEBHOOK_MAX_BODY
    if path.endswith("/results") or path.endswith("/results/gbench"):
        return INGEST_MAX_BODY
    if "/advise/" in path:
        return ADVICE_MAX_BODY
    if path.endswith("/lossy-sweeps"):
        return LOSSY_MAX_BODY
    if path.endswith("/arena-runs"):
        return ARENA_MAX_BODY
    return DEFAULT_MAX_BODY


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body larger than {limit // MB} MB")


def json_depth(value: Any) -> int:
    """Nesting depth of parsed JSON, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            continue
        deepest = max(deepest, depth)
        if depth > MAX_JSON_DEPTH:
            return depth
        stack.extend((child, depth + 1) for child in node if isinstance(child, dict | list))
    return deepest


# Every byte but the four brackets and the quote: bytes.translate deletes them.
_NOT_STRUCTURE = bytes(range(256)).translate(None, b'"[]{}')


def raw_json_depth(raw: bytes) -> int | None:
    """Nesting depth of valid JSON text read from its bytes, or None when the text has a
    backslash (an escaped quote would hide where strings end; ``json_depth`` decides then).

    Without escapes every quote opens or closes a string, so after deleting all other
    bytes a bracket counts only where the number of quotes before it is even. Several times faster
    than walking a parsed 0.7 MB result document (~0.5 ms instead of ~6 ms)."""
    if b"\\" in raw:
        return None
    # Dropping two adjacent quotes keeps every later quote count's parity: most strings go.
    marks = np.frombuffer(raw.translate(None, _NOT_STRUCTURE).replace(b'""', b""),
                          dtype=np.uint8)
    if marks.size == 0:
        return 0
    outside = (np.cumsum(marks == ord('"'), dtype=np.int64) & 1) == 0
    step = ((marks == ord("[")) | (marks == ord("{"))).astype(np.int64)
    step -= (marks == ord("]")) | (marks == ord("}"))
    return int(np.cumsum(step * outside).max(initial=0))


def loads(raw: bytes | str) -> Any:
    """Strict JSON: valid UTF-8 without lone surrogates (PostgreSQL cannot store them),
    at most MAX_JSON_DEPTH levels. Failures are 400 with the parser's reason."""
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise HTTPException(400, f"body is not valid JSON: {exc}") from exc
    depth = raw_json_depth(raw) if isinstance(raw, bytes) else None
    if depth is None:
        depth = json_depth(value)
    if depth > MAX_JSON_DEPTH:
        raise HTTPException(400, f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


def _int64(text: str) -> int:
    value = int(text)
    if not -(2**63) <= value < 2**64:
        raise ValueError(f"integer {text[:24]}... is outside the 64-bit range")
    return value


def check_pydantic_body(raw: bytes) -> None:
    """What FastAPI's own parser (the stdlib's) would accept but nothing downstream can
    hold: ``loads``' checks, plus integers beyond 64 bits (the stdlib keeps them exact;
    JSON columns and the database cannot). Bodies here are small (DEFAULT_MAX_BODY) and
    no deeper than MAX_JSON_DEPTH once ``loads`` passed, so the second parse is cheap."""
    loads(raw)
    try:
        json.loads(raw, parse_int=_int64)
    except ValueError as exc:
        raise HTTPException(400, f"body is not valid JSON: {exc}") from exc


def _is_json(scope: Scope) -> bool:
    for key, value in scope.get("headers", ()):
        if key == b"content-type":
            return bool(value.split(b";")[0].strip().lower().endswith(b"json"))
    return False


def _content_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_error(send: Send, status: int, code: str, message: str,
                      headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = orjson.dumps({"error": {"code": code, "message": message, "details": []}})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


@dataclass
class Limits:
    max_in_flight: int
    max_exports: int
    retry_after_s: int = 2


class _Gate:
    """A non-blocking counter: full means answer now, never queue."""

    def __init__(self, size: int) -> None:
        self.size, self.used, self._lock = size, 0, threading.Lock()

    def enter(self) -> bool:
        with self._lock:
            if self.used >= self.size:
                return False
            self.used += 1
            return True

    def leave(self) -> None:
        with self._lock:
            self.used -= 1


def _is_export(scope: Scope) -> bool:
    """CSV exports (up to 100 000 rows) are the expensive public reads."""
    if b"format=csv" in scope.get("query_string", b""):
        return True
    return any(k == b"accept" and b"text/csv" in v for k, v in scope.get("headers", ()))


class GuardMiddleware:
    """Per API request: in-flight caps, the body limit while reading, strict JSON for the
    small JSON bodies pydantic parses (ingest and the webhook parse their own bodies
    with ``loads`` after their own checks, e.g. the webhook signature)."""

    def __init__(self, app: ASGIApp, limits: Limits, prefix: str = "/api/") -> None:
        self.app, self.limits, self.prefix = app, limits, prefix
        self.in_flight = _Gate(limits.max_in_flight)
        self.exports = _Gate(limits.max_exports)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith(self.prefix):
            await self.app(scope, receive, send)
            return
        retry = [(b"retry-after", str(self.limits.retry_after_s).encode())]
        if not self.in_flight.enter():
            await _send_error(send, 503, "overloaded",
                              "too many requests in progress; retry shortly", retry)
            return
        try:
            export = scope["method"] == "GET" and _is_export(scope)
            if export and not self.exports.enter():
                await _send_error(send, 429, "too_many_requests",
                                  f"at most {self.limits.max_exports} CSV exports at a time; "
                                  "retry shortly", retry)
                return
            try:
                await self._guarded(scope, receive, send)
            finally:
                if export:
                    self.exports.leave()
        finally:
            self.in_flight.leave()

    async def _guarded(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope["path"]
        limit = body_limit(path)
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _send_error(send, 413, "too_large", f"request body larger than {limit // MB} MB")
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        if limit == DEFAULT_MAX_BODY and scope["method"] in ("POST", "PUT", "PATCH") \
                and _is_json(scope):
            await self._checked_json(scope, counted, send)
            return
        await self.app(scope, counted, send)

    async def _checked_json(self, scope: Scope, receive: Receive, send: Send) -> None:
        chunks: list[bytes] = []
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    break
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    break
            body = b"".join(chunks)
            if body:
                check_pydantic_body(body)
        except HTTPException as exc:
            await _send_error(send, exc.status_code, "too_large" if exc.status_code == 413
                              else "bad_request", str(exc.detail))
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)
