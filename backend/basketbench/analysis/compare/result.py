"""What a comparison answers: schemas.CompareOut's fields, typed, with the rows kept as
plain dicts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from basketbench.analysis.schemas import CompareSide

Mode = Literal["commits", "machines"]


@dataclass(frozen=True, slots=True)
class CompareResult:
    """CompareOut's fields in its order. ``rows`` are dicts shaped like CompareRow and
    ``counts`` / ``rule`` / ``codec_series`` dicts shaped like CompareCounts, CompareRule
    and CodecSeriesOut: a comparison has thousands of rows and a pydantic model costs about
    20 us to build, so the answer is serialised from the dicts (answer()) with orjson."""

    total: int
    offset: int
    counts: dict[str, int]
    rule: dict[str, Any]
    base: CompareSide
    head: CompareSide
    rows: list[dict[str, Any]]
    mode: Mode
    codec_series: list[dict[str, Any]]
    ab: dict[str, Any] | None = None  # CompareAb: the A/B behind the rows of evidence ab

    def answer(self) -> dict[str, Any]:
        """JSON-ready, keys in CompareOut's order (the answer's bytes depend on it)."""
        return {"total": self.total, "offset": self.offset, "counts": self.counts,
                "rule": self.rule, "base": self.base.model_dump(),
                "head": self.head.model_dump(), "rows": self.rows, "mode": self.mode,
                "codec_series": self.codec_series, "ab": self.ab}
