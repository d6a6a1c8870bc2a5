"""Machines: a hardware tag plus a fingerprint; a new fingerprint is a new version."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json, Timestamp, utcnow


class Machine(Base):
    __tablename__ = "machines"
    __table_args__ = (
        UniqueConstraint("name", "fingerprint_hash"),
        UniqueConstraint("name", "version"),
        Index("ix_machines_tag", "tag"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    tag: Mapped[str] = mapped_column(String(100))
    version: Mapped[int] = mapped_column(Integer, default=1)
    fingerprint: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    fingerprint_hash: Mapped[str] = mapped_column(String(64))
    registered_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    last_heartbeat: Mapped[datetime | None] = mapped_column(Timestamp)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
