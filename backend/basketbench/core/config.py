"""One settings object for the whole backend.

Values come from environment variables prefixed ``BASKETBENCH_`` or from a
settings file named by ``BASKETBENCH_SETTINGS_FILE`` (``.env`` style
``KEY=value`` lines, or TOML when the name ends in ``.toml``); the
environment wins over the file. See docs/configuration.md.
"""

from __future__ import annotations

import json
import os
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

ENV_PREFIX = "BASKETBENCH_"


class _TomlSource(PydanticBaseSettingsSource):
    """Reads a TOML settings file; keys with or without the prefix, any case."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        super().__init__(settings_cls)
        self._data: dict[str, Any] = {}
        raw = tomllib.loads(path.read_text())
        table = raw.get("basketbench", raw)
        for key, value in table.items():
            name = key.lower().removeprefix(ENV_PREFIX.lower())
            self._data[name] = value

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return {k: v for k, v in self._data.items() if k in self.settings_cls.model_fields}


def _settings_file() -> Path | None:
    name = os.environ.get(ENV_PREFIX + "SETTINGS_FILE")
    return Path(name) if name else None


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="ignore")

    database_url: str | None = None
    """SQLAlchemy URL; unset = SQLite file ``<data_dir>/basketbench.sqlite``."""
    data_dir: Path = Path(".basketbench")
    broker_url: str | None = None
    """Celery broker (e.g. redis://127.0.0.1:6379/0); unset = embedded mode."""
    webhook_secret: str | None = None
    private_reads: bool = False
    frontend_dist: Path | None = None
    cors_origins: Annotated[list[str], NoDecode] = []
    default_repository: str = "root-project/root"
    default_suite: str = "default"
    log_level: str = "info"
    dispatch: Literal["auto", "none"] = "auto"
    """auto: Celery when broker_url is set, else inline (embedded); none: runs stay
    'queued' in the database (external schedulers, tests)."""
    api_workers: int = Field(1, ge=1)
    """uvicorn worker processes of ``basketbench serve`` (PostgreSQL only; one with SQLite).
    Ingest is CPU-bound Python: one process per core lets uploads run in parallel."""
    db_pool_size: int = 10
    db_max_overflow: int = 5
    db_pool_timeout: float = 2.0
    """Seconds a request waits for a free pooled connection before answering 503."""
    db_connect_timeout: int = 3
    """Seconds to open a PostgreSQL connection (libpq's minimum is 2)."""
    db_statement_timeout: float = 15.0
    """Seconds one SQL statement may run. The server cancels it; a server that does not
    answer at all is cut off by the client 2 s later (core/dbguard.py). 0 = no limit."""
    db_ping_timeout: float = Field(1.5, gt=0)
    """Seconds the checkout ping (``SELECT 1`` before a pooled connection is used) may take
    before the connection is cut and replaced: a silent database is noticed this quickly,
    not after a whole statement's deadline."""
    retry_after: int = 5
    """Retry-After (seconds) of the 503 answers given while the database is unavailable."""
    broker_timeout: float = 3.0
    """Seconds per broker connect / socket operation when the dispatcher publishes a run."""
    dispatch_interval: float = 2.0
    """Seconds between the dispatcher's passes over the outbox (it is also woken at once
    when a request queues runs)."""
    dispatch_backoff_min: float = 1.0
    dispatch_backoff_max: float = 60.0
    """Waits before retrying runs the broker did not take: from dispatch_backoff_min,
    doubling per failure, at most dispatch_backoff_max seconds."""
    run_heartbeat_timeout: float = 180.0
    """A running run whose worker sent nothing for this long is requeued (its worker was
    killed); keep it well above the workers' BASKETBENCH_HEARTBEAT_SECONDS."""
    run_max_attempts: int = 3
    """A run whose worker was lost this many times is failed instead of requeued."""
    reap_interval: float = 15.0
    """Seconds between the reaper's looks for runs with a stopped heartbeat."""
    worker_tag_ttl: float = Field(7 * 86400.0, gt=0)
    """New commits get runs only for tags a worker served within this many seconds (or
    that an operator declared, PUT /worker-tags/{tag}); tags of machines registered by
    ingest alone get none."""
    worker_live_seconds: float = Field(600.0, gt=0)
    """A tag's worker counts as live if it was seen (registration, heartbeat, claim) this
    recently; keep it well above the workers' BASKETBENCH_HEARTBEAT_SECONDS."""
    run_queue_expiry: float = Field(6 * 3600.0, ge=0)
    """Queued runs older than this, of a tag with no live worker, are expired (cancelled,
    stage `expired`, the reason in their log) by the reaper. 0: never."""
    max_in_flight: int = 64
    """API requests served at once; more get 503 + Retry-After (web/guards.py)."""
    max_exports: int = 2
    """CSV exports streamed at once; more get 429 + Retry-After."""
    gc: Literal["tuned", "default"] = "tuned"
    """Garbage collector settings of the API process (core/gc_tuning.py)."""
    # Change detection and notifications (issue 11; docs/configuration.md).
    detection: bool = True
    """Run change detection after every ingest."""
    detection_min_effect: Annotated[dict[str, float], NoDecode] = {}
    """Minimum speed effect in % per series pattern (fnmatch on
    ``tag/dataset/configuration label/metric``), e.g. ``*/LZMA-*/*=3;*/hzz/*=2.5``;
    the first match wins, else detection_default_min_effect."""
    detection_default_min_effect: float = 2.0
    detection_fdr: float = 0.05
    detection_confirm_runs: int = 2
    """Reruns of the suspect commit and of its parent each, interleaved; 0 = none."""
    detection_rerun_budget: float = 1.0
    """Confirmation reruns a tag may spend per commit measured by regular runs, over a
    window of detection_budget_commits such commits (a young history's window counts as
    full), a quarter of it kept for strong evidence (stats/budget.py); candidates beyond
    it are left unconfirmed with the reason (listed, never alerted). A/B candidates are
    confirmed by one more A/B, outside this budget."""
    detection_budget_commits: int = 50
    detection_pending_timeout: float = 86400.0
    """Seconds a speed candidate may wait for its reruns before it is marked
    unconfirmed."""
    detection_worker_silence: float = 1800.0
    """A tag whose machines sent no heartbeat for this many seconds has no live worker:
    its candidates older than that are marked unconfirmed (their queued reruns
    cancelled)."""
    detection_drift_min_pct: float = 3.0
    """Smallest slow shift (in %) over detection_drift_window commits reported as a
    drift."""
    detection_drift_window: int = 120
    """Commits (regular runs) the drift rule looks back over."""
    detection_skip_busy_runs: bool = True
    """Leave the speeds of runs made on a busy machine (their document's load.busy, judged
    at ingest by measure/rzbench/noise.py: other work beside the run's own of at least half
    the cores, or steal) out of the screen; /health, the changes and runs pages say so.
    Off where every machine is shared and busy, e.g. integration tests on CI."""
    detection_screen_points: bool = True
    """A pass reads its window's points from screen_points (one packed row per document,
    written at ingest: changes/detection/points.py) instead of the window's results rows.
    Off: the reload from results (the same verdicts, several times the CPU)."""
    detection_count_threshold: float = 0.5
    """Instruction counts (issue 23): a change of more than this many % is a code change from
    one run, no reruns (stats/counts.py)."""
    notify_webhook_url: str | None = None
    """Slack / Mattermost compatible incoming-webhook URL for confirmed changes."""
    notify_attempts: int = 6
    """Attempts per delivery (webhook, GitHub status, pull-request listing, comment)
    before it is recorded as failed; a final answer (most 4xx) stops at once."""
    notify_backoff_min: float = 2.0
    """Wait (s) before the first retry after an error or a 5xx; doubles per attempt,
    at most notify_max_wait."""
    notify_max_wait: float = 60.0
    """Longest wait (s) for a retry, also when a rate limit says to wait longer."""
    notify_lease: float = 60.0
    """Seconds an API process holds a delivery it is sending; after that (its process
    was killed) another one takes it over. Requests time out at half of it (10 s max)."""
    github_token: str | None = None
    github_api_url: str = "https://api.github.com"
    public_url: str = "http://127.0.0.1:8000"
    """Where people open the dashboard: links in notifications."""

    @field_validator("detection_min_effect", mode="before")
    @classmethod
    def _patterns(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            if value.startswith("{"):
                return json.loads(value)
            out: dict[str, float] = {}
            for part in filter(None, (p.strip() for p in value.split(";"))):
                pattern, sep, pct = part.rpartition("=")
                if not sep or not pattern:
                    raise ValueError(f"expected pattern=percent, got {part!r}")
                out[pattern.strip()] = float(pct)
            return out
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            if value.startswith("["):
                return json.loads(value)
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @field_validator("database_url")
    @classmethod
    def _normalise_url(cls, value: str | None) -> str | None:
        # Plain postgres URLs get the psycopg 3 driver.
        if value and value.startswith(("postgres://", "postgresql://")):
            return "postgresql+psycopg://" + value.split("://", 1)[1]
        return value or None

    @property
    def sqlalchemy_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'basketbench.sqlite').resolve()}"

    @property
    def embedded(self) -> bool:
        return not self.broker_url

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        sources: list[PydanticBaseSettingsSource] = [init_settings, env_settings]
        path = _settings_file()
        if path is not None:
            if path.suffix == ".toml":
                sources.append(_TomlSource(settings_cls, path))
            else:
                from pydantic_settings import DotEnvSettingsSource

                sources.append(
                    DotEnvSettingsSource(settings_cls, env_file=path, env_prefix=ENV_PREFIX)
                )
        return tuple(sources)


@lru_cache
def get_settings() -> Settings:
    return Settings()
