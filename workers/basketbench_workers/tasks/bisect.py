"""`basketbench.bisect_range(change_id, good, bad)`: thin shell around bisection.list_range."""

from __future__ import annotations

import logging

from basketbench_workers.agent.api_client import ApiClient
from basketbench_workers.agent.policy import (
    MAX_RETRIES,
    RETRY_BACKOFF_MAX_SECONDS,
    RETRY_BACKOFF_SECONDS,
    RETRYABLE_EXCEPTIONS,
)
from basketbench_workers.celery_app import app
from basketbench_workers.config import get_settings
from basketbench_workers.pipeline.bisection import list_range

log = logging.getLogger(__name__)
TASK_NAME = "basketbench.bisect_range"


@app.task(
    name=TASK_NAME,
    acks_late=True,  # listing is idempotent: the API accepts the list once
    autoretry_for=RETRYABLE_EXCEPTIONS,
    retry_backoff=RETRY_BACKOFF_SECONDS,
    retry_backoff_max=RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
    ignore_result=True,
)
def bisect_range(change_id: int, good: str, bad: str) -> int:
    settings = get_settings()
    commits = list_range(settings, good, bad, settings.worker_dir / "bisect" / f"{change_id}.log")
    with ApiClient(settings.api_url, settings.api_token, settings.http_timeout) as api:
        answer = api.post_bisection_range(int(change_id), commits)
    log.info("change %s: %d commits listed; bisection %s", change_id, len(commits),
             answer.get("bisection", {}).get("status"))
    return len(commits)
