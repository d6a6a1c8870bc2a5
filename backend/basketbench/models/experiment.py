"""Datasets and configurations: the dimensions of an experiment."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base

ALGORITHM_NAMES = {0: "none", 1: "ZLIB", 2: "LZMA", 3: "CS", 4: "LZ4", 5: "ZSTD"}


class Dataset(Base):
    __tablename__ = "datasets"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(300), unique=True)
    source: Mapped[str | None] = mapped_column(String(1000))
    bytes: Mapped[int | None] = mapped_column(BigInteger)
    baskets: Mapped[int | None] = mapped_column(Integer)
    checksum: Mapped[str | None] = mapped_column(String(100))
    # "ttree" | "rntuple" | "mixed" (the harness's datasets[].kind), "synthetic" for a
    # generator's data (source synthetic:..., results/ingest.dataset_kind); None: not reported
    kind: Mapped[str | None] = mapped_column(String(10))
    page_size: Mapped[int | None] = mapped_column(Integer)  # a re-paged RNTuple corpus's


class Configuration(Base):
    """(setting, preconditioner, dictionary size, basket size, mode, threads) + codec."""

    __tablename__ = "configurations"
    __table_args__ = (
        UniqueConstraint(
            "setting", "codec", "preconditioner", "dictionary_size", "basket_size", "mode",
            "threads", name="uq_configurations_identity",
        ),
        Index("ix_configurations_setting", "setting"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    setting: Mapped[int] = mapped_column(Integer)
    algorithm: Mapped[int] = mapped_column(Integer)
    level: Mapped[int] = mapped_column(Integer)
    codec: Mapped[str] = mapped_column(String(20))
    preconditioner: Mapped[str] = mapped_column(String(20), default="none")
    dictionary_size: Mapped[int] = mapped_column(Integer, default=0)
    basket_size: Mapped[int] = mapped_column(Integer, default=0)
    mode: Mapped[str] = mapped_column(String(20), default="basket")
    threads: Mapped[int] = mapped_column(Integer, default=1)

    @property
    def label(self) -> str:
        return configuration_label(
            self.codec, self.level, self.preconditioner, self.dictionary_size,
            self.basket_size, self.mode, self.threads,
        )


def configuration_label(
    codec: str, level: int, preconditioner: str, dictionary_size: int, basket_size: int,
    mode: str, threads: int,
) -> str:
    """Human label such as ``ZSTD-5 +shuffle dict=16384 basket=65536 rac-random x4``."""
    parts = [codec] if codec in ("memcpy", "none") else [f"{codec.upper()}-{level}"]
    if preconditioner != "none":
        parts.append(f"+{preconditioner}")
    if dictionary_size:
        parts.append(f"dict={dictionary_size}")
    if basket_size:
        parts.append(f"basket={basket_size}")
    if mode != "basket":
        parts.append(mode)
    if threads != 1:
        parts.append(f"x{threads}")
    return " ".join(parts)
