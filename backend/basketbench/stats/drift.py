"""Slow drifts: a level that moves a little at every commit, so that no step test ever
fires (-0.05 % per commit is 10 % over 200 commits, issue 27).

Over the series' current segment (at most ``window`` commits of regular runs) a straight
line through the log run medians is compared with the best single step (the e-divisive
split, edivisive.best_split, with each side at its mean). A drift is reported when
- the line fits at least as well as the step (else it is a step: the step tests' case),
- the line's shift over the window passes the minimum (detection_drift_min_pct),
- its slope differs from zero at ``alpha``; the runs' spread comes from the differences
  of successive runs (a trend does not widen them), floored by ``floor``.
Pure numpy: the service and bench/detection_quality.py share it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from basketbench.stats import edivisive
from basketbench.stats.speed import MAD_TO_SIGMA

MIN_POINTS = 30
ALPHA = 1e-4  # tested at every commit on every series: a strict level
STEP_MIN_SIZE = 5


@dataclass(frozen=True)
class Drift:
    start: int  # index of the first point of the fitted window
    shift: float  # relative change from the line's first to its last point (fraction)
    p_value: float
    slope: float  # log units per commit
    first: float  # the line's values at both ends (the series' units)
    last: float


def shifts(rows: Sequence[NDArray[np.float64]], window: int = 120) -> NDArray[np.float64]:
    """find_drift's first cut for many series at once: the fitted line's shift over each
    row's newest ``window`` medians (NaN where find_drift stops before it: fewer than
    MIN_POINTS points, or a value that is not positive). Rows of one length are fitted as
    one matrix; the sums come out in a different order than find_drift's, so use it as a
    filter with a margin (``may_pass``) and leave the verdict to find_drift."""
    out = np.full(len(rows), np.nan)
    by_size: dict[int, list[int]] = {}
    for i, row in enumerate(rows):
        n = min(row.size, window)
        if n >= MIN_POINTS:
            by_size.setdefault(n, []).append(i)
    for n, idx in by_size.items():
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.log(np.stack([rows[i][-n:] for i in idx]))
            t = np.arange(n, dtype=float)
            tc = t - t.mean()
            slope = (x - x.mean(axis=1, keepdims=True)) @ tc / np.dot(tc, tc)
            out[idx] = np.expm1(slope * (n - 1))
    return out


def may_pass(shift: float, min_pct: float) -> bool:
    """Whether find_drift could pass this shift (from ``shifts``) on to its tests: a
    relative 1e-6 below the minimum still does (the batched sums may differ from
    find_drift's in the last bits). False for NaN."""
    return bool(abs(shift) * 100 >= min_pct * (1 - 1e-6))


def find_drift(medians: Sequence[float] | NDArray[np.float64], min_pct: float,
               window: int = 120, alpha: float = ALPHA, floor: float = 1e-4) -> Drift | None:
    """A drift over the newest ``window`` points of ``medians`` (oldest first), or None."""
    from scipy.stats import t as t_dist

    start = max(0, len(medians) - window)
    x = np.log(np.asarray(medians[start:], dtype=float))
    n = x.size
    if n < MIN_POINTS or not np.all(np.isfinite(x)):
        return None
    t = np.arange(n, dtype=float)
    tc = t - t.mean()
    slope = float(np.dot(tc, x - x.mean()) / np.dot(tc, tc))
    shift = math.expm1(slope * (n - 1))
    if abs(shift) * 100 < min_pct:
        return None
    line = x.mean() + slope * tc
    ss_line = float(np.sum((x - line) ** 2))
    split = edivisive.best_split(x, STEP_MIN_SIZE, permutations=0)
    if split is not None:
        k = split.index
        step = np.concatenate([np.full(k, x[:k].mean()), np.full(n - k, x[k:].mean())])
        if float(np.sum((x - step) ** 2)) < ss_line:
            return None
    d = np.diff(x)
    sigma = max(MAD_TO_SIGMA * float(np.median(np.abs(d - np.median(d)))) / math.sqrt(2),
                float(np.std(x - line, ddof=2)) if n > 2 else 0.0, floor)
    se = sigma / math.sqrt(float(np.dot(tc, tc)))
    p = float(2 * t_dist.sf(abs(slope) / se, n - 2))
    if p > alpha:
        return None
    return Drift(start, shift, p, slope, float(math.exp(line[0])), float(math.exp(line[-1])))
