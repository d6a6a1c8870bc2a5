"""A queued interleaved A/B (issue 32): "measure commit B against commit A on a worker of
this tag", asked for from the compare page (POST /ab-requests) or by detection.

The run itself (status, stage, progress, dispatch, claim) is an ordinary row of `runs` with
``commit_id`` = side B and suite "ab:<side A's sha>" (what the worker's A/B stage reads);
this table keeps the pair findable (side A as a commit id), the machine asked for, and who
asked. The worker uploads its document to POST /ab-runs with the run's id, so the result
is the ab_runs row whose run_id is this run."""

from __future__ import annotations

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base


class AbRequest(Base):
    __tablename__ = "ab_requests"
    __table_args__ = (
        Index("ix_ab_requests_pair", "reference_commit_id", "commit_id"),
    )

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"),
                                        primary_key=True)
    # side B (the run's commit, kept here too so a pair is found without the runs table)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    # side A: what B is measured against
    reference_commit_id: Mapped[int] = mapped_column(
        ForeignKey("commits.id", ondelete="CASCADE"))
    # ab_runs.reference_kind the result will carry: commit (asked for), parent, previous
    reference_kind: Mapped[str] = mapped_column(String(20), default="commit")
    # ab_runs.origin: compare (the page or the API) or pipeline (detection's confirmation)
    origin: Mapped[str] = mapped_column(String(20), default="compare")
    # the machine asked for (a comparison's machine); NULL: any worker of the run's tag
    machine_id: Mapped[int | None] = mapped_column(ForeignKey("machines.id", ondelete="SET NULL"))
    requested_by: Mapped[str | None] = mapped_column(String(200))
