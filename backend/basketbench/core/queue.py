"""Hands runs to workers: Celery by task name, or inline in embedded mode.

The API never imports worker code except the embedded hook, and only
lazily: ``basketbench_workers.embedded.run_inline(run_id)``.
"""

from __future__ import annotations

import logging
import threading
from functools import lru_cache
from typing import Any

from basketbench.core.config import Settings, get_settings

log = logging.getLogger(__name__)

TASK_NAME = "basketbench.run_benchmark"


@lru_cache(maxsize=4)
def _celery(broker_url: str) -> Any:
    from celery import Celery

    app = Celery("basketbench-api", broker=broker_url)
    app.conf.broker_connection_timeout = 5
    app.conf.broker_connection_retry_on_startup = False
    app.conf.task_create_missing_queues = True
    return app


def enqueue_run(run_id: int, tag: str, settings: Settings | None = None) -> bool:
    """Queue one run on its hardware tag's queue. Returns False if it stays queued only
    in the database (broker down or no embedded runner); never raises."""
    settings = settings or get_settings()
    if settings.dispatch == "none":
        return False
    if settings.broker_url:
        try:
            _celery(settings.broker_url).send_task(TASK_NAME, args=[run_id], queue=tag)
            return True
        except Exception:  # broker down: the run stays 'queued' and can be re-triggered
            log.exception("could not enqueue run %s on queue %s", run_id, tag)
            return False
    try:
        from basketbench_workers.embedded import run_inline
    except ImportError:
        log.warning("embedded mode without basketbench_workers.embedded: run %s stays queued",
                    run_id)
        return False
    thread = threading.Thread(
        target=_run_inline_logged, args=(run_inline, run_id), name=f"run-{run_id}", daemon=True
    )
    thread.start()
    return True


def _run_inline_logged(fn: Any, run_id: int) -> None:
    try:
        fn(run_id)
    except Exception:
        log.exception("embedded run %s failed", run_id)


def enqueue_task(name: str, args: list[object], queue: str,
                 settings: Settings | None = None) -> bool:
    """Send any worker task by name to a tag's queue; False when there is no broker
    (embedded mode, dispatch none) or it is down. Never raises."""
    settings = settings or get_settings()
    if settings.dispatch == "none" or not settings.broker_url:
        return False
    try:
        _celery(settings.broker_url).send_task(name, args=args, queue=queue)
        return True
    except Exception:
        log.exception("could not send %s to queue %s", name, queue)
        return False
