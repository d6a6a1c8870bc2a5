"""Compare's rows: one per (dataset, configuration) present on both sides and metric, with
its delta and whether it is a change -- sizes exactly, instruction counts beyond a
threshold, speeds only by their evidence (evidence.py: an interleaved A/B, instruction
counts, or none and no verdict)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from basketbench.analysis.compare.evidence import (
    NO_EVIDENCE,
    AbEvidence,
    ab_evidence,
    ab_verdict,
    counts_evidence,
)
from basketbench.analysis.compare.sides import Side
from basketbench.models.result import COUNT_METRICS
from basketbench.stats.counts import count_change
from basketbench.stats.deltas import finite_delta_pct


def compare_rows(base: dict[tuple[int, int], Side], head: dict[tuple[int, int], Side],
                 keys: list[tuple[int, int]], metrics: list[str], names: dict[int, str],
                 configurations: dict[int, dict[str, Any]],
                 ab: AbEvidence, min_effect: Callable[[str, str, str], float], *,
                 counts_apply: bool, count_threshold: float, setting: int | None,
                 only_significant: bool) -> list[dict[str, Any]]:
    """The rows of ``keys`` (sorted: series order) in ``setting`` if given, only the
    significant ones if ``only_significant``; ``configurations`` are ConfigurationOut
    dicts by id. A speed row's verdict comes from ``ab`` (the A/B effects of the pair,
    judged with ``min_effect(dataset, label, metric)``), else from the instruction counts
    of both sides when ``counts_apply`` (commits on one machine), else there is none."""
    # Plain dicts (shaped like schemas.analysis.CompareRow): thousands of rows, so the
    # loop avoids per-row calls and tuple keys (exact_change's rule inlined).
    rows: list[dict[str, Any]] = []
    append = rows.append
    for key in keys:
        b, h = base[key], head[key]
        dataset, configuration = names[key[0]], configurations[key[1]]
        if setting is not None and configuration["setting"] != setting:
            continue
        for met in metrics:
            evidence: dict[str, Any] | None = None
            if met == "ratio" or met == "compressed_bytes":
                if met == "ratio":
                    bv, hv = b.ratio, h.ratio
                else:
                    bv, hv = _float(b.cbytes), _float(h.cbytes)
                if bv is None or hv is None:
                    if bv is None and hv is None:
                        continue
                    delta, significant, regression = None, False, False
                else:
                    delta = finite_delta_pct(bv, hv)
                    significant = bv != hv
                    regression = significant and (hv < bv if met == "ratio" else hv > bv)
            elif met in COUNT_METRICS:
                # near-exact: beyond the count threshold is a change, no test (counts.py)
                bv, hv = (b.c_ipmb, h.c_ipmb) if met[0] == "c" else (b.d_ipmb, h.d_ipmb)
                if bv is None or hv is None:
                    if bv is None and hv is None:
                        continue
                    delta, significant, regression = None, False, False
                else:
                    delta = finite_delta_pct(bv, hv)
                    significant = count_change(met, bv, hv, count_threshold).changed
                    regression = significant and hv > bv
            else:
                c = met == "compress_mbps"
                bv, hv = (b.c_median, h.c_median) if c else (b.d_median, h.d_median)
                if bv is None and hv is None:
                    continue
                delta = None if bv is None or hv is None else finite_delta_pct(bv, hv)
                effect = ab.effect(key, met) if ab.effects else None
                bc, hc = (b.c_ipmb, h.c_ipmb) if c else (b.d_ipmb, h.d_ipmb)
                if effect is not None:
                    significant, regression = ab_verdict(
                        effect, min_effect(dataset, configuration["label"], met))
                    evidence = ab_evidence(effect)
                elif counts_apply and bc is not None and hc is not None:
                    counted = count_change(
                        "compress_instructions_per_mb" if c else "decompress_instructions_per_mb",
                        bc, hc, count_threshold)
                    significant = counted.changed
                    regression = significant and hc > bc  # more instructions: slower
                    evidence = counts_evidence(bc, hc, finite_delta_pct(bc, hc))
                else:  # two runs at different times: numbers, no verdict
                    significant, regression = False, False
                    evidence = NO_EVIDENCE
            if only_significant and not significant:
                continue
            append({
                "dataset": dataset, "configuration": configuration, "metric": met,
                "base": bv, "head": hv, "delta_pct": delta,
                "significant": significant, "regression": regression,
                "base_bytes": None, "head_bytes": None, "delta_bytes": None,
                "base_ratio": None, "head_ratio": None, "evidence": evidence})
    return rows


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
