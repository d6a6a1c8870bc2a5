"""Embedded mode: run one benchmark run in-process, without a broker.

The backend calls `run_inline(run_id)` in a background thread when no broker is
configured. It is the same task code (pipeline.execute_run) talking to the same API.
"""

from __future__ import annotations

import logging
import socket
import threading

from basketbench_workers.agent.api_client import ApiClient
from basketbench_workers.agent.attempts import MemoryAttempts
from basketbench_workers.agent.hwtag import detect_tag
from basketbench_workers.agent.registration import register_at_start, state_file
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.stages import (
    WorkerIdentity,
    adopt_make_build,
    default_rzbench,
    execute_run,
)

log = logging.getLogger(__name__)

# One run at a time in a process, like a worker with concurrency 1.
_lock = threading.Lock()
_attempts = MemoryAttempts()


def run_inline(run_id: int) -> str:
    settings = WorkerSettings()  # read now: the backend may set the environment late
    with _lock, ApiClient(settings.api_url, settings.api_token, settings.http_timeout) as api:
        run = api.get_run(run_id)
        tag = str(run.get("tag") or detect_tag())
        name = settings.machine_name or socket.gethostname()
        log_path = settings.worker_dir / "embedded.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        # `make demo` has just built rzbench from these sources: take it, do not compile again.
        adopt_make_build(settings, log_path)
        rzbench = default_rzbench(settings, log_path).rzbench
        state = state_file(settings.worker_dir, settings.api_url, tag)
        api.heartbeat(register_at_start(api, name, tag, rzbench, state))
        identity = WorkerIdentity(name, tag)
        outcome = execute_run(run_id, api, settings, identity, _attempts)
    log.info("embedded run %s: %s", run_id, outcome)
    return outcome
