"""Runs as seen by the UI and updated by workers."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from basketbench.schemas.common import Page
from basketbench.schemas.refs import CodecSetOut, WorkerTagOut  # noqa: F401 (re-exported)

RunStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class RunOut(BaseModel):
    id: int
    commit: str
    repository: str
    tag: str
    machine: str | None
    machine_id: int | None
    suite: str
    status: str
    stage: str | None
    progress: float
    trigger: str
    attempts: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    timings: dict[str, Any]
    log_tail: str | None
    build_cache_hit: bool | None
    result_count: int
    codecs: str | None = Field(
        default=None, description="codec set the trigger asked for; null: the suite's")
    codec_set: CodecSetOut | None = Field(
        default=None, description="codec set the results were measured with (set, "
        "root_version, libraries, series_key); single-run answers only")
    change_ids: list[int] = Field(
        default_factory=list, description="confirmation runs (trigger confirm): the changes "
        "they were queued to confirm; listings only")
    change_commit: str | None = Field(
        default=None, description="confirmation runs: the commit of those changes")
    speed_excluded: str | None = Field(
        default=None, description="when change detection left this run's speeds out "
        "(measured on a busy machine, detection_skip_busy_runs): why; listings only")


class RunPage(Page[RunOut]):
    pass


class QueueOut(BaseModel):
    """One hardware tag's queue, counted over every run (not one page of them)."""

    tag: str
    counts: dict[str, int]
    running: list[RunOut]


class RunUpdate(BaseModel):
    """Worker update; every field optional, only given fields change."""

    status: RunStatus | None = None
    stage: str | None = Field(default=None, max_length=50)
    progress: float | None = Field(default=None, ge=0, le=1)
    log_tail: str | None = None
    timings: dict[str, Any] | None = None
    build_cache_hit: bool | None = None
    machine_id: int | None = None
    attempts: int | None = Field(default=None, ge=0)
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @model_validator(mode="after")
    def _no_null_for_required_columns(self) -> RunUpdate:
        # Optional means "may be left out": an explicit null for a column that always has
        # a value (status, progress, attempts, timings) is a 422, not a NOT NULL error.
        nulls = [name for name in ("status", "progress", "attempts", "timings")
                 if name in self.model_fields_set and getattr(self, name) is None]
        if nulls:
            raise ValueError(f"{', '.join(nulls)}: may be left out but not null")
        return self


class RunClaim(BaseModel):
    """A worker's claim of a run for the generation its task message carries."""

    generation: int = Field(ge=0, le=2**31 - 1)
    machine_id: int | None = Field(default=None, ge=1, le=2**31 - 1)


