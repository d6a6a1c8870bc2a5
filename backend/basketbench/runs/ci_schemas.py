"""Webhook and trigger shapes."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from basketbench.changes.detection.exclusions import SpeedExclusion


class WebhookOut(BaseModel):
    delivery: str
    event: str
    run_ids: list[int]
    duplicate: bool = False
    ignored: bool = False


class TriggerIn(BaseModel):
    repository: str | None = Field(default=None, description="default: settings.default_repository")
    commits: list[str] = Field(default_factory=list, max_length=5000)
    commit_from: str | None = None
    commit_to: str | None = None
    tags: list[Annotated[str, Field(min_length=1, max_length=100,
                                    pattern=r"^[A-Za-z0-9_.\-]+$")]] | None = Field(
        default=None, description="default: every registered tag")
    suite: str = Field(default="default", max_length=100)
    codecs: str | None = Field(
        default=None, max_length=100, pattern=r"^[A-Za-z0-9_.\-]+$",
        description="codec set: host, builtin or a named set (e.g. debian-trixie); "
        "default: the suite's, else the worker's")
    branch: str | None = None


class TriggerOut(BaseModel):
    run_ids: list[int]
    commits: list[str]
    tags: list[str]


class TokenCheck(BaseModel):
    name: str


class Health(BaseModel):
    status: str
    database: str
    version: str
    embedded: bool
    detection_pending: int | None = Field(
        default=None, description="documents whose change detection has not run yet "
        "(changes/detection/queue.py); null when the database is unavailable")
    worker_tags: list[str] = Field(
        default_factory=list, description="one line per hardware tag without a live worker "
        "that has queued or expired runs, e.g. 'tag arm64: no worker for 3 h, 12 runs "
        "expired, 0 queued' (GET /worker-tags for details)")
    detection_awaiting_reruns: dict[str, int] | None = Field(
        default=None, description="speed change candidates awaiting their confirmation "
        "reruns, per hardware tag (unconfirmed after detection_pending_timeout, or "
        "detection_worker_silence without a live worker on the tag); null when the "
        "database is unavailable")
    speed_exclusions: list[SpeedExclusion] | None = Field(
        default=None, description="per hardware tag whose newest documents had their speeds "
        "left out of change detection (measured on a busy machine, "
        "detection_skip_busy_runs): how many and why; null when the database is unavailable")
