"""`basketbench.run_benchmark(run_id)`: thin shell around pipeline.execute_run."""

from __future__ import annotations

import hashlib
import logging
import os
from functools import lru_cache

from basketbench_workers.agent.api_client import ApiClient
from basketbench_workers.agent.attempts import RedisAttempts
from basketbench_workers.agent.policy import (
    MAX_RETRIES,
    RETRY_BACKOFF_MAX_SECONDS,
    RETRY_BACKOFF_SECONDS,
    RETRYABLE_EXCEPTIONS,
)
from basketbench_workers.celery_app import TASK_NAME, app
from basketbench_workers.config import get_settings
from basketbench_workers.pipeline.stages import WorkerIdentity, execute_run

log = logging.getLogger(__name__)


def worker_identity() -> WorkerIdentity:
    """Set by start_worker in the environment, inherited by the pool's children."""
    return WorkerIdentity(
        machine_name=os.environ.get("BASKETBENCH_MACHINE_NAME", os.uname().nodename),
        tag=os.environ.get("BASKETBENCH_WORKER_TAG", "unknown"),
    )


@lru_cache(maxsize=1)
def _attempts() -> RedisAttempts:
    settings = get_settings()
    # Run ids are per API database: namespace the counter by the API it belongs to.
    namespace = hashlib.sha256(settings.api_url.encode()).hexdigest()[:12]
    return RedisAttempts(
        settings.broker_url or "redis://127.0.0.1:6379/0",
        prefix=f"basketbench:attempts:{namespace}:",
    )


@app.task(
    name=TASK_NAME,
    acks_late=True,  # ack after the run: a worker that dies mid-run leaves the message queued
    reject_on_worker_lost=True,  # a killed pool child requeues instead of acking
    autoretry_for=RETRYABLE_EXCEPTIONS,  # only transient API/network trouble is retried
    retry_backoff=RETRY_BACKOFF_SECONDS,
    retry_backoff_max=RETRY_BACKOFF_MAX_SECONDS,
    retry_jitter=True,
    max_retries=MAX_RETRIES,
    ignore_result=True,
)
def run_benchmark(run_id: int, generation: int | None = None) -> str:
    """`generation`: the run's generation this message was sent for (the API's outbox);
    only a message of the current generation may claim the run."""
    settings = get_settings()
    with ApiClient(settings.api_url, settings.api_token, settings.http_timeout) as api:
        outcome = execute_run(int(run_id), api, settings, worker_identity(), _attempts(),
                              generation=None if generation is None else int(generation))
    log.info("run %s: %s", run_id, outcome)
    return outcome
