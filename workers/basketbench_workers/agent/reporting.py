"""Stage, progress, timings and failures of one run, sent to the API (PATCH /runs/{id})."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from basketbench_workers.agent.api_client import ApiClient, ApiError, TransientApiError

log = logging.getLogger(__name__)

# Vocabulary of docs/API.md's runs (status + stage).
STATUS_RUNNING = "running"
STATUS_DONE = "succeeded"
STATUS_FAILED = "failed"
TERMINAL_STATUSES = (STATUS_DONE, STATUS_FAILED, "cancelled")
STAGES = ("checkout", "build", "benchmark", "upload")
LOG_TAIL_CHARS = 8000


class RunReporter:
    def __init__(self, api: ApiClient, run_id: int, min_progress_interval: float = 2.0,
                 redact: Callable[[str], str] | None = None) -> None:
        self.api = api
        self.run_id = run_id
        # Runs are public (GET /runs): their texts lose this worker's paths (agent/redact.py)
        self._redact = redact or (lambda text: text)
        self.timings: dict[str, float] = {}
        self._stage_start = time.monotonic()
        self._run_start = time.monotonic()
        self._stage: str | None = None
        self._last_progress = 0.0
        self._min_interval = min_progress_interval

    def patch(self, **fields: Any) -> None:
        self.api.patch_run(self.run_id, **{
            k: self._redact(v) if isinstance(v, str) else v for k, v in fields.items()})

    def start(self, machine_id: int | None, attempt: int) -> None:
        # Clears what an earlier, killed attempt left behind.
        fields: dict[str, Any] = {
            "status": STATUS_RUNNING,
            "attempts": attempt,
            "started_at": _now(),
            "stage": "checkout",
            "progress": 0.0,
            "timings": {},
            "log_tail": None,
        }
        if machine_id is not None:
            fields["machine_id"] = machine_id
        self._stage = "checkout"
        self._stage_start = self._run_start = time.monotonic()
        self.patch(**fields)

    def _close_stage(self) -> None:
        if self._stage is not None:
            self.timings[self._stage] = round(time.monotonic() - self._stage_start, 3)

    def stage(self, name: str, **extra: Any) -> None:
        self._close_stage()
        self._stage = name
        self._stage_start = time.monotonic()
        self.patch(stage=name, timings=self.timings, **extra)

    def progress(self, fraction: float, force: bool = False) -> None:
        """Best effort and throttled: a lost progress update must not fail the run."""
        now = time.monotonic()
        if not force and now - self._last_progress < self._min_interval:
            return
        self._last_progress = now
        try:
            self.patch(progress=round(min(max(fraction, 0.0), 1.0), 4))
        except (TransientApiError, ApiError) as exc:
            log.warning("run %s: progress update lost: %s", self.run_id, exc)

    def done(self, **extra: Any) -> None:
        self._close_stage()
        self._stage = None
        self.timings["total"] = round(time.monotonic() - self._run_start, 3)
        self.patch(
            status=STATUS_DONE,
            stage="done",
            progress=1.0,
            timings=self.timings,
            finished_at=_now(),
            **extra,
        )

    def failed(self, message: str, log_tail: str = "", **extra: Any) -> None:
        failed_stage = self._stage or "queued"
        self._close_stage()
        self._stage = None
        self.timings["total"] = round(time.monotonic() - self._run_start, 3)
        text = f"stage {failed_stage} failed: {message}\n{log_tail}".rstrip() + "\n"
        self.patch(
            status=STATUS_FAILED,
            stage="failed",
            timings=self.timings,
            log_tail=text[-LOG_TAIL_CHARS:],
            finished_at=_now(),
            **extra,
        )


def _now() -> str:
    return datetime.now(UTC).isoformat()
