"""Runs: one commit x machine (tag) x suite, moved along by a worker."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json, Timestamp, utcnow

RUN_STATUSES = ("queued", "running", "succeeded", "failed", "cancelled")


class Run(Base):
    __tablename__ = "runs"
    __table_args__ = (
        Index("ix_runs_commit_id", "commit_id"),
        Index("ix_runs_status_created", "status", "created_at"),
        Index("ix_runs_tag", "tag"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    machine_id: Mapped[int | None] = mapped_column(ForeignKey("machines.id", ondelete="SET NULL"))
    tag: Mapped[str] = mapped_column(String(100))
    suite: Mapped[str] = mapped_column(String(100), default="default")
    # Codec set the trigger asked for (host, builtin, a named set); None: the suite's.
    codecs: Mapped[str | None] = mapped_column(String(100))
    status: Mapped[str] = mapped_column(String(20), default="queued")
    stage: Mapped[str | None] = mapped_column(String(50))
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    trigger: Mapped[str] = mapped_column(String(50), default="manual")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(Timestamp)
    finished_at: Mapped[datetime | None] = mapped_column(Timestamp)
    timings: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    log_tail: Mapped[str | None] = mapped_column(Text)
    build_cache_hit: Mapped[bool | None] = mapped_column(Boolean)
    result_count: Mapped[int] = mapped_column(Integer, default=0)
    # Bumped each time the run is (re)queued: a Celery message carries the generation it was
    # sent for, and only a message of the current generation may claim the run (exactly once).
    generation: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Refreshed by every worker update while running; the reaper requeues a run whose
    # heartbeat stopped (its worker was killed).
    heartbeat_at: Mapped[datetime | None] = mapped_column(Timestamp)
    # The token that claimed the run at its current generation: only it may store the run's
    # advice (a machine token cannot write another worker's runs).
    claimed_by_token_id: Mapped[int | None] = mapped_column(
        ForeignKey("api_tokens.id", ondelete="SET NULL"))


class RunDispatch(Base):
    """The outbox: the intent to hand a run (at one generation) to the broker, written in
    the same transaction as the run. The dispatcher publishes it and marks it sent."""

    __tablename__ = "run_dispatches"
    __table_args__ = (
        UniqueConstraint("run_id", "generation"),
        Index("ix_run_dispatches_pending", "sent_at", "due_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    generation: Mapped[int] = mapped_column(Integer, default=0)
    tag: Mapped[str] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    due_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    sent_at: Mapped[datetime | None] = mapped_column(Timestamp)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
