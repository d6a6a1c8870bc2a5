"""A series' commits in a detection window as arrays, each commit's CommitValues made only
when something reads it.

A pass screens ~1 700 speed series over a window of up to 121 commits: ~100 000 (series,
commit) cells. Made as CommitValues one by one and read back point by point (segments,
family, drift rule), they were two thirds of a pass's CPU, while the screen reads most
cells only through their run medians. ``SeriesCells`` keeps a series' cells as arrays
(commit, git order, per speed metric the median of the cell's runs, NaN without runs)
and makes a cell's CommitValues the first time it is read by index, exactly as
``points.load_window`` made them before; the tests of the newest points, the candidates
and the A/B and revert rules read a few cells that way. It is a Sequence of CommitValues,
so what reads a series' values as a list still does."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TypeVar, overload

import numpy as np
from numpy.typing import NDArray
from sqlalchemy.orm import Session

from basketbench.changes.detection.history import CommitValues, SeriesKey, load_series
from basketbench.models.result import EXACT_METRICS, SPEED_METRICS
from basketbench.stats.engine import SeriesPoint

Array = NDArray[np.float64]
NO_START = -(2**31)  # a segment from the series' first cell (before any git order)
Ints = NDArray[np.int64]
T = TypeVar("T")


class _MadeWhenRead(Sequence[T]):
    """A sequence whose items ``_item`` makes when they are read (a slice: a list)."""

    __slots__ = ()

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self._item(j) for j in range(*i.indices(len(self)))]
        j = i + len(self) if i < 0 else i
        if not 0 <= j < len(self):
            raise IndexError(i)
        return self._item(j)

    def _item(self, j: int) -> T:
        raise NotImplementedError


class SeriesCells(_MadeWhenRead[CommitValues]):
    """One series' cells, oldest first (git order, then commit id)."""

    __slots__ = ("_counted", "_exact", "_made", "_make", "_medians", "_rank_of", "_ranks",
                 "_se", "_with_runs", "commit_ids", "orders")

    def __init__(self, commit_ids: Ints, orders: Ints, medians: dict[str, Array],
                 make: Callable[[int], CommitValues],
                 exact: dict[str, Array], counted: NDArray[np.bool_],
                 ranks: tuple[dict[int, int], Ints] | None = None,
                 se: dict[str, Array] | None = None) -> None:
        self.commit_ids = commit_ids
        self.orders = orders
        self._medians = medians
        # Per exact metric each cell's value (NaN: none recorded) and whether a run of the
        # cell was counted, as arrays: the exact and count rules read the newest two cells
        # of every series, and making them was a tenth of a pass.
        self._exact = exact
        self._counted = counted
        # per speed metric, each cell's standard error when the window knows it (a cell of
        # one run: its run's, from the packed points), inf where its samples must be read
        self._se = se
        self._make = make
        self._made: dict[int, CommitValues] = {}
        self._with_runs: dict[str, Ints] = {}
        # A window's series: its commits' ranks in the window (ascending, as the cells
        # are), and the window's rank of each commit, shared by its series.
        self._rank_of: dict[int, int] = ranks[0] if ranks is not None else {}
        self._ranks: Ints | None = ranks[1] if ranks is not None else None

    @classmethod
    def of(cls, values: list[CommitValues]) -> SeriesCells:
        """The cells of values made already (history.load_series)."""
        nan = math.nan
        medians = {m: np.array([v.median(m) if v.runs.get(m) else nan for v in values],
                               dtype=float) for m in SPEED_METRICS}
        exact = {m: np.array([nan if (x := getattr(v, m)) is None else x for v in values],
                             dtype=float) for m in EXACT_METRICS}
        out = cls(np.array([v.commit_id for v in values], dtype=np.int64),
                  np.array([v.order for v in values], dtype=np.int64), medians,
                  values.__getitem__, exact,
                  np.array([bool(v.counts) for v in values], dtype=bool))
        out._made = dict(enumerate(values))
        return out

    def __len__(self) -> int:
        return int(self.commit_ids.size)

    def _item(self, j: int) -> CommitValues:
        made = self._made.get(j)
        if made is None:
            made = self._made[j] = self._make(j)
        return made

    def medians(self, metric: str) -> Array:
        """The median of each cell's runs of a speed metric (NaN: no runs)."""
        return self._medians[metric]

    def with_runs(self, metric: str, start: int = NO_START) -> Ints:
        """The indices of the cells with runs of a speed metric from git order ``start`` on
        (a segment; the screen and the drift rule both ask it of every series: the whole
        series' answer is kept)."""
        whole = self._with_runs.get(metric)
        if whole is None:
            whole = self._with_runs[metric] = np.flatnonzero(~np.isnan(self._medians[metric]))
        if start == NO_START:
            return whole
        out: Ints = whole[self.orders[whole] >= start]
        return out

    def exact(self, metric: str, i: int) -> float | None:
        """Cell i's value of an exact metric (CommitValues' ``ratio`` or
        ``compressed_bytes``), None when none of its runs recorded it."""
        x = float(self._exact[metric][i])
        return None if x != x else x  # NaN: not recorded

    def counted(self, i: int) -> bool:
        """Whether cell i holds an instruction count (its CommitValues' ``counts``)."""
        return bool(self._counted[i])

    def has_runs(self, i: int) -> bool:
        """Whether cell i has a speed run kept (a median of some speed metric)."""
        return any(not math.isnan(v[i]) for v in self._medians.values())

    def known_se(self, metric: str, i: int) -> float | None:
        """stats.speed.within_se of cell i's samples, known without reading them (the
        packed points of a cell of one run), else None."""
        if self._se is None:
            return None
        value = float(self._se[metric][i])
        return None if value == math.inf else value

    def positions(self, commit_ids: set[int]) -> list[int]:
        """The indices of these commits' cells (those the series has), ascending: a
        binary search of the ranks in a window (fill_samples asks this of every series)."""
        if self._ranks is None:
            return [i for i, c in enumerate(self.commit_ids.tolist()) if c in commit_ids]
        wanted = np.array(sorted(self._rank_of[c] for c in commit_ids if c in self._rank_of),
                          dtype=np.int64)
        at = np.searchsorted(self._ranks, wanted)
        found = at < self._ranks.size
        found[found] = self._ranks[at[found]] == wanted[found]
        out: list[int] = at[found].tolist()
        return out


class SegmentPoints(_MadeWhenRead[SeriesPoint]):
    """A speed segment of a series as the screen's points (stats.engine.SeriesInput): the
    cells at ``at``, each point made when the screen reads it, sharing the cell's runs
    and samples."""

    __slots__ = ("at", "cells", "metric")

    def __init__(self, cells: SeriesCells, at: Ints, metric: str) -> None:
        self.cells = cells
        self.at = at  # the cells' positions in the series
        self.metric = metric

    def __len__(self) -> int:
        return int(self.at.size)

    def cell(self, i: int) -> CommitValues:
        return self.cells[int(self.at[i])]

    def _item(self, j: int) -> SeriesPoint:
        v = self.cell(j)
        return SeriesPoint(v.commit_id, v.runs[self.metric], v.samples[self.metric])

    def commits(self, lo: int, hi: int) -> list[int]:
        """The commit ids of points lo..hi-1."""
        ids: list[int] = self.cells.commit_ids[self.at[lo:hi]].tolist()
        return ids


def fill_samples(session: Session, machine_id: int, series: dict[SeriesKey, SeriesCells],
                 commit_ids: set[int], keys: set[SeriesKey] | None = None) -> None:
    """Load the samples the window left out (history.load_series(samples_of=...)), for
    these commits' cells: found through each series' commits, made only where loaded.
    ``keys``: only these series' cells (default every series of the window). A
    candidate's evidence needs the samples of its own series alone: loading a commit's
    samples for every series parsed ~1 700 JSON arrays to use two (~200 ms of a pass
    with a candidate)."""
    if not commit_ids:  # (the steady state's newest points: their standard errors known)
        return
    wanted = series if keys is None else {k: series[k] for k in keys if k in series}
    orders: dict[int, int] = {}
    for cells in wanted.values():
        for i in cells.positions(commit_ids):
            v = cells[i]
            if not v.samples_loaded:
                orders[v.commit_id] = v.order
    if not orders:
        return
    full = load_series(session, machine_id, list(orders.items()), set(wanted),
                       regular_only=True)
    for key, loaded in full.items():
        mine = wanted.get(key)
        if mine is None:
            continue
        where = {mine[i].commit_id: i for i in mine.positions({v.commit_id for v in loaded})}
        for v in loaded:
            at = where.get(v.commit_id)
            if at is not None:
                mine[at].samples = v.samples
                mine[at].samples_loaded = True
