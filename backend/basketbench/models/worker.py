"""Worker tags: the hardware tags some worker serves (or an operator declared served).

Runs are created only for these (catalog/worker_tags.py): a tag that only appears in an
ingested document's machine (registered by ingest) would get runs no worker ever takes.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Timestamp, utcnow


class WorkerTag(Base):
    __tablename__ = "worker_tags"

    tag: Mapped[str] = mapped_column(String(100), primary_key=True)
    # Declared by an operator (PUT /worker-tags/{tag}): runs are created even before a
    # worker has been seen (e.g. a new machine being set up).
    operator: Mapped[bool] = mapped_column(Boolean, default=False)
    # The last sign of a worker serving the tag: registration, heartbeat or claim.
    last_seen_at: Mapped[datetime | None] = mapped_column(Timestamp)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    # Queued runs of this tag expired because no worker was live (catalog/worker_tags.py).
    expired_runs: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    last_expired_at: Mapped[datetime | None] = mapped_column(Timestamp)
