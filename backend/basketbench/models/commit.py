"""Repositories and commits; ``order`` follows the git graph, not upload time."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json, Timestamp, utcnow


class Repository(Base):
    __tablename__ = "repositories"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    url: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


class Commit(Base):
    __tablename__ = "commits"
    __table_args__ = (
        UniqueConstraint("repository_id", "sha"),
        # commit ranges and history order: WHERE repository_id=? AND order BETWEEN ...
        Index("ix_commits_repository_order", "repository_id", "order"),
        Index("ix_commits_sha", "sha"),
        # commit ranges across repositories (configurations?commit_from=&commit_to=)
        Index("ix_commits_order", "order"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    repository_id: Mapped[int] = mapped_column(ForeignKey("repositories.id", ondelete="CASCADE"))
    sha: Mapped[str] = mapped_column(String(64))
    parents: Mapped[list[str]] = mapped_column(Json, default=list)
    author: Mapped[str | None] = mapped_column(String(200))
    author_email: Mapped[str | None] = mapped_column(String(200))
    date: Mapped[datetime | None] = mapped_column(Timestamp)
    message: Mapped[str | None] = mapped_column(Text)
    branch: Mapped[str | None] = mapped_column(String(200))
    order: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
