"""An advise run: `basketbench advise` on a file under a worker's data root (issue 21).

The run itself (status, stage, progress) is an ordinary row of `runs` with suite "advise";
this table adds the file's path and, once the worker uploads it, the advice document."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json


class AdviceRun(Base):
    __tablename__ = "advice_runs"

    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"),
                                        primary_key=True)
    path: Mapped[str] = mapped_column(String(1000))  # relative to the worker's data root
    document: Mapped[dict[str, Any] | None] = mapped_column(Json)
