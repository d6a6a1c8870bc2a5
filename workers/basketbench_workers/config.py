"""Worker settings: one object, read from BASKETBENCH_* environment variables."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

# bench-harness/ of this checkout: the rzbench sources the worker builds against each ROOT tree.
_REPO_ROOT = Path(__file__).resolve().parents[2]


class WorkerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="BASKETBENCH_", extra="ignore")

    broker_url: str | None = None
    api_url: str = "http://127.0.0.1:8000"
    api_token: str | None = None

    # Repository whose commits are benchmarked (path or URL).
    root_repo: str | None = None
    # Persistent state: git mirror, worktrees, build cache, corpus cache.
    worker_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "basketbench-worker")
    # Build profile name, or "auto" (chosen from the checked-out tree).
    profile: str = "auto"
    # Extra directories holding profile / suite TOML files (operators add layouts without code).
    profiles_dir: Path | None = None
    suites_dir: Path | None = None
    harness_source: Path = _REPO_ROOT / "bench-harness"
    # Files the dashboard may ask this worker to advise on (POST /advise paths are relative to
    # it); unset: the worker refuses advise runs.
    data_root: Path | None = None

    machine_name: str | None = None
    # Hardware tag (= Celery queue) when `basketbench worker` gets no --tag; unset = detected.
    tag: str | None = None
    heartbeat_seconds: float = 30.0

    # Fault handling.
    max_attempts: int = 3
    # Redis redelivers an unacked task after this many seconds. Unset = the run's hard time
    # limit (every stage at its limit) plus 10 minutes, so a healthy run is never redelivered;
    # a killed worker's run is requeued much sooner by the API's heartbeat reaper, and the
    # message redelivered later is dropped (its generation is stale).
    visibility_timeout: int | None = None
    # How often a consumer sweeps for unacked messages older than visibility_timeout.
    unacked_restore_interval: int = 10
    unacked_restore_throttle: int = 10
    stage_timeout_checkout: float = 600.0
    stage_timeout_build: float = 1800.0
    stage_timeout_benchmark: float = 3 * 3600.0
    stage_timeout_upload: float = 300.0
    http_timeout: float = 30.0
    build_jobs: int = 2
    # Codec set of runs whose trigger and suite name none: host, builtin or a named set.
    codecs: str = "host"
    # Extra named codec sets (TOML) and the cache of codec sources and builds (outside clones).
    codecsets_dir: Path | None = None
    codec_cache: Path = Field(
        default_factory=lambda: Path.home() / ".cache" / "basketbench" / "codecs"
    )

    # The sandbox of commit code (docs/security.md). "required": a worker where it does not
    # work refuses to build or run commits; "off": no isolation, for trusted repositories only.
    sandbox: Literal["required", "off"] = "required"
    # The unprivileged user sandboxed commands run as (a root worker switches to it; a worker
    # that is not root gets it in a user namespace). Its process count is what the process
    # limit bounds, so a uid no other program uses is best.
    sandbox_uid: int = 65534
    sandbox_gid: int = 65534
    sandbox_memory_mb: int = 4096  # address space of each sandboxed process
    sandbox_processes: int = 256  # processes + threads of the sandbox user at once
    sandbox_file_mb: int = 4096  # largest file a sandboxed command may write
    sandbox_tmp_mb: int = 1024  # its private /tmp
    # Extra variables (names, comma-separated) passed into the sandbox; nothing else is.
    sandbox_env: str = ""
    # Extra directories it may read (os.pathsep-separated), e.g. a compiler outside /usr.
    sandbox_readable: str = ""
    # Tests and benchmarks only (docs/perf/ab.md): build every ROOT-profile commit with
    # -DBASKETBENCH_PLANTED_WORK_PERCENT=<this>, which a fixture commit's codec code reads to
    # do that much deliberate extra work. Never set on a real worker.
    test_planted_work_percent: float | None = None
    # Limit of the A/B stage (pipeline/abstage.py) after the benchmark.
    stage_timeout_ab: float = 1800.0
    # the codec arena (suites with an [arena] table): candidates' builds and their A/B pairs
    stage_timeout_arena: float = 1800.0

    def stage_timeout(self, stage: str) -> float:
        return float(getattr(self, f"stage_timeout_{stage}"))

    @property
    def effective_visibility_timeout(self) -> int:
        if self.visibility_timeout is not None:
            return self.visibility_timeout
        return int(self.run_time_limit) + 600

    @property
    def run_time_limit(self) -> float:
        """Hard limit of one task: every stage at its limit, plus slack."""
        stages = ("checkout", "build", "benchmark", "ab", "arena", "upload")
        return sum(self.stage_timeout(s) for s in stages) + 120.0


@lru_cache(maxsize=1)
def get_settings() -> WorkerSettings:
    return WorkerSettings()
