"""E-divisive means (Matteson and James, 2014) for one series of run medians:
the split that maximises the energy distance between before and after, its
significance by permutation, applied recursively. Univariate, exponent 1.

The permutation p-value cannot go below 1 / (permutations + 1): with 199 permutations
0.005, while Benjamini-Hochberg over a commit's ~85 tests at q 0.10 needs about 0.0012
from the strongest one (issue 32), so the test could never pass the screen. ``best_split``
therefore permutes adaptively: batches that double, stopped early once the p-value is
known well enough (Besag and Clifford's sequential rule: ``STOP_EXCEEDANCES``
permutations at least as extreme, or plainly noise), and continued up to
``max_permutations`` only for a split none or few permutations beat, so that only the
candidates that matter pay for the resolution the family needs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
FIRST_BATCH = 39
EARLY_STOP_P = 0.2
# Besag-Clifford: with this many permutations at least as extreme the p-value
# (exceedances / permutations) is known to about +-30 %, enough for BH.
STOP_EXCEEDANCES = 10
MAX_BATCH = 512  # permutations per batch
# Rows whose distances are computed at once: 64 x 60 x 60 floats are 1.8 MB, which stay in
# the caches between the passes over them. Permutation batches (up to 512 rows, 15 MB)
# made whole took 1.14x the CPU, the same bits (docs/perf/detection.md, seventh session).
BLOCK_ROWS = 64


def _split_stats(x: Array, min_size: int) -> Array:
    """Q(tau) for every split tau of each row of x (P x n); -inf where not allowed.
    Rows are independent: computed BLOCK_ROWS at a time, each row's arithmetic the same
    whatever the block."""
    p, n = x.shape
    if p <= BLOCK_ROWS:
        return _block_stats(x, min_size)
    out = np.empty((p, n + 1))
    for start in range(0, p, BLOCK_ROWS):
        out[start:start + BLOCK_ROWS] = _block_stats(x[start:start + BLOCK_ROWS], min_size)
    return out


def _block_stats(x: Array, min_size: int) -> Array:
    """_split_stats of a few rows.

    With d_ij = |x_i - x_j|: the pairs inside the left part are the running sum of
    each point's distances to the points before it, those inside the right part the
    reverse running sum of its distances to the points after it, and the cross pairs
    what is left of the total: O(n^2) per row, one pass."""
    p, n = x.shape
    d = x[:, :, None] - x[:, None, :]
    np.abs(d, out=d)  # in place: a second P x n x n array cost a quarter of the function
    to_earlier = np.einsum("pij,ij->pi", d, np.tri(n, n, -1))  # sum over i' < i
    to_later = d.sum(axis=2) - to_earlier
    zero = np.zeros((p, 1))
    left = np.concatenate([zero, to_earlier.cumsum(axis=1)], axis=1)  # pairs in [0, tau)
    right = np.concatenate([to_later[:, ::-1].cumsum(axis=1)[:, ::-1], zero], axis=1)
    cross = left[:, -1:] - left - right
    tau = np.arange(n + 1)
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
               seed: int = 0, max_permutations: int | None = None) -> Split | None:
    """The most likely single change point of x and its permutation p-value.

    ``permutations`` are done unless the split is plainly noise; up to
    ``max_permutations`` (default: no more) while fewer than STOP_EXCEEDANCES
    permutations beat it, so the p-value can reach 1 / (max_permutations + 1)."""
    x = np.asarray(x, dtype=float)
    split = best_splits([x], min_size)[0]
    if split is None or permutations <= 0:
        return split
    stat = split.statistic
    limit = max(permutations, max_permutations or 0)
    rng = np.random.default_rng(seed)
    # Sequential: a first batch decides when the split is plainly noise (p above
    # EARLY_STOP_P); only the others pay for more permutations. On a noisy machine
    # nearly every series passes the effect cut, and most of them are noise.
    done = exceed = 0
    batch = min(permutations, FIRST_BATCH)
    while done < limit:
        batch = min(batch, limit - done, MAX_BATCH)
        perms = np.argsort(rng.random((batch, x.size)), axis=1)
        exceed += int(np.sum(_split_stats(x[perms], min_size).max(axis=1) >= stat))
        done += batch
        if (1 + exceed) / (done + 1) > EARLY_STOP_P:
            break
        if done >= permutations and exceed >= STOP_EXCEEDANCES:
            break
        batch = done  # doubling: the total doubles at each step
    return Split(split.index, stat, (1 + exceed) / (done + 1))


def best_splits(rows: list[Array], min_size: int = 5,
                chunk: int = BLOCK_ROWS) -> list[Split | None]:
    """The split maximising Q of each row (p-value NaN; None where no split is allowed),
    rows of one length computed together: a screen asks this of ~1 700 series per commit,
    where one call each cost ~0.1 ms of numpy overhead; ``chunk`` rows at a time."""
    out: list[Split | None] = [None] * len(rows)
    by_length: dict[int, list[int]] = {}
    for i, x in enumerate(rows):
        if x.size >= 2 * min_size:
            by_length.setdefault(x.size, []).append(i)
    for idx in by_length.values():
        for start in range(0, len(idx), chunk):
            part = idx[start:start + chunk]
            q = _split_stats(np.stack([np.asarray(rows[i], dtype=float) for i in part]),
                             min_size)
            taus = np.argmax(q, axis=1)
            stats = q[np.arange(len(part)), taus]
            for i, tau, stat in zip(part, taus.tolist(), stats.tolist(), strict=True):
                if np.isfinite(stat):
                    out[i] = Split(tau, stat, float("nan"))
    return out


def split_shifts(rows: list[Array], splits: list[int]) -> list[np.float64]:
    """median(x[split:]) - median(x[:split]) of each row, bit for bit what np.median of
    each part gives (the same middle values; two of them averaged as (a + b) / 2), for
    rows of one length at once: a screen asks this of ~1 700 series, where two np.median
    calls each were a third of its CPU."""
    out: list[np.float64] = [np.float64(0.0)] * len(rows)
    by_length: dict[int, list[int]] = {}
    for i, x in enumerate(rows):
        by_length.setdefault(x.size, []).append(i)
    for n, idx in by_length.items():
        x = np.stack([rows[i] for i in idx])
        at = np.asarray([splits[i] for i in idx])[:, None]
        after = np.arange(n)[None, :] >= at
        # each part sorted to the front of its row, the other part pushed behind it
        before_sorted = np.sort(np.where(after, np.inf, x), axis=1)
        after_sorted = np.sort(np.where(after, x, np.inf), axis=1)
        shift = _middle(after_sorted, n - at[:, 0]) - _middle(before_sorted, at[:, 0])
        for k, i in enumerate(idx):
            out[i] = shift[k]
    return out


def _middle(sorted_rows: Array, sizes: NDArray[np.int64]) -> Array:
    """The median of each row's first ``sizes`` values (sorted ascending)."""
    rows = np.arange(sorted_rows.shape[0])
    upper = sorted_rows[rows, sizes // 2]
    lower = sorted_rows[rows, np.maximum(sizes - 1, 0) // 2]
    middle: Array = np.where(sizes % 2 == 1, upper, (lower + upper) / 2)
    return middle


def permutations_for(alpha: float, resolution: float = 2.0, cap: int = 9999) -> int:
    """Permutations at which the p-value's floor is ``resolution`` times below ``alpha``
    (the smallest threshold the test must be able to pass), at most ``cap``."""
    if not alpha > 0:
        return cap
    return int(min(cap, max(199, np.ceil(resolution / alpha) - 1)))


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
