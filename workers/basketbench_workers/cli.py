"""`basketbench worker [--tag TAG]`: detect the tag, register, heartbeat, consume its queue."""

from __future__ import annotations

import logging
import os
import socket
import sys
import time
from pathlib import Path

from basketbench_workers.agent.api_client import ApiClient, ApiError, TransientApiError
from basketbench_workers.agent.hwtag import detect_tag
from basketbench_workers.agent.registration import Heartbeat, register_at_start, state_file
from basketbench_workers.config import get_settings
from basketbench_workers.pipeline.stages import default_rzbench

log = logging.getLogger("basketbench_workers")


def _register_with_retries(
    api: ApiClient, name: str, tag: str, rzbench: Path, state: Path, wait: float = 120.0
) -> None:
    """The API may still be starting (compose, reboot): retry transient errors for a while."""
    deadline = time.monotonic() + wait
    while True:
        try:
            register_at_start(api, name, tag, rzbench, state)
            return
        except ApiError as exc:
            raise SystemExit(f"the API refused the registration: {exc}") from exc
        except TransientApiError as exc:
            if time.monotonic() > deadline:
                raise SystemExit(f"cannot reach the API at {api.base_url}: {exc}") from exc
            log.warning("API not reachable yet (%s); retrying", exc)
            time.sleep(5)


def start_worker(tag: str | None = None, concurrency: int = 1) -> None:
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    settings = get_settings()
    if not settings.broker_url:
        raise SystemExit("BASKETBENCH_BROKER_URL is not set (e.g. redis://127.0.0.1:6379/0)")
    if not settings.api_token:
        raise SystemExit(
            "BASKETBENCH_API_TOKEN is not set (create one with `basketbench token create`)"
        )
    if concurrency != 1:
        log.warning("concurrency %d: runs will disturb each other's measurements", concurrency)
    tag = tag or settings.tag or detect_tag()
    name = settings.machine_name or socket.gethostname()
    settings.worker_dir.mkdir(parents=True, exist_ok=True)

    log.info("tag %s; building the default rzbench for the fingerprint (cached)", tag)
    rzbench = default_rzbench(settings, settings.worker_dir / "worker-start.log").rzbench
    api = ApiClient(settings.api_url, settings.api_token, settings.http_timeout)
    state = state_file(settings.worker_dir, settings.api_url, tag)
    _register_with_retries(api, name, tag, rzbench, state)
    # The pool's children read the identity from the environment (tasks.bench.worker_identity).
    os.environ["BASKETBENCH_MACHINE_NAME"] = name
    os.environ["BASKETBENCH_WORKER_TAG"] = tag
    heartbeat = Heartbeat(api, state, settings.heartbeat_seconds)
    heartbeat.start()

    from basketbench_workers.celery_app import app

    try:
        app.worker_main(
            [
                "worker",
                "--queues",
                tag,
                "--concurrency",
                str(concurrency),
                "--prefetch-multiplier",
                "1",
                "--loglevel",
                "INFO",
                "--hostname",
                f"{name}-{tag}-{os.getpid()}@%h",
                "--without-gossip",
                "--without-mingle",
            ]
        )
    finally:
        heartbeat.stop()
        api.close()
    sys.exit(0)
