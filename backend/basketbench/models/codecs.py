"""Codec sets: the codec library versions a result was measured with.

A machine measures several sets (host, builtin, named) without becoming a new machine
version; the set is part of a result's series instead. ``series_key`` says which results
form one history: for ``builtin`` it is the name alone (the commit itself pins the
versions, so "zstd 1.4.8 -> 1.5.7" is a change of ROOT, shown on the point), for every
other set it is the exact versions (a host or named-set upgrade starts a new series,
never shows as a ROOT change).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json


class CodecSet(Base):
    __tablename__ = "codec_sets"
    __table_args__ = (Index("ix_codec_sets_series_key", "series_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    key: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 of name+release+versions
    name: Mapped[str] = mapped_column(String(100))
    root_version: Mapped[str | None] = mapped_column(String(50))
    libraries: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    series_key: Mapped[str] = mapped_column(String(100))
