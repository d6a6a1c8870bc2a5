"""Statistics of interleaved A/B pairs (pure: no I/O), the same rules rzbench applies, so that
the Python side verifies what the harness reports (measure/ab/run.py) rather than trusting it.

A pair is one repetition of the same work on side A and on side B; its ratio is
time_A / time_B on the measuring clock (> 1: B is faster). The estimate is the median of the kept
pairs' ratios, its interval the distribution-free order-statistic interval of a median: the
sorted ratios' ranks (k, n + 1 - k) for the largest k with 1 - 2 P(X <= k - 1) >= confidence,
X ~ Binomial(n, 1/2) (e.g. n = 31: ranks 10 and 22, coverage 97.1 %). It assumes only that the
pairs are independent with a common median.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Limits:
    """When a repetition counts as disturbed (docs/perf/ab.md: chosen by measurement)."""

    min_cpu_wall: float
    max_involuntary: int
    max_steal_ticks: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Limits:
        return cls(float(data["min_cpu_wall"]), int(data["max_involuntary"]),
                   int(data["max_steal_ticks"]))

    def describe(self) -> str:
        return (f"a pair is disturbed when either repetition's thread CPU time / wall time is "
                f"below {self.min_cpu_wall:g}, it had more than {self.max_involuntary} "
                f"involuntary context switches, or the machine's CPU steal during it exceeded "
                f"{self.max_steal_ticks} ticks (/proc/stat); disturbed pairs are dropped from "
                f"the median and its interval and counted")


def repetition_reasons(rep: Mapping[str, Any], limits: Limits) -> list[str]:
    """Why one repetition ({wall_s, cpu_s, involuntary_switches, steal_ticks}) is disturbed."""
    reasons = []
    wall = float(rep["wall_s"])
    cpu_wall = float(rep["cpu_s"]) / wall if wall > 0 else 0.0
    if cpu_wall < limits.min_cpu_wall:
        reasons.append(f"cpu/wall {cpu_wall:.3f} < {limits.min_cpu_wall:g}")
    if int(rep["involuntary_switches"]) > limits.max_involuntary:
        reasons.append(f"{rep['involuntary_switches']} involuntary switches > "
                       f"{limits.max_involuntary}")
    steal = rep.get("steal_ticks")
    if steal is not None and int(steal) > limits.max_steal_ticks:
        reasons.append(f"steal {steal} ticks > {limits.max_steal_ticks}")
    return reasons


def pair_ratio(pair: Mapping[str, Any], clock: str) -> float:
    key = "cpu_s" if clock == "cpu" else "wall_s"
    tb = float(pair["b"][key])
    return float(pair["a"][key]) / tb if tb > 0 else 0.0


def binomial_half_cdf(n: int, k: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    if k >= n:
        return 1.0
    return min(1.0, sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def median_ci_ranks(n: int, confidence: float) -> tuple[int, int, float]:
    """1-based ranks (lo, hi) of the median's interval and its coverage; with too few values
    for `confidence` the whole range and its (lower) coverage; (0, 0, 0.0) for n == 0."""
    if n == 0:
        return 0, 0, 0.0
    lo, hi, coverage = 1, n, 1 - 2 * binomial_half_cdf(n, 0)
    k = 2
    while 2 * k <= n + 1:
        cov = 1 - 2 * binomial_half_cdf(n, k - 1)
        if cov < confidence:
            break
        lo, hi, coverage = k, n + 1 - k, cov
        k += 1
    return lo, hi, coverage


def median(values: Sequence[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


@dataclass
class RatioSummary:
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    coverage: float | None
    pairs: int  # kept
    disturbed_pairs: int  # dropped
    samples: list[float] = field(default_factory=list)  # the kept pairs' ratios, in order

    def as_effect(self) -> dict[str, Any]:
        """The A/B document's compress / decompress object."""
        return {"ratio": self.ratio, "ci_low": self.ci_low, "ci_high": self.ci_high,
                "pairs": self.pairs, "disturbed_pairs": self.disturbed_pairs,
                "samples": self.samples}


def summarize(pairs: Sequence[Mapping[str, Any]], clock: str, limits: Limits,
              confidence: float = 0.95) -> RatioSummary:
    """Median ratio and interval of the undisturbed pairs ({"a": rep, "b": rep})."""
    kept: list[float] = []
    dropped = 0
    for pair in pairs:
        if repetition_reasons(pair["a"], limits) or repetition_reasons(pair["b"], limits):
            dropped += 1
        else:
            kept.append(pair_ratio(pair, clock))
    if not kept:
        return RatioSummary(None, None, None, None, 0, dropped, [])
    ordered = sorted(kept)
    lo, hi, coverage = median_ci_ranks(len(kept), confidence)
    return RatioSummary(median(kept), ordered[lo - 1], ordered[hi - 1], coverage, len(kept),
                        dropped, kept)
