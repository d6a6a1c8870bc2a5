"""Compare's rows: one per (dataset, configuration) present on both sides and metric, with
its delta and whether it is a change -- sizes exactly, instruction counts beyond a
threshold, speeds by their tests (significance.py)."""

from __future__ import annotations

from typing import Any

from basketbench.analysis.compare.sides import Side
from basketbench.analysis.compare.significance import PQ
from basketbench.models.result import COUNT_METRICS
from basketbench.stats.counts import count_change
from basketbench.stats.deltas import finite_delta_pct


def compare_rows(base: dict[tuple[int, int], Side], head: dict[tuple[int, int], Side],
                 keys: list[tuple[int, int]], metrics: list[str], names: dict[int, str],
                 configurations: dict[int, dict[str, Any]],
                 tested: dict[tuple[int, int], dict[str, PQ]], *, fdr: float,
                 count_threshold: float, setting: int | None,
                 only_significant: bool) -> list[dict[str, Any]]:
    """The rows of ``keys`` (sorted: series order) in ``setting`` if given, only the
    significant ones if ``only_significant``; ``configurations`` are ConfigurationOut
    dicts by id, ``tested`` the speed rows' (p, q) by key and metric."""
    # Plain dicts (shaped like schemas.analysis.CompareRow): thousands of rows, so the
    # loop avoids per-row calls and tuple keys (exact_change's rule inlined).
    no_test: dict[str, PQ] = {}
    rows: list[dict[str, Any]] = []
    append = rows.append
    for key in keys:
        b, h = base[key], head[key]
        dataset, configuration = names[key[0]], configurations[key[1]]
        if setting is not None and configuration["setting"] != setting:
            continue
        tests_of_key = tested.get(key, no_test)
        for met in metrics:
            p_value: float | None = None
            q_value: float | None = None
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
                if met == "compress_mbps":
                    bv, hv = b.c_median, h.c_median
                else:
                    bv, hv = b.d_median, h.d_median
                if bv is None and hv is None:
                    continue
                delta = None if bv is None or hv is None else finite_delta_pct(bv, hv)
                p_value, q_value = tests_of_key.get(met, (None, None))
                significant = q_value is not None and q_value <= fdr
                regression = significant and (hv or 0) < (bv or 0)
            if only_significant and not significant:
                continue
            append({
                "dataset": dataset, "configuration": configuration, "metric": met,
                "base": bv, "head": hv, "delta_pct": delta, "p_value": p_value,
                "q_value": q_value, "significant": significant, "regression": regression})
            # base_bytes ... head_ratio only on merged size rows (view.merge_sizes): five
            # nulls on each of thousands of rows were 20 % of the answer.
    return rows


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
