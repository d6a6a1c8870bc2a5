"""Results (run x dataset x configuration on a commit x machine) and the documents
they came from. ``commit_id`` and ``machine_id`` are copied onto every result so the
history / tradeoff / compare queries hit one table through one index each."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, BigId, Json, Timestamp, utcnow

SPEED_METRICS = ("compress_mbps", "decompress_mbps")
SERIES_INCLUDE = ("ratio", "compressed_bytes", "c_median", "c_min", "c_max", "c_stddev", "c_n",
                  "d_median", "d_min", "d_max", "d_stddev", "d_n", "run_id", "codec_set_id")
EXACT_METRICS = ("ratio", "compressed_bytes")
# Instruction counts per uncompressed MB (issue 23, measure/rzbench/counting.py): near-exact, judged
# from one run by stats/counts.py, not tested like speeds.
COUNT_METRICS = ("compress_instructions_per_mb", "decompress_instructions_per_mb")
METRICS = EXACT_METRICS + SPEED_METRICS + COUNT_METRICS

# Foreign keys of results that PostgreSQL enforces by statement triggers instead, once per
# COPY rather than once per row (migration 0010); SQLite keeps them as declared.
TRIGGER_CHECKED = frozenset({
    "fk_results_document_id_result_documents", "fk_results_dataset_id_datasets",
    "fk_results_configuration_id_configurations"})


def schema_object_compared(dialect: str) -> Any:
    """An Alembic ``include_object`` filter: on PostgreSQL the trigger-checked foreign keys
    are not expected in the database."""

    def include(obj: Any, name: str | None, type_: str, _reflected: bool,
                _compare_to: Any) -> bool:
        return not (dialect == "postgresql" and type_ == "foreign_key_constraint"
                    and name in TRIGGER_CHECKED)

    return include


class Build(Base):
    """How a document's numbers were produced (its harness, build profile and ROOT commit;
    the build columns of result_documents, migration 0017), stored once: each document
    refers to its own by ``build_id`` (migration 0043), so a history's provenance reads
    integers instead of a machine's documents' strings. Rows never change."""

    __tablename__ = "builds"

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of the columns below
    tool: Mapped[str | None] = mapped_column(String(100))
    backend: Mapped[str | None] = mapped_column(String(20))
    root_commit: Mapped[str | None] = mapped_column(String(64))
    build_profile: Mapped[str | None] = mapped_column(String(100))
    build_profile_version: Mapped[str | None] = mapped_column(String(50))
    harness_hash: Mapped[str | None] = mapped_column(String(64))


class ResultDocument(Base):
    """One ingested document; ``sha256`` of its canonical JSON makes ingest idempotent."""

    __tablename__ = "result_documents"
    __table_args__ = (
        # Provenance of history points, compare sides and change records, /machines' counts
        # (migrations 0017, 0024): everything they read is in the index, so a machine's
        # documents (a third of the table) are an index-only scan in (commit, id) order.
        Index("ix_result_documents_machine_commit", "machine_id", "commit_id", "id",
              postgresql_include=["codec_set_id", "tool", "backend", "root_commit",
                                  "build_profile", "build_profile_version", "harness_hash",
                                  "busy", "result_count", "build_id"]),
        Index("ix_result_documents_run_id", "run_id"),  # run listings' codec sets
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    kind: Mapped[str] = mapped_column(String(20), default="harness")
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    tool: Mapped[str | None] = mapped_column(String(100))
    backend: Mapped[str | None] = mapped_column(String(20))
    root_commit: Mapped[str | None] = mapped_column(String(64))
    parameters: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    codec_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("codec_sets.id", ondelete="RESTRICT"))
    result_count: Mapped[int] = mapped_column(Integer, default=0)
    # How rzbench was built (the document's optional `build`, migration 0017): the build
    # profile of ROOT's compression layer and the content hash of the harness sources.
    build_profile: Mapped[str | None] = mapped_column(String(100))
    build_profile_version: Mapped[str | None] = mapped_column(String(50))
    harness_hash: Mapped[str | None] = mapped_column(String(64))
    # The same build columns' row in ``builds`` (NULL only for a document written without
    # it: its points then show no build).
    build_id: Mapped[int | None] = mapped_column(ForeignKey("builds.id", ondelete="RESTRICT"))
    created_at: Mapped[datetime | None] = mapped_column(Timestamp)
    received_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # The machine's load around the run (the document's `load`, measure/rzbench/noise.py); busy: its
    # speeds are not tested (NULL: not recorded, documents before migration 0014).
    load: Mapped[dict[str, Any] | None] = mapped_column(Json)
    busy: Mapped[bool | None] = mapped_column(Boolean)


class Result(Base):
    __tablename__ = "results"
    __table_args__ = (
        # history: one series (machine, dataset, configuration) over commits. A series'
        # rows sit on as many heap pages as it has commits; INCLUDE-ing what history
        # aggregates makes it an index-only scan on PostgreSQL (ignored on SQLite).
        Index("ix_results_series", "machine_id", "dataset_id", "configuration_id", "commit_id",
              postgresql_include=list(SERIES_INCLUDE)),
        # tradeoff (commit, machine, dataset) and compare (commit, machine[, dataset])
        Index("ix_results_commit_machine", "commit_id", "machine_id", "dataset_id",
              "configuration_id"),
        Index("ix_results_run_id", "run_id"),
        Index("ix_results_document_id", "document_id"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    document_id: Mapped[int] = mapped_column(
        ForeignKey("result_documents.id", ondelete="CASCADE"))
    # Copies of the document's run / commit / machine, without foreign keys of their own:
    # result_documents holds those constraints and results.document_id cascades, so a
    # deleted commit or machine still takes its results along. Three fewer row-level
    # checks per COPY-ed result (migration 0003: -37 % database CPU on ingest). Code that
    # deletes a run must also clear results.run_id (nothing deletes runs today).
    run_id: Mapped[int | None] = mapped_column(Integer)
    commit_id: Mapped[int] = mapped_column(Integer)
    machine_id: Mapped[int] = mapped_column(Integer)
    # Copy of the document's codec set (no foreign key of its own, like machine_id): part
    # of the series, see models/codecs.py. NULL only for rows written before migration 0006.
    codec_set_id: Mapped[int | None] = mapped_column(Integer)
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    configuration_id: Mapped[int] = mapped_column(
        ForeignKey("configurations.id", ondelete="CASCADE"))
    uncompressed_bytes: Mapped[int | None] = mapped_column(BigInteger)
    compressed_bytes: Mapped[int | None] = mapped_column(BigInteger)
    ratio: Mapped[float | None] = mapped_column(Float)
    roundtrip_ok: Mapped[bool] = mapped_column(Boolean, default=True)
    error: Mapped[str | None] = mapped_column(Text)
    dictionary_train_ms: Mapped[float | None] = mapped_column(Float)
    c_median: Mapped[float | None] = mapped_column(Float)
    c_min: Mapped[float | None] = mapped_column(Float)
    c_max: Mapped[float | None] = mapped_column(Float)
    c_mean: Mapped[float | None] = mapped_column(Float)
    c_stddev: Mapped[float | None] = mapped_column(Float)
    c_cv: Mapped[float | None] = mapped_column(Float)
    c_n: Mapped[int | None] = mapped_column(Integer)
    c_samples: Mapped[list[float] | None] = mapped_column(Json)
    d_median: Mapped[float | None] = mapped_column(Float)
    d_min: Mapped[float | None] = mapped_column(Float)
    d_max: Mapped[float | None] = mapped_column(Float)
    d_mean: Mapped[float | None] = mapped_column(Float)
    d_stddev: Mapped[float | None] = mapped_column(Float)
    d_cv: Mapped[float | None] = mapped_column(Float)
    d_n: Mapped[int | None] = mapped_column(Integer)
    d_samples: Mapped[list[float] | None] = mapped_column(Json)
    # Instruction counts of one counted pass (callgrind), total and per uncompressed MB, and
    # the estimated cycles per MB (model in the document's instructions.cycle_model).
    c_instructions: Mapped[int | None] = mapped_column(BigInteger)
    c_instructions_per_mb: Mapped[float | None] = mapped_column(Float)
    c_cycles_per_mb: Mapped[float | None] = mapped_column(Float)
    d_instructions: Mapped[int | None] = mapped_column(BigInteger)
    d_instructions_per_mb: Mapped[float | None] = mapped_column(Float)
    d_cycles_per_mb: Mapped[float | None] = mapped_column(Float)
