"""How compare's rows are shown: size and ratio merged into one row per series, the decided
changes first, one page at a time, and the rule that decided them spelled out.

compare/service.py computes the rows (one per series and metric); this module only
arranges them, so the computation and its tests stay as they are."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Literal

from basketbench.analysis.compare.evidence import rule_text
from basketbench.models.result import SPEED_METRICS

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
    """0: an exact size change, 1: a speed change (by its evidence), 2: the rest; within
    each, the largest effect first -- an A/B row's effect is its A/B ratio, a counted row's
    its instruction change, not the delta of two runs at different times."""
    if not row["significant"]:
        return 2, 0.0
    found = row.get("evidence")
    if found is not None and found["kind"] == "ab":
        return 1, -abs(found["ratio"] - 1.0) * 100.0
    if found is not None and found["kind"] == "counts":
        moved = found["instructions_delta_pct"]
        return 1, -abs(moved) if moved is not None else math.inf
    effect = -abs(row["delta_pct"]) if row["delta_pct"] is not None else math.inf
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


def evidence_counts(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """Speed rows by the kind of their evidence (ab, counts, none), over every row."""
    out = {"ab": 0, "counts": 0, "none": 0}
    for row in rows:
        found = row.get("evidence")
        if found is not None:
            out[found["kind"]] += 1
    return out


def rule(default_min_effect: float, patterns: dict[str, float], count_threshold: float, *,
         machines: bool, evidence: dict[str, int]) -> dict[str, Any]:
    """The rule compare applied (CompareRule), with a note when no speed row can get a
    verdict because none has evidence."""
    note = None
    speed_rows = sum(evidence.values())
    if speed_rows and evidence["none"] == speed_rows:
        note = (("two machines: " if machines else "")
                + f"none of the {speed_rows} speed rows has A/B or instruction-count "
                "evidence, so none gets a verdict; their numbers come from runs measured at "
                "different times"
                + ("" if machines else
                   ": queue an interleaved A/B of the two commits to judge them"))
    return {
        **rule_text(count_threshold, machines),
        "min_effect_pct": default_min_effect,
        "min_effect_patterns": dict(patterns),
        "count_threshold_pct": count_threshold,
        "sizes": "compressed size and ratio are exact: any byte change is a change",
        "evidence": evidence,
        "note": note,
    }
