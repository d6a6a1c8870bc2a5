"""Hands runs to workers: Celery by task name, or inline in embedded mode.

Only the dispatcher (runs/dispatch.py) calls ``publish``; requests never talk to
the broker, so a broker that is down or never answers cannot slow them. Every broker
call is bounded: connect and socket timeouts, no Celery-level retries (the outbox
retries with back-off instead).

The web side never imports worker code: in embedded mode the composition root (the
CLI's ``serve``) injects what runs a run inline with ``set_inline_runner``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from basketbench.core.config import Settings, get_settings

log = logging.getLogger(__name__)

TASK_NAME = "basketbench.run_benchmark"


class BrokerUnavailable(Exception):
    """The broker refused, timed out or failed: the outbox row is retried later."""


InlineRunner = Callable[[int], object]
_inline_runner: InlineRunner | None = None


def set_inline_runner(runner: InlineRunner | None) -> None:
    """Embedded mode (no broker): ``runner(run_id)`` executes a run in this process.
    Set by whoever composes the app with a worker (``basketbench serve``)."""
    global _inline_runner
    _inline_runner = runner


@lru_cache(maxsize=4)
def _celery(broker_url: str, timeout: float) -> Any:
    from celery import Celery

    app = Celery("basketbench-api", broker=broker_url)
    app.conf.broker_connection_timeout = timeout
    app.conf.broker_connection_retry_on_startup = False
    app.conf.broker_connection_max_retries = 0
    app.conf.task_create_missing_queues = True
    app.conf.broker_pool_limit = 2
    # A broker that accepts connections and never answers: every socket read and
    # connect gives up after `timeout` seconds (redis-py raises TimeoutError).
    app.conf.broker_transport_options = {
        "socket_timeout": timeout, "socket_connect_timeout": timeout,
        "max_retries": 0,
    }
    return app


def _reset(broker_url: str, timeout: float) -> None:
    """Drop pooled broker connections after a failure: the next publish reconnects."""
    from kombu import pools

    try:
        pools.reset()  # kombu's process-wide pools: a closed pool must not be reused
    except Exception:  # closing a dead connection may itself fail
        log.debug("closing broker connections failed", exc_info=True)
    _celery.cache_clear()


def publish(run_id: int, generation: int, tag: str, settings: Settings | None = None) -> None:
    """Send one run's task (with the generation it is sent for) to its tag's queue, or
    start it inline in embedded mode. Raises BrokerUnavailable on any broker failure."""
    settings = settings or get_settings()
    if settings.broker_url:
        timeout = settings.broker_timeout
        try:
            _celery(settings.broker_url, timeout).send_task(
                TASK_NAME, args=[run_id, generation], queue=tag, retry=False)
        except Exception as exc:
            _reset(settings.broker_url, timeout)
            raise BrokerUnavailable(f"{type(exc).__name__}: {exc}"[:500]) from exc
        return
    run_inline = _inline_runner
    if run_inline is None:
        raise BrokerUnavailable("embedded mode without an inline runner (no broker is set and "
                                "this API was not started by `basketbench serve`)")
    thread = threading.Thread(
        target=_run_inline_logged, args=(run_inline, run_id), name=f"run-{run_id}", daemon=True
    )
    thread.start()


def enqueue_run(run_id: int, tag: str, settings: Settings | None = None,
                generation: int = 0) -> bool:
    """Publish at once; False when it failed (the caller keeps the outbox row pending)."""
    settings = settings or get_settings()
    if settings.dispatch == "none":
        return False
    try:
        publish(run_id, generation, tag, settings)
        return True
    except BrokerUnavailable as exc:
        log.warning("could not enqueue run %s on queue %s: %s", run_id, tag, exc)
        return False


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
    timeout = settings.broker_timeout
    try:
        _celery(settings.broker_url, timeout).send_task(name, args=args, queue=queue,
                                                        retry=False)
        return True
    except Exception:
        _reset(settings.broker_url, timeout)
        log.exception("could not send %s to queue %s", name, queue)
        return False
