"""Lossy float sweeps (issue 36): `basketbench lossy` on one file with one commit's codecs.

Sizes and errors are exact (they depend on the data, the representation and the codec code,
not on the machine), so a sweep belongs to a commit, a file (by content hash) and a codec set,
like branch sizes; a new upload of the same triple replaces the old one. One row of
``lossy_results`` per (column, representation, bits, setting): the dimensions the page plots
and whose history over commits is a series."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, BigId, Json, Timestamp, utcnow


class LossySweep(Base):
    __tablename__ = "lossy_sweeps"
    __table_args__ = (
        UniqueConstraint("commit_id", "file_sha256", "codecs", name="uq_lossy_sweeps_identity"),
        Index("ix_lossy_sweeps_file", "file", "codecs"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    file: Mapped[str] = mapped_column(String(300))
    file_sha256: Mapped[str] = mapped_column(String(64))
    codecs: Mapped[str] = mapped_column(String(100), default="host")
    tool: Mapped[str | None] = mapped_column(String(100))
    settings: Mapped[list[int]] = mapped_column(Json, default=list)
    columns: Mapped[int] = mapped_column(Integer, default=0)
    physics: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)
    notes: Mapped[list[str]] = mapped_column(Json, default=list)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class LossyResult(Base):
    __tablename__ = "lossy_results"
    __table_args__ = (
        Index("ix_lossy_results_sweep", "sweep_id", "setting", "column"),
        Index("ix_lossy_results_series", "column", "representation", "bits", "setting"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    sweep_id: Mapped[int] = mapped_column(ForeignKey("lossy_sweeps.id", ondelete="CASCADE"))
    column: Mapped[str] = mapped_column(String(300))
    representation: Mapped[str] = mapped_column(String(10))  # full | half | trunc | quant
    bits: Mapped[int] = mapped_column(Integer)
    setting: Mapped[int] = mapped_column(Integer)
    compressed_bytes: Mapped[int] = mapped_column(BigInteger)
    uncompressed_bytes: Mapped[int] = mapped_column(BigInteger)
    max_abs_error: Mapped[float] = mapped_column(Float)
    max_rel_error: Mapped[float] = mapped_column(Float)
    rms_rel_error: Mapped[float] = mapped_column(Float)
