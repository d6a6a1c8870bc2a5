"""screen_points: what detection's screen reads of one stored document, packed (migration
0042). One row per document, written in the ingest's transaction: per result with a good
round trip its dataset, configuration, codec set, exact values, speed medians, instruction
counts per MB and each speed's within-run standard error, as one little-endian array
(changes/detection/points.py packs and reads it). A pass reads the rows of its window's
documents (one statement, ~121 rows whatever the history's length) instead of ~100 000 rows
of ``results``; the samples, which only the candidates' evidence needs (and the tests of a
newest commit measured more than once), still come from ``results``.

One row per document rather than one per series: a series row holding its newest K points
is rewritten whole at every document (864 series x K=121 points ~ 2 MB per document, more
than the document's results), and a commit that arrives out of git order, or a second run
of an older commit, would invalidate it; a document's row is a fact written once, and the
window is chosen by the current git order when it is read."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, SmallInteger
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base


class ScreenPoints(Base):
    __tablename__ = "screen_points"
    __table_args__ = (Index("ix_screen_points_machine_commit", "machine_id", "commit_id"),)

    document_id: Mapped[int] = mapped_column(
        ForeignKey("result_documents.id", ondelete="CASCADE"), primary_key=True)
    # Copies of the document's (no foreign keys of their own, as results')
    machine_id: Mapped[int] = mapped_column(Integer)
    commit_id: Mapped[int] = mapped_column(Integer)
    format: Mapped[int] = mapped_column(SmallInteger)  # points.FORMAT of ``packed``
    packed: Mapped[bytes] = mapped_column(LargeBinary)
