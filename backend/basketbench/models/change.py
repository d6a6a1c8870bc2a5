"""Changes found by detection, and the notifications sent about them.

A change belongs to one series (machine version x dataset x configuration x metric x
codec series, see models/codecs.py; ``codec_set_id`` is the set the changed commit was
measured with) and one commit (the first commit with the new level) with its parent (the last
measured commit before it). ``state`` is detection's own verdict (confirming ->
confirmed / rejected, or unconfirmed when its reruns never came: listed, not alerted;
exact metrics and drifts are confirmed at once); ``status`` is the people's workflow
(open, acknowledged, fixed, ignored). ``kind``: exact | speed | drift."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json, Timestamp, utcnow

CHANGE_STATES = ("confirming", "confirmed", "rejected", "unconfirmed")
CHANGE_KINDS = ("exact", "speed", "drift")
CHANGE_STATUSES = ("open", "acknowledged", "fixed", "ignored")
DIRECTIONS = ("regression", "improvement")


class Change(Base):
    __tablename__ = "changes"
    __table_args__ = (
        UniqueConstraint("machine_id", "dataset_id", "configuration_id", "metric", "commit_id",
                         "codec_set_id", name="uq_changes_series_commit"),
        Index("ix_changes_commit_machine", "commit_id", "machine_id"),
        Index("ix_changes_series", "machine_id", "dataset_id", "configuration_id", "metric"),
        Index("ix_changes_state_status", "state", "status"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    parent_commit_id: Mapped[int | None] = mapped_column(
        ForeignKey("commits.id", ondelete="SET NULL"))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    configuration_id: Mapped[int] = mapped_column(
        ForeignKey("configurations.id", ondelete="CASCADE"))
    metric: Mapped[str] = mapped_column(String(30))
    # NULL: results stored before codec sets existed (the "legacy" series)
    codec_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("codec_sets.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(10))  # exact | speed | drift
    # exact | count | single | pair | edivisive | revert | drift (count: kind exact, issue 23)
    test: Mapped[str] = mapped_column(String(20))
    direction: Mapped[str] = mapped_column(String(12))
    base_value: Mapped[float | None] = mapped_column(Float)
    head_value: Mapped[float | None] = mapped_column(Float)
    delta_pct: Mapped[float] = mapped_column(Float)
    ci_low_pct: Mapped[float | None] = mapped_column(Float)
    ci_high_pct: Mapped[float | None] = mapped_column(Float)
    p_value: Mapped[float | None] = mapped_column(Float)
    q_value: Mapped[float | None] = mapped_column(Float)
    min_effect_pct: Mapped[float | None] = mapped_column(Float)
    state: Mapped[str] = mapped_column(String(12), default="confirming")
    # why it is unconfirmed (or rejected without reruns)
    state_reason: Mapped[str | None] = mapped_column(Text)
    # a change back to the level before an earlier change of its series, and that one
    reverts_id: Mapped[int | None] = mapped_column(Integer)
    reverted_by_id: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(14), default="open")
    status_by: Mapped[str | None] = mapped_column(String(200))
    status_reason: Mapped[str | None] = mapped_column(Text)
    status_at: Mapped[datetime | None] = mapped_column(Timestamp)
    # reference window, samples, screen family size, ...
    evidence: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    # {"run_ids": [...], "result": {...}} of the interleaved reruns
    confirmation: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    # {"status": ..., "good": sha, "bad": sha, "candidates": [...], "steps": [...]}
    bisection: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    detected_run_id: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    confirmed_at: Mapped[datetime | None] = mapped_column(Timestamp)
    notified_at: Mapped[datetime | None] = mapped_column(Timestamp)


class NotificationDelivery(Base):
    """One notification (webhook, GitHub status, pull-request listing, PR comment) and
    every attempt to send it. Also the outbox: a row is written ``pending`` in the
    transaction that confirms its changes, and the API processes' notification
    dispatchers (changes/notify/dispatcher.py) claim it, send it and retry it, so a
    restart loses nothing and two processes never send one row twice."""

    __tablename__ = "notification_deliveries"
    __table_args__ = (Index("ix_notification_deliveries_commit", "commit_id"),
                      Index("ix_notification_deliveries_due", "status", "due_at"))

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    machine_id: Mapped[int | None] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    # webhook | github-status | github-pulls | github-comment
    channel: Mapped[str] = mapped_column(String(30))
    target: Mapped[str] = mapped_column(String(1000))
    status: Mapped[str] = mapped_column(String(12))  # pending | sent | failed
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    response_code: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[str | None] = mapped_column(Text)
    change_ids: Mapped[list[int]] = mapped_column(Json, default=list)
    payload: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # The outbox: when the next attempt is due (NULL once sent or given up), until when
    # a dispatcher holds the row, and a counter bumped by every claim (an attempt whose
    # claim was taken over is not recorded).
    due_at: Mapped[datetime | None] = mapped_column(Timestamp)
    lease_until: Mapped[datetime | None] = mapped_column(Timestamp)
    claims: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    sent_at: Mapped[datetime | None] = mapped_column(Timestamp)
    # [{"at", "code", "error", "retry_in"}]: every attempt, oldest first
    attempt_log: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)


class PendingDetection(Base):
    """The detection outbox: a stored document whose commit is still to be screened,
    written in the ingest's transaction (changes/detection/queue.py). A pass takes the
    rows of one machine, commit and run together and deletes them in its own transaction,
    so a pass is never lost (the API killed after its answer) and one pass covers every
    document of a commit that arrived meanwhile."""

    __tablename__ = "detection_queue"
    __table_args__ = (Index("ix_detection_queue_machine", "machine_id", "due_at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("result_documents.id", ondelete="CASCADE"), unique=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    run_id: Mapped[int | None] = mapped_column(Integer)  # groups a run's documents
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # NULL once given up (a pass failed DETECTION_MAX_TRIES times; last_error says why)
    due_at: Mapped[datetime | None] = mapped_column(Timestamp, default=utcnow)
    tries: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
