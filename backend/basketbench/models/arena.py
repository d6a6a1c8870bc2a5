"""The codec arena (docs/arena.md): candidate codecs measured on a ROOT file's own buffers
against ROOT's current setting (`basketbench-arena-v1`, measure/document/arena.py).

``arena_runs`` holds one measurement: a file (by name and content hash) on a machine, with
ROOT's reference layer of a commit (the per-commit stage: the commit's own build) or of none
(`basketbench arena` with the host's layer), the candidates' sources and the load around it.
``arena_results`` holds one row per (candidate, level, ROOT setting compared with, shape):
exact sizes, the interleaved speed ratios candidate / ROOT with their intervals, instruction
counts. `view` says which part of the document a row came from: "candidate" (the file as a
whole), "shape" (one data shape's buffers, `shape` set) or "mapping" (the ZSTD / LZ4 level
mapping around ROOT's setting)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, BigId, Json, Timestamp, utcnow

ARENA_VIEWS = ("candidate", "shape", "mapping")


class ArenaRun(Base):
    __tablename__ = "arena_runs"
    __table_args__ = (
        # idempotent uploads: one document (by its canonical hash) per machine
        Index("ix_arena_runs_document", "machine_id", "document_sha256", unique=True),
        # the latest per file and machine, and a file's history over commits
        Index("ix_arena_runs_file_machine", "file", "machine_id", "id"),
        Index("ix_arena_runs_commit", "commit_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    # the commit whose build was ROOT's reference layer; None: the host's (a CLI run)
    commit_id: Mapped[int | None] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    file: Mapped[str] = mapped_column(String(300))
    file_sha256: Mapped[str] = mapped_column(String(64))
    format: Mapped[str] = mapped_column(String(10))  # ttree | rntuple
    # as the document states it: hostname, cpu model, hardware tag
    host: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    load: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    buffers: Mapped[int] = mapped_column(Integer, default=0)
    embedded_buffers: Mapped[int | None] = mapped_column(Integer)
    uncompressed_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
    # [{candidate, family, version, source, sha256, root_readable}]
    candidates: Mapped[list[dict[str, Any]]] = mapped_column(Json, default=list)
    # ROOT's side: {label, codec_versions} (the layer's path is the worker's, never shown)
    reference: Mapped[dict[str, Any] | None] = mapped_column(Json)
    # how it was measured, as the tool states it (pairs, target, the ratio's definition)
    method: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    # per data shape: {shape: {buffers, bytes}}
    shape_totals: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    document_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class ArenaResult(Base):
    __tablename__ = "arena_results"
    __table_args__ = (
        Index("ix_arena_results_run", "arena_run_id", "view", "candidate", "level"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    arena_run_id: Mapped[int] = mapped_column(ForeignKey("arena_runs.id", ondelete="CASCADE"))
    view: Mapped[str] = mapped_column(String(10))  # candidate | shape | mapping
    candidate: Mapped[str] = mapped_column(String(100))
    family: Mapped[str] = mapped_column(String(10))
    level: Mapped[int] = mapped_column(Integer)
    shape: Mapped[str | None] = mapped_column(String(100))
    reference_setting: Mapped[int] = mapped_column(Integer)
    # level mapping: the ROOT setting that reaches this native level (None: none does)
    root_setting: Mapped[int | None] = mapped_column(Integer)
    # sizes are None only for a failed result (`error`)
    compressed_bytes: Mapped[int | None] = mapped_column(BigInteger)
    reference_bytes: Mapped[int | None] = mapped_column(BigInteger)
    size_change_pct: Mapped[float | None] = mapped_column(Float)
    identical_to_reference: Mapped[bool | None] = mapped_column(Boolean)
    # None on a level-mapping row without its whole-file result
    roundtrip_ok: Mapped[bool | None] = mapped_column(Boolean)
    root_readable: Mapped[bool | None] = mapped_column(Boolean)
    error: Mapped[str | None] = mapped_column(Text)
    # candidate speed / ROOT speed: median of the interleaved pairs' ratios and its interval
    compress_ratio: Mapped[float | None] = mapped_column(Float)
    compress_ci_low: Mapped[float | None] = mapped_column(Float)
    compress_ci_high: Mapped[float | None] = mapped_column(Float)
    compress_pairs: Mapped[int | None] = mapped_column(Integer)
    compress_disturbed_pairs: Mapped[int | None] = mapped_column(Integer)
    decompress_ratio: Mapped[float | None] = mapped_column(Float)
    decompress_ci_low: Mapped[float | None] = mapped_column(Float)
    decompress_ci_high: Mapped[float | None] = mapped_column(Float)
    decompress_pairs: Mapped[int | None] = mapped_column(Integer)
    decompress_disturbed_pairs: Mapped[int | None] = mapped_column(Integer)
    # instructions per MB of uncompressed data (callgrind), the candidate's and ROOT's
    compress_instructions: Mapped[float | None] = mapped_column(Float)
    decompress_instructions: Mapped[float | None] = mapped_column(Float)
    reference_compress_instructions: Mapped[float | None] = mapped_column(Float)
    reference_decompress_instructions: Mapped[float | None] = mapped_column(Float)
