"""Speed tests on one commit's series, vectorised over series (hundreds per commit).

Speeds are noisy in two ways: samples within a run scatter, and whole runs move
(another tenant, thermal state). A run's samples are therefore not independent
evidence against the history; the unit of the level test is the run. For one
series the test compares the log median of the suspect run(s) with the median of
the reference runs (the current segment of the history: since the last recorded
change, at most ``window`` runs), scaled by the runs' robust spread (MAD), floored
by the within-run standard error. A Mann-Whitney U test of the suspect's samples
against its parent's and a bootstrap interval of the median shift are evidence
kept with every change.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
MAD_TO_SIGMA = 1.4826
# Variance of a sample median is ~pi/2 times the mean's.
MEDIAN_EFFICIENCY = math.pi / 2
MIN_DIFFERENCES = 8  # fewer successive differences estimate the spread too poorly


@dataclass(frozen=True)
class SpeedRule:
    """Thresholds of the speed rule; ``min_effect_pct`` may differ per series pattern."""

    min_effect_pct: float = 2.0
    # The screen sends smaller effects to confirmation: one run's delta scatters more
    # than the confirmed (suspect runs x reruns) one, which must pass the full minimum.
    screen_effect_fraction: float = 0.75
    screen_q: float = 0.10  # BH level at which a commit's candidates get confirmation reruns
    fdr_q: float = 0.05  # BH level of the final decision over every series of the commit
    window: int = 30  # reference runs at most
    mw_alpha: float = 0.05  # the suspect's samples must differ from the parent's
    confirm_runs: int = 2  # reruns of the suspect and of its parent each, interleaved
    # How many commits a candidate may move back when the reruns show its parent already
    # at the new level (each move costs one more round of reruns).
    max_moves: int = 3
    # E-divisive in the screen's family: "adaptive" (permutations up to what BH over the
    # family needs, issue 32), "fixed" (199 permutations: p >= 0.005, which BH over ~85
    # tests never passes: the rule before issue 32) or "off" (not tested).
    edivisive: str = "adaptive"
    bootstrap: int = 2000
    scale_floor: float = 1e-4  # 0.01 %: identical samples must not divide by zero


@dataclass
class LevelTest:
    delta: Array  # relative change (fraction), NaN when untestable
    p: Array  # two-sided p-value, NaN when untestable
    n_ref: NDArray[np.int64]
    n_new: NDArray[np.int64]
    se: Array | None = None  # standard error of the log shift, NaN when untestable


def level_test(ref: Array, new: Array, within_se: Array, floor: float = 1e-4,
               successive: bool = False) -> LevelTest:
    """ref: S x W log run medians (NaN padded); new: S x k log run medians of the
    suspect; within_se: S standard errors of one run's log median from its samples.

    ``successive``: the runs' spread may also come from the differences of successive
    reference runs (divided by sqrt 2), when that is smaller. A step below the minimum
    effect, or a drift, inside the reference widens the spread around its median but not
    the differences of neighbours. Used by the confirmation only: in the screen, which
    tests every series at every commit, the smaller spread sent about 40 % more commits
    to reruns in the benchmark for little more recall."""
    from scipy.stats import t as t_dist

    n_ref = np.sum(~np.isnan(ref), axis=1)
    n_new = np.sum(~np.isnan(new), axis=1)
    ok = (n_ref >= 2) & (n_new >= 1)
    with np.errstate(all="ignore"), _quiet():
        mu = row_nanmedians(np.where(ok[:, None], ref, 0.0))
        xbar = np.nanmean(np.where(ok[:, None], new, 0.0), axis=1)
        resid = ref - mu[:, None]
        mad = MAD_TO_SIGMA * row_nanmedians(np.abs(resid))
        # MAD alone is a noisy estimate on 5-30 runs (37 % efficiency) and an
        # underestimate makes false alarms; the standard deviation of the residuals
        # clipped at 2.5 MAD is nearly as efficient as the plain one and still ignores
        # an outlier run. The larger of the two is used.
        clip = np.maximum(2.5 * mad, floor)[:, None]
        wins = np.sqrt(np.nansum(np.clip(resid, -clip, clip) ** 2, axis=1)
                       / np.maximum(n_ref - 1, 1))
        if successive:
            neighbours = _successive_spread(ref, floor)
            mad, wins = np.fmin(mad, neighbours), np.fmin(wins, neighbours)
        scale = np.fmax(np.fmax(np.fmax(np.nan_to_num(mad), np.nan_to_num(wins)),
                                np.nan_to_num(within_se)), floor)
        se = scale * np.sqrt(1.0 / np.maximum(n_new, 1) + MEDIAN_EFFICIENCY / np.maximum(n_ref, 1))
        tstat = (xbar - mu) / se
        p = 2.0 * t_dist.sf(np.abs(tstat), np.maximum(n_ref - 1, 1))
        delta = np.expm1(xbar - mu)
    return LevelTest(np.where(ok, delta, np.nan), np.where(ok, p, np.nan), n_ref, n_new,
                     np.where(ok, se, np.nan))


def row_nanmedians(x: Array) -> Array:
    """np.nanmedian(x, axis=1) of a matrix without infinities, bit for bit: the middle of
    each row's sorted values, or the two middle ones' sum halved, as numpy computes it for
    rows this short (through masked arrays, ~4x slower: a screen's ~1 700 rows)."""
    ordered = np.sort(x, axis=1)  # NaN last
    counts = np.sum(~np.isnan(x), axis=1)
    high = counts // 2
    low = np.where(counts % 2 == 1, high, high - 1)
    rows = np.arange(x.shape[0])
    # numpy's masked sum starts from +0.0: a median of -0.0 comes out as 0.0
    out: Array = (0.0 + ordered[rows, low] + ordered[rows, high]) / 2.0
    return np.where(counts > 0, out, np.nan)


def _successive_spread(ref: Array, floor: float) -> Array:
    """The runs' standard deviation from the differences of successive reference runs
    (the larger of MAD and clipped SD, as for the levels); NaN (ignored) with fewer than
    MIN_DIFFERENCES differences."""
    d = np.diff(ref, axis=1)  # NaN padding only at the end: NaN past the last run
    n_d = np.sum(~np.isnan(d), axis=1)
    resid = d - np.nanmedian(d, axis=1)[:, None]
    mad = MAD_TO_SIGMA * np.nanmedian(np.abs(resid), axis=1)
    clip = np.maximum(2.5 * mad, floor)[:, None]
    wins = np.sqrt(np.nansum(np.clip(resid, -clip, clip) ** 2, axis=1) / np.maximum(n_d - 1, 1))
    spread: Array = np.where(n_d >= MIN_DIFFERENCES, np.fmax(mad, wins) / math.sqrt(2), np.nan)
    return spread


@contextmanager
def _quiet() -> Iterator[None]:
    """nanmedian warns on all-NaN rows; those rows are masked anyway."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        yield


def within_se(samples: list[list[float]] | list[Array]) -> Array:
    """Standard error of one run's log median, from the run's own samples. Runs with the
    same number of samples, all finite in log (nearly every run of a screen's ~1 700),
    are computed as one matrix: the same values, bit for bit, as row by row."""
    out = np.full(len(samples), np.nan)
    by_size: dict[int, list[int]] = {}
    for i in range(len(samples)):
        by_size.setdefault(len(samples[i]), []).append(i)
    for size, idx in by_size.items():
        if size < 3:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.log(np.asarray([samples[i] for i in idx], dtype=float))
        finite = np.isfinite(logs).all(axis=1)
        whole = np.asarray(idx)[finite]
        out[whole] = _median_se(np.std(logs[finite], axis=1, ddof=1), size)
        for k in np.flatnonzero(~finite).tolist():  # a sample <= 0: left out of its run
            arr = logs[k][np.isfinite(logs[k])]
            if arr.size >= 3:
                out[idx[k]] = _median_se(float(np.std(arr, ddof=1)), arr.size)
    return out


def _median_se(std: Any, n: int) -> Any:
    """The standard error of a median of n samples from their standard deviation(s)."""
    return math.sqrt(MEDIAN_EFFICIENCY) * std / math.sqrt(n)


def bootstrap_shift_ci(ref_medians: Array, new_samples: Array, draws: int = 2000,
                       level: float = 0.95, seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of median(new) / median(ref) - 1 (as a fraction):
    resampling the reference runs' medians and the suspect's samples."""
    rng = np.random.default_rng(seed)
    ref = ref_medians[np.isfinite(ref_medians)]
    new = new_samples[np.isfinite(new_samples)]
    if ref.size == 0 or new.size == 0:
        return math.nan, math.nan
    r = np.median(ref[rng.integers(0, ref.size, (draws, ref.size))], axis=1)
    n = np.median(new[rng.integers(0, new.size, (draws, new.size))], axis=1)
    shift = n / r - 1.0
    lo, hi = np.quantile(shift, [(1 - level) / 2, 1 - (1 - level) / 2])
    return float(lo), float(hi)


def mann_whitney(parent: list[list[float]], suspect: list[list[float]]) -> list[float | None]:
    """Two-sided Mann-Whitney U of each suspect's samples against its parent's."""
    from basketbench.stats.deltas import mann_whitney_batch

    return mann_whitney_batch(list(zip(parent, suspect, strict=True)))
