"""Exact compressed bytes of one branch of a dataset at one setting, on one commit's codecs
(`rzbench sizes`); aggregated per branch, type class or file by measure/advise/branch_sizes."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, BigId


class BranchSize(Base):
    __tablename__ = "branch_sizes"
    # One upload replaces the rows of its (commit, dataset, codecs): no unique key over the
    # long branch names is needed.
    __table_args__ = (Index("ix_branch_sizes_dataset_commit", "dataset_id", "commit_id", "codecs"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    commit_id: Mapped[int] = mapped_column(ForeignKey("commits.id", ondelete="CASCADE"))
    dataset_id: Mapped[int] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"))
    codecs: Mapped[str] = mapped_column(String(100))  # codec set ("host", "root-6.40.00", ...)
    file: Mapped[str] = mapped_column(String(1000))
    tree: Mapped[str] = mapped_column(String(1000))
    branch: Mapped[str] = mapped_column(String(1000))
    type_class: Mapped[str | None] = mapped_column(String(20))
    baskets: Mapped[int] = mapped_column(Integer)
    raw_bytes: Mapped[int] = mapped_column(BigInteger)
    setting: Mapped[int] = mapped_column(Integer)
    preconditioner: Mapped[str] = mapped_column(String(20))
    compressed_bytes: Mapped[int] = mapped_column(BigInteger)
