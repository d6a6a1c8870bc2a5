"""One HTTP attempt of a delivery and what it means for the next one. Retried:
connection errors and timeouts, 5xx, 429, and GitHub's rate limits (403/429 with
``x-ratelimit-remaining: 0`` or ``retry-after``), after what the server asks when that
fits ``notify_max_wait``, else after a doubling back-off. Other 4xx answers are final:
repeating the same request cannot help."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass
class Attempt:
    ok: bool
    code: int | None = None
    error: str | None = None
    body: Any = None
    retry_in: float | None = None  # seconds until the next attempt; None: final


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


def attempt(client: httpx.Client, method: str, url: str, *, backoff: float, max_wait: float,
            json: Any = None) -> Attempt:
    """One request. ``backoff``: the wait before a retry after an error or a 5xx."""
    try:
        response = client.request(method, url, json=json)
    except httpx.HTTPError as exc:
        return Attempt(False, None, f"{type(exc).__name__}: {exc}"[:1000],
                       retry_in=min(max_wait, backoff))
    code = response.status_code
    if code < 300:
        body = (response.json() if response.content
                and "json" in response.headers.get("content-type", "") else response.text)
        return Attempt(True, code, None, body)
    error = f"HTTP {code}: {response.text[:300]}"
    limited = _rate_wait(response)
    if limited is not None:
        if limited > max_wait:
            return Attempt(False, code, f"rate limited: the server asks to wait {limited:.0f} s "
                                        f"(more than notify_max_wait={max_wait:.0f} s); {error}")
        return Attempt(False, code, error, retry_in=limited)
    if code >= 500:
        return Attempt(False, code, error, retry_in=min(max_wait, backoff))
    return Attempt(False, code, error)
