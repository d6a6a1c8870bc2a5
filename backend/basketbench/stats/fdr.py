"""Benjamini-Hochberg: control the false discovery rate over every series tested for a
commit, so hundreds of series per commit do not mean dozens of false alarms."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def bh_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """BH-adjusted p-values (q-values); None stays None and does not count as a test."""
    idx = [i for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(pvalues)
    if not idx:
        return out
    p = np.array([pvalues[i] for i in idx], dtype=float)
    m = len(p)
    order = np.argsort(p)
    ranked = p[order] * m / np.arange(1, m + 1)
    # q_(i) = min over j >= i of p_(j) m / j: the step-up part.
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty(m)
    q[order] = np.minimum(q_sorted, 1.0)
    for i, value in zip(idx, q.tolist(), strict=True):  # (a screen has thousands)
        out[i] = value
    return out


def bh_reject(pvalues: Sequence[float | None], q: float) -> list[bool]:
    return [v is not None and v <= q for v in bh_adjust(pvalues)]


def bh_adjust_partial(pvalues: Sequence[float | None], family: int) -> list[float | None]:
    """BH q-values of the tests actually run when ``family`` tests count in all (the
    others were not run because their effect was too small to matter). Ranking the run
    tests among themselves is conservative: an untested p-value could only have been
    below them and lowered their q."""
    idx = [i for i, p in enumerate(pvalues) if p is not None and math.isfinite(p)]
    out: list[float | None] = [None] * len(pvalues)
    if not idx:
        return out
    m = max(family, len(idx))
    p = np.array([pvalues[i] for i in idx], dtype=float)
    order = np.argsort(p)
    ranked = p[order] * m / np.arange(1, len(p) + 1)
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty(len(p))
    q[order] = np.minimum(q_sorted, 1.0)
    for i, value in zip(idx, q.tolist(), strict=True):  # (a screen has thousands)
        out[i] = value
    return out
