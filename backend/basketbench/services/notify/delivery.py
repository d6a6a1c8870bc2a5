"""HTTP delivery with retries, and its record. Retried: connection errors, 5xx, 429,
and GitHub's rate limits (403/429 with ``x-ratelimit-remaining: 0`` or
``retry-after``), waiting what the server asks when that fits ``notify_max_wait``.
Other 4xx answers are final: repeating the same request cannot help."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy.orm import Session

from basketbench.models import NotificationDelivery


@dataclass
class Attempted:
    ok: bool
    attempts: int
    code: int | None = None
    error: str | None = None
    body: Any = None


def _rate_wait(response: httpx.Response) -> float | None:
    """Seconds to wait when the answer is a rate limit, else None."""
    if response.status_code not in (403, 429):
        return None
    retry_after = response.headers.get("retry-after")
    if retry_after is not None:
        try:
            return max(0.0, float(retry_after))
        except ValueError:
            return 60.0
    if response.headers.get("x-ratelimit-remaining") == "0":
        reset = response.headers.get("x-ratelimit-reset")
        try:
            return max(0.0, float(reset) - time.time()) if reset else 60.0
        except ValueError:
            return 60.0
    return 0.5 if response.status_code == 429 else None


def send(client: httpx.Client, method: str, url: str, *, attempts: int, max_wait: float,
         json: Any = None, headers: dict[str, str] | None = None,
         sleep: Callable[[float], None] = time.sleep) -> Attempted:
    error = None
    code = None
    for attempt in range(1, max(1, attempts) + 1):
        backoff = min(max_wait, 0.25 * 2 ** (attempt - 1))
        try:
            response = client.request(method, url, json=json, headers=headers)
        except httpx.HTTPError as exc:
            error, code, wait = f"{type(exc).__name__}: {exc}", None, backoff
        else:
            code = response.status_code
            if code < 300:
                body = response.json() if response.content and "json" in response.headers.get(
                    "content-type", "") else response.text
                return Attempted(True, attempt, code, None, body)
            error = f"HTTP {code}: {response.text[:300]}"
            limited = _rate_wait(response)
            if limited is not None:
                if limited > max_wait:
                    return Attempted(False, attempt, code,
                                     f"rate limited: the server asks to wait {limited:.0f} s "
                                     f"(more than notify_max_wait={max_wait:.0f} s); {error}")
                wait = limited
            elif code >= 500:
                wait = backoff
            else:
                return Attempted(False, attempt, code, error)
        if attempt < attempts:
            sleep(wait)
    return Attempted(False, attempts, code, error)


def record(session: Session, *, channel: str, target: str, commit_id: int,
           machine_id: int | None, change_ids: list[int], payload: dict[str, Any],
           result: Attempted) -> NotificationDelivery:
    row = NotificationDelivery(commit_id=commit_id, machine_id=machine_id, channel=channel,
                               target=target[:1000], status="sent" if result.ok else "failed",
                               attempts=result.attempts, response_code=result.code,
                               error=result.error, change_ids=change_ids, payload=payload)
    session.add(row)
    session.flush()
    return row
