"""E-divisive means (Matteson and James, 2014) for one series of run medians:
the split that maximises the energy distance between before and after, its
significance by permutation, applied recursively. Univariate, exponent 1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def _split_stats(x: Array, min_size: int) -> Array:
    """Q(tau) for every split tau of each row of x (P x n); -inf where not allowed."""
    p, n = x.shape
    d = np.abs(x[:, :, None] - x[:, None, :])
    c = np.zeros((p, n + 1, n + 1))
    c[:, 1:, 1:] = d.cumsum(axis=1).cumsum(axis=2)
    tau = np.arange(n + 1)

    def block(*bounds: Any) -> Array:
        a, b, cc, dd = np.broadcast_arrays(*bounds)
        out: Array = c[:, b, dd] - c[:, a, dd] - c[:, b, cc] + c[:, a, cc]
        return out

    left = block(0, tau, 0, tau) / 2
    right = block(tau, n, tau, n) / 2
    cross = block(0, tau, tau, n)
    with np.errstate(all="ignore"):
        nl, nr = tau.astype(float), (n - tau).astype(float)
        energy = (2 * cross / (nl * nr) - left / (nl * (nl - 1) / 2)
                  - right / (nr * (nr - 1) / 2))
        q = nl * nr / n * energy
    allowed = (tau >= min_size) & (n - tau >= min_size)
    return np.where(allowed[None, :], q, -np.inf)


@dataclass
class Split:
    index: int  # first point of the "after" side
    statistic: float
    p_value: float


def best_split(x: Array, min_size: int = 5, permutations: int = 199,
               seed: int = 0) -> Split | None:
    """The most likely single change point of x and its permutation p-value."""
    x = np.asarray(x, dtype=float)
    if x.size < 2 * min_size:
        return None
    q = _split_stats(x[None, :], min_size)[0]
    tau = int(np.argmax(q))
    stat = float(q[tau])
    if not np.isfinite(stat):
        return None
    if permutations <= 0:
        return Split(tau, stat, float("nan"))
    rng = np.random.default_rng(seed)
    perms = np.argsort(rng.random((permutations, x.size)), axis=1)
    null = _split_stats(x[perms], min_size).max(axis=1)
    p = (1 + int(np.sum(null >= stat))) / (permutations + 1)
    return Split(tau, stat, p)


def change_points(x: Array, min_size: int = 5, alpha: float = 0.01,
                  permutations: int = 199, seed: int = 0) -> list[int]:
    """All change points, hierarchically: split the segment with the strongest
    candidate while its permutation test is significant."""
    x = np.asarray(x, dtype=float)
    bounds = [0, x.size]
    while True:
        best: tuple[float, int, int] | None = None
        for a, b in zip(bounds, bounds[1:], strict=False):
            split = best_split(x[a:b], min_size, permutations=0)
            if split is not None and (best is None or split.statistic > best[0]):
                best = (split.statistic, a, b)
        if best is None:
            return bounds[1:-1]
        _, a, b = best
        split = best_split(x[a:b], min_size, permutations, seed)
        if split is None or split.p_value > alpha:
            return bounds[1:-1]
        bounds = sorted({*bounds, a + split.index})
