"""How compare's rows are shown: size and ratio merged into one row per series, the decided
changes first, one page at a time, and the rule that decided them spelled out.

compare/service.py computes the rows (one per series and metric); this module only
arranges them, so the computation and its tests stay as they are."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from basketbench.models.result import SPEED_METRICS
from basketbench.stats.deltas import mann_whitney_batch

Order = Literal["decided", "series"]


def merge_sizes(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per series for its size: the compressed-size row keeps its place and takes
    the ratio row's values (``base_ratio``, ``head_ratio``), exact bytes and the byte
    delta; the ratio row goes (both say the same thing, a size change counted twice).
    A ratio row without a size row (metric=ratio) stays as it is."""
    sizes = {(r["dataset"], r["configuration"]["id"]): r for r in rows
             if r["metric"] == "compressed_bytes"}
    out = []
    for row in rows:
        key = (row["dataset"], row["configuration"]["id"])
        if row["metric"] == "ratio" and key in sizes:
            merged = sizes[key]
            merged["base_ratio"], merged["head_ratio"] = row["base"], row["head"]
            continue
        if row["metric"] == "compressed_bytes":
            b, h = _exact(row["base"]), _exact(row["head"])
            row["base_bytes"], row["head_bytes"] = b, h
            row["delta_bytes"] = None if b is None or h is None else h - b
        out.append(row)
    return out


def _exact(value: float | None) -> int | None:
    """A byte count as an integer; a mean of several runs that is not whole stays None
    (the row's float ``base`` / ``head`` still carries it)."""
    if value is None or not math.isfinite(value) or value != int(value):
        return None
    return int(value)


def _rank(row: dict[str, Any]) -> tuple[int, float]:
    """0: an exact size change, 1: a significant speed change, 2: the rest; within each,
    the largest effect first."""
    effect = -abs(row["delta_pct"]) if row["delta_pct"] is not None else math.inf
    if not row["significant"]:
        return 2, 0.0
    return (1 if row["metric"] in SPEED_METRICS else 0), effect


def arrange(rows: list[dict[str, Any]], order: Order) -> list[dict[str, Any]]:
    """``decided``: exact size changes, then significant speed changes, each by effect,
    then every other row in series order. ``series``: as computed (dataset, configuration,
    metric)."""
    if order == "series":
        return rows
    return sorted(rows, key=_rank)  # stable: "the rest" keep series order


def counts(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Regressions, improvements and rows over every row (not one page)."""
    regressions = improvements = total = 0
    for row in rows:
        total += 1
        if row["regression"]:
            regressions += 1
        elif row["significant"]:
            improvements += 1
    return {"regressions": regressions, "improvements": improvements, "rows": total}


def smallest_p(shapes: Iterable[tuple[int, int]]) -> float | None:
    """The smallest p-value the speed test can give with these sample counts (base, head):
    that of two fully separated samples. None without any shape."""
    pairs = [([float(i) for i in range(nb)], [float(nb + i) for i in range(nh)])
             for nb, nh in sorted(set(shapes)) if nb > 0 and nh > 0]
    if not pairs:
        return None
    values = [p for p in mann_whitney_batch(pairs) if p is not None]
    return min(values) if values else None


def rule(fdr: float, default_min_effect: float, patterns: dict[str, float],
         family: int, shapes: Iterable[tuple[int, int]]) -> dict[str, Any]:
    """The rule compare applied (CompareRule), with why no speed row can pass when the
    samples are too few for it."""
    best = smallest_p(shapes)
    note = None
    if family == 0:
        note = "no speed row has raw samples on both sides: none can be significant"
    elif best is not None and best > fdr:
        note = (f"the samples are too few for any speed row to pass: with the sample counts "
                f"compared, the smallest possible p-value is {best:.3g} > q {fdr:g}; "
                "measure with more repetitions")
    return {
        "speed_test": "two-sided Mann-Whitney U on the raw samples of each side",
        "multiple_testing": f"Benjamini-Hochberg over the {family} speed rows with samples "
                            f"on both sides; significant when q <= {fdr:g}",
        "fdr": fdr,
        "min_effect_pct": default_min_effect,
        "min_effect_patterns": dict(patterns),
        "sizes": "compressed size and ratio are exact: any byte change is a change",
        "speed_rows_tested": family,
        "smallest_possible_p": best,
        "note": note,
    }
