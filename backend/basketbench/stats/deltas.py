"""Change significance on raw samples."""

from __future__ import annotations

import math
from collections.abc import Sequence

MIN_EFFECT_PCT = 2.0
ALPHA = 0.01


def delta_pct(base: float | None, head: float | None) -> float | None:
    if base is None or head is None:
        return None
    if base == 0:
        return 0.0 if head == 0 else math.copysign(math.inf, head)
    return (head - base) / abs(base) * 100.0


def finite_delta_pct(base: float, head: float) -> float | None:
    """``delta_pct`` of two present values, with an infinite change (base 0) as None: what
    an answer shows (JSON has no infinity)."""
    if base == 0:
        return 0.0 if head == 0 else None
    delta = (head - base) / abs(base) * 100.0
    return delta if math.isfinite(delta) else None


def mann_whitney_p(base: Sequence[float] | None, head: Sequence[float] | None) -> float | None:
    """Two-sided Mann-Whitney U p-value; None when either side has no samples."""
    if not base or not head:
        return None
    from scipy.stats import mannwhitneyu

    if len(set(base) | set(head)) == 1:
        return 1.0
    return float(mannwhitneyu(base, head, alternative="two-sided").pvalue)


def mann_whitney_batch(
        pairs: Sequence[tuple[Sequence[float] | None, Sequence[float] | None]],
) -> list[float | None]:
    """p-values for many (base, head) sample pairs: one vectorised scipy call per shape,
    so a compare over hundreds of series costs a few calls, not hundreds."""
    import numpy as np
    from scipy.stats import mannwhitneyu

    out: list[float | None] = [None] * len(pairs)
    groups: dict[tuple[int, int], list[int]] = {}
    for i, (base, head) in enumerate(pairs):
        if base and head:
            groups.setdefault((len(base), len(head)), []).append(i)
    for idx in groups.values():
        xs = np.array([pairs[i][0] for i in idx], dtype=float)
        ys = np.array([pairs[i][1] for i in idx], dtype=float)
        constant = (xs.min(axis=1) == xs.max(axis=1)) & (ys.min(axis=1) == ys.max(axis=1)) & (
            xs[:, 0] == ys[:, 0])
        with np.errstate(all="ignore"):
            p = mannwhitneyu(xs, ys, alternative="two-sided", axis=1).pvalue
        for k, i in enumerate(idx):
            out[i] = 1.0 if constant[k] else float(p[k])
    return out


def speed_delta(base: float | None, head: float | None,
                min_effect: float = MIN_EFFECT_PCT) -> float | None:
    """The relative change, or None when it is too small to test (never significant)."""
    delta = delta_pct(base, head)
    if delta is None or not math.isfinite(delta) or abs(delta) < min_effect:
        return None
    return delta


def speed_change(base: float | None, head: float | None, base_samples: Sequence[float] | None,
                 head_samples: Sequence[float] | None) -> tuple[float | None, float | None, bool]:
    """(delta %, p-value, significant). The test runs only when the effect is large enough:
    a smaller effect is never significant, and skipping it keeps compare fast."""
    delta = delta_pct(base, head)
    if delta is None or not math.isfinite(delta) or abs(delta) < MIN_EFFECT_PCT:
        return delta, None, False
    p = mann_whitney_p(base_samples, head_samples)
    return delta, p, p is not None and p < ALPHA


def exact_change(base: float | None, head: float | None) -> tuple[float | None, bool]:
    """Sizes are exact: any change is real."""
    delta = delta_pct(base, head)
    return delta, base is not None and head is not None and base != head
