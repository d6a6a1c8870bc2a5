"""Interleaved A/B comparisons (issue 32): two builds of ROOT's compression layer measured in
one rzbench process, in alternating repetitions of the same work, on one machine.

``ab_runs`` holds one comparison: the commit measured (side B) against its reference (side A:
the commit's parent, the previous measured commit of the series, a pinned release, or another
commit asked for from the compare page) and how disturbed the run was; ``ab_effects`` holds
one row per (dataset, configuration, metric): the median of the per-pair speed ratios B/A,
its confidence interval and the pairs behind it. Load, frequency and neighbours hit both
sides of a pair alike, so these ratios survive a shared, loaded machine where absolute MB/s
from separate runs do not."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, BigId, Json, Timestamp, utcnow

# parent: the commit's parent's cached build; previous: the previous measured commit of the
# series; release: a pinned ROOT release (reference_label "6.40.00"); commit: a commit asked
# for explicitly (compare page's A/B button); self: a build against itself (a null check);
# bare: the codec library called without ROOT's framing, on the same buffers (the commit's
# headroom, docs/perf/headroom.md; reference_label says which context: reused or fresh).
AB_REFERENCE_KINDS = ("parent", "previous", "release", "commit", "self", "bare")
# pipeline: measured with each commit; compare: queued from the compare page or the API.
AB_ORIGINS = ("pipeline", "compare")
AB_METRICS = ("compress_mbps", "decompress_mbps")


class AbRun(Base):
    __tablename__ = "ab_runs"
    __table_args__ = (
        Index("ix_ab_runs_machine_commit", "machine_id", "commit_id"),
        Index("ix_ab_runs_run_id", "run_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    machine_id: Mapped[int] = mapped_column(ForeignKey("machines.id", ondelete="CASCADE"))
    # side B: the commit measured
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    # side A: what it was measured against
    reference_kind: Mapped[str] = mapped_column(String(20))
    reference_commit_id: Mapped[int | None] = mapped_column(
        ForeignKey("commits.id", ondelete="SET NULL"))
    reference_label: Mapped[str | None] = mapped_column(String(100))
    origin: Mapped[str] = mapped_column(String(20), default="pipeline")
    codec_set_id: Mapped[int | None] = mapped_column(
        ForeignKey("codec_sets.id", ondelete="RESTRICT"))
    # fraction of all pairs of the run dropped or flagged as disturbed (interference measured
    # from the run itself: thread CPU time against wall time, involuntary context switches, steal)
    disturbed_fraction: Mapped[float | None] = mapped_column(Float)
    # the rule pairs were judged by and how the interval was computed, as the harness stated them
    method: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    # load average and other context around the run (informative only, never a verdict)
    load: Mapped[dict[str, Any] | None] = mapped_column(Json)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class AbEffect(Base):
    __tablename__ = "ab_effects"
    __table_args__ = (
        Index("ix_ab_effects_run", "ab_run_id", "dataset_id", "configuration_id", "metric",
              unique=True),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    ab_run_id: Mapped[int] = mapped_column(ForeignKey("ab_runs.id", ondelete="CASCADE"))
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    configuration_id: Mapped[int] = mapped_column(
        ForeignKey("configurations.id", ondelete="CASCADE"))
    metric: Mapped[str] = mapped_column(String(30))  # compress_mbps | decompress_mbps
    # speed of B over A: median of the undisturbed pairs' ratios, and its interval
    ratio: Mapped[float | None] = mapped_column(Float)
    ci_low: Mapped[float | None] = mapped_column(Float)
    ci_high: Mapped[float | None] = mapped_column(Float)
    pairs: Mapped[int] = mapped_column(Integer, default=0)
    disturbed_pairs: Mapped[int] = mapped_column(Integer, default=0)
    # the per-pair ratios behind the median (undisturbed pairs), so every number can be checked
    samples: Mapped[list[float] | None] = mapped_column(Json)
