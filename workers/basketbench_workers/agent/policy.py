"""One place for the task retry policy: transient (network/API 5xx) errors retry with
jittered backoff, a bounded number of times; every other error fails the run at once."""

from __future__ import annotations

from basketbench_workers.agent.api_client import TransientApiError

RETRYABLE_EXCEPTIONS: tuple[type[BaseException], ...] = (TransientApiError, ConnectionError)
MAX_RETRIES = 5

RETRY_BACKOFF_SECONDS = 5
RETRY_BACKOFF_MAX_SECONDS = 300
