"""The screen's points of each document (models/screen.py, table screen_points): packed at
ingest from the rows it writes, read by a detection pass for its window instead of the
window's ``results`` rows.

``load_window`` returns what ``history.load_series(..., regular_only=True,
samples_of=set())`` returns for the same commits, value for value (tests/backend/changes/
test_screen_points.py runs both paths over the same histories and compares every change
recorded): the same runs, exact values and counts per series and commit, without samples
(``cells.fill_samples`` reads those from ``results`` for the few points that need them).
Documents of the window without a row (written before migration 0042, or by a bulk seed
that bypassed ingest) get theirs from ``results`` first (``rebuild``)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Any

import numpy as np
from sqlalchemy import (
    Integer,
    any_,
    bindparam,
    case,
    delete,
    insert,
    literal_column,
    null,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from basketbench.changes.detection import packed_cache
from basketbench.changes.detection.cells import SeriesCells
from basketbench.changes.detection.history import CommitValues, SeriesKey, regular_document
from basketbench.core.db import engine_of
from basketbench.models import Result, ResultDocument, ScreenPoints
from basketbench.models.result import EXACT_METRICS
from basketbench.results.codec_sets import series_keys
from basketbench.stats.engine import run_median
from basketbench.stats.speed import within_se

FORMAT = 2  # 2: each run's standard error (c_se, d_se); rows of format 1 are rebuilt
# One entry per result with a good round trip. NaN: not recorded (None); -1: no codec set.
# The speed medians and counts are stored as recorded: the "> 0" rules apply when read,
# as load_series applies them. ``c_se`` / ``d_se``: stats.speed.within_se of the samples
# the run adds to its cell (its positive ones, as load_series keeps them; NaN with fewer
# than three), so the screen's tests of the newest point need no samples read.
DTYPE = np.dtype([("dataset", "<i4"), ("configuration", "<i4"), ("codec_set", "<i4"),
                  ("ratio", "<f8"), ("compressed_bytes", "<f8"), ("c_median", "<f8"),
                  ("d_median", "<f8"), ("c_count", "<f8"), ("d_count", "<f8"),
                  ("c_se", "<f8"), ("d_se", "<f8")])
_NAN = float("nan")


def pack(rows: Sequence[tuple[Any, ...]]) -> bytes:
    """rows: (dataset, configuration, codec set, ratio, compressed bytes, compress median,
    decompress median, compress and decompress instructions per MB, compress and
    decompress samples) of the results with a good round trip; None where not recorded."""
    c_se, d_se = (within_se([_kept(row[k]) for row in rows]).tolist() for k in (9, 10))
    arr = np.array([(ds, conf, -1 if cs is None else cs,
                     *(_NAN if x is None else float(x) for x in values), cse, dse)
                    for (ds, conf, cs, *values, _cs, _ds), cse, dse
                    in zip(rows, c_se, d_se, strict=True)], dtype=DTYPE)
    return arr.tobytes()


def _kept(samples: Sequence[Any] | None) -> list[float]:
    """A run's samples as history.load_series adds them to its cell (the positive ones):
    all of them, nearly always, converted in C."""
    if not samples:
        return []
    try:
        if min(samples) > 0:
            return list(map(float, samples))
    except TypeError:  # a null among them (never from ingest's validated documents)
        pass
    return [float(x) for x in samples if x is not None and x > 0]


def row_of(document_id: int, machine_id: int, commit_id: int,
           rows: Sequence[tuple[Any, ...]]) -> dict[str, Any]:
    return {"document_id": document_id, "machine_id": machine_id, "commit_id": commit_id,
            "format": FORMAT, "packed": pack(rows)}


def rebuild(session: Session, documents: Sequence[tuple[int, int, int]]
            ) -> dict[int, bytes]:
    """Write the rows of these (document, machine, commit) from their results; returns
    the packed points per document."""
    if not documents:
        return {}
    ids = [d for d, _, _ in documents]
    found: dict[int, list[tuple[Any, ...]]] = {d: [] for d in ids}
    for doc, *values in session.connection().execute(
            select(Result.document_id, Result.dataset_id, Result.configuration_id,
                   Result.codec_set_id, Result.ratio, Result.compressed_bytes,
                   Result.c_median, Result.d_median, Result.c_instructions_per_mb,
                   Result.d_instructions_per_mb, Result.c_samples, Result.d_samples)
            .where(Result.document_id.in_(ids), Result.roundtrip_ok.is_(True))
            .order_by(Result.document_id, Result.id)):
        found[doc].append(tuple(values))
    rows = [row_of(d, m, c, found[d]) for d, m, c in documents]
    session.execute(insert(ScreenPoints), rows)
    return {r["document_id"]: r["packed"] for r in rows}


def load_window(session: Session, machine_id: int, commits: list[tuple[int, int]],
                keys: set[SeriesKey], skip_busy: bool = True) -> dict[SeriesKey, SeriesCells]:
    """Per series, the regular runs' values at the window's commits (oldest first), as
    load_series(regular_only=True, samples_of=set()) gives them: the series in the order
    the documents first name them, each as cells.SeriesCells."""
    order = dict(commits)
    engine = engine_of(session)
    versioned = engine.dialect.name == "postgresql"  # (packed_cache: by row version)
    docs = [tuple(row) for row in session.connection().execute(
        _window_statement(versioned),
        {"machine_id": machine_id, "commits": list(order),
         **({"known": packed_cache.known(engine)} if versioned else {})})]
    arrays_of: dict[int, Any] = {}
    again: list[int] = []  # held at another version: read again
    for d, _c, _busy, fmt, version, packed in docs:
        if fmt != FORMAT:  # no row (None), or an older format's: rebuilt below
            continue
        if packed is not None:
            arrays_of[d] = np.frombuffer(packed, dtype=DTYPE)
            if versioned:
                packed_cache.put(engine, d, version, arrays_of[d])
        elif (held := packed_cache.get(engine, d, version)) is not None:
            arrays_of[d] = held
        else:
            again.append(d)
    if again:
        version_of = {d: version for d, _c, _b, _f, version, _p in docs}
        for d, packed in session.connection().execute(
                select(ScreenPoints.document_id, ScreenPoints.packed)
                .where(ScreenPoints.document_id.in_(again))):
            arrays_of[d] = np.frombuffer(packed, dtype=DTYPE)
            packed_cache.put(engine, d, version_of[d], arrays_of[d])
    stale = [(d, machine_id, c) for d, c, _busy, _fmt, _version, _packed in docs
             if d not in arrays_of]
    if stale:
        session.execute(delete(ScreenPoints).where(  # an older format's rows
            ScreenPoints.document_id.in_([d for d, _, _ in stale])))
    for d, packed_bytes in rebuild(session, stale).items():
        arrays_of[d] = np.frombuffer(packed_bytes, dtype=DTYPE)
    arrays = [(c, bool(busy) and skip_busy, arrays_of[d])
              for d, c, busy, _fmt, _version, _packed in docs]
    if not keys or not any(a.size for _, _, a in arrays):  # e.g. no good round trip
        return {}
    return _Window(session, order, arrays, keys).series()


@lru_cache(maxsize=2)
def _window_statement(versioned: bool) -> Any:
    """The window's regular documents (reruns left out) in document order, with their
    packed points' format and row version, and the packed points themselves unless this
    process holds them at that version (PostgreSQL; elsewhere always)."""
    packed: Any = ScreenPoints.packed
    version: Any = null()
    if versioned:
        version = literal_column("screen_points.xmin::text")
        packed = case((ScreenPoints.document_id == any_(
            bindparam("known", type_=ARRAY(Integer))), null()), else_=ScreenPoints.packed)
    return (select(ResultDocument.id, ResultDocument.commit_id, ResultDocument.busy,
                   ScreenPoints.format, version, packed)
            .outerjoin(ScreenPoints, ScreenPoints.document_id == ResultDocument.id)
            .where(ResultDocument.machine_id == bindparam("machine_id"),
                   ResultDocument.commit_id.in_(bindparam("commits", expanding=True)),
                   regular_document())
            .order_by(ResultDocument.id))


class _Window:
    """The window's entries (every packed point of its documents, in document order)
    grouped into cells: sorted by (series, commit), stably, so a cell's entries keep
    their document order (the order its runs are listed in)."""

    def __init__(self, session: Session, order: dict[int, int],
                 arrays: list[tuple[int, bool, Any]], keys: set[SeriesKey]) -> None:
        sizes = [a.size for _, _, a in arrays]
        # (joined as bytes: concatenating the records field by field was ~5x slower)
        entries = np.concatenate([a.view(np.uint8) for _, _, a in arrays]).view(DTYPE)
        # commits by git order, then id: the cells' order within a series
        ranked = sorted(order, key=lambda c: (order[c], c))
        rank_of = {c: k for k, c in enumerate(ranked)}
        rank = np.repeat(np.array([rank_of[c] for c, _, _ in arrays], dtype=np.int64), sizes)
        busy = np.repeat(np.array([b for _, b, _ in arrays], dtype=bool), sizes)
        uniq, first, inverse = _distinct_triples(entries, sizes)
        codec_series = series_keys(session, {None if s < 0 else s
                                             for s in np.unique(uniq[:, 2]).tolist()})
        # each (dataset, configuration, codec set) to its series (-1: not one of ``keys``),
        # the series numbered in the order the documents first name them
        by_first = sorted(range(len(uniq)), key=lambda u: int(first[u]))
        self.keys: list[SeriesKey] = []
        number: dict[SeriesKey, int] = {}
        sid_of = np.full(len(uniq), -1, dtype=np.int64)
        self.set_of: list[int | None] = [None] * len(uniq)
        for u in by_first:
            ds, conf, set_id = uniq[u].tolist()
            set_key = None if set_id < 0 else set_id
            self.set_of[u] = set_key
            key = (ds, conf, codec_series[set_key])
            if key in keys:
                if key not in number:
                    number[key] = len(self.keys)
                    self.keys.append(key)
                sid_of[u] = number[key]
        sid = sid_of[inverse.reshape(-1)]
        kept = np.flatnonzero(sid >= 0)
        if kept.size == 0:  # none of the window's points is on the commit's series
            self.keys = []
            return
        cell_key = sid[kept] * len(ranked) + rank[kept]
        sort = np.argsort(cell_key, kind="stable")
        self.entry = kept[sort]  # entries by cell, document order within a cell
        self.triple = inverse.reshape(-1)[self.entry]
        self.entries = entries
        self.busy = busy[self.entry]
        sorted_keys = cell_key[sort]
        self.starts = np.flatnonzero(np.r_[True, sorted_keys[1:] != sorted_keys[:-1]])
        self.ends = np.r_[self.starts[1:], sorted_keys.size]
        # Every cell one entry (a commit measured once, nearly always): per-cell sums over
        # segments of one entry are the entries themselves (_run_medians).
        self.single = self.starts.size == self.entry.size
        cell_sid = sorted_keys[self.starts] // len(ranked)
        self.rank = sorted_keys[self.starts] % len(ranked)
        self.rank_of = rank_of
        self.commit = np.array(ranked, dtype=np.int64)[self.rank]
        self.order = np.array([order[c] for c in ranked], dtype=np.int64)[self.rank]
        self.medians: dict[str, Any] = {}
        self.se: dict[str, Any] = {}
        for metric, column in _SPEED_COLUMNS.items():
            self.medians[metric], self.se[metric] = self._run_medians(column)
        self.exact = {metric: self._last_recorded(metric) for metric in EXACT_METRICS}
        counted = (self._column("c_count") > 0) | (self._column("d_count") > 0)  # NaN: False
        self.counted = counted if self.single else np.logical_or.reduceat(counted, self.starts)
        bounds = np.flatnonzero(np.r_[True, cell_sid[1:] != cell_sid[:-1], True])
        self.ranges = {int(cell_sid[a]): (int(a), int(b))
                       for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True)}

    def _column(self, name: str) -> Any:
        """One field of the entries, by cell (np.take: ~5x faster than indexing the
        strided field of the packed records)."""
        return np.take(self.entries[name], self.entry)

    def _run_medians(self, column: str) -> tuple[Any, Any]:
        """Per cell, the median of its runs of one speed metric (its entries not busy and
        > 0; NaN without): a cell of one run (nearly all) is that run's value, summed with
        zeros (exact); the few of several runs by engine.run_median, as CommitValues.median.
        And the standard error of a cell of one run (its run's; NaN with fewer than three
        samples), inf where it is not known so (several runs pool their samples: read them)."""
        values = self._column(column)
        runs = ~self.busy & (values > 0)  # False for NaN
        se_column = self._column(column[0] + "_se")
        if self.single:  # what the sums below give when every segment is one entry
            return np.where(runs, values, np.nan), np.where(runs, se_column, np.inf)
        count = np.add.reduceat(runs.astype(np.int64), self.starts)
        one = count == 1
        out = np.where(one, np.add.reduceat(np.where(runs, values, 0.0), self.starts), np.nan)
        for c in np.flatnonzero(count > 1).tolist():
            a, b = self.starts[c], self.ends[c]
            out[c] = run_median(values[a:b][runs[a:b]].tolist())
        se = np.add.reduceat(np.where(runs, se_column, 0.0), self.starts)
        return out, np.where(one, se, np.inf)  # inf: not known from one run

    def _last_recorded(self, column: str) -> Any:
        """Per cell, the value of its last entry (document order) that recorded this exact
        metric, NaN where none did: what ``_values`` leaves in CommitValues (busy runs
        included: sizes do not depend on the machine's load)."""
        values = self._column(column)
        out = values[self.ends - 1]  # a cell's last entry: nearly always it recorded it
        for c in np.flatnonzero(np.isnan(out) & (self.ends - self.starts > 1)).tolist():
            kept = values[self.starts[c]:self.ends[c]]
            kept = kept[~np.isnan(kept)]
            if kept.size:
                out[c] = kept[-1]
        return out

    def series(self) -> dict[SeriesKey, SeriesCells]:
        out = {}
        for s, key in enumerate(self.keys):
            a, b = self.ranges[s]
            out[key] = SeriesCells(self.commit[a:b], self.order[a:b],
                                   {m: v[a:b] for m, v in self.medians.items()},
                                   partial(self._values, a),
                                   {m: v[a:b] for m, v in self.exact.items()},
                                   self.counted[a:b], (self.rank_of, self.rank[a:b]),
                                   {m: v[a:b] for m, v in self.se.items()})
        return out

    def _values(self, first: int, j: int) -> CommitValues:
        """The CommitValues of cell ``first + j``, made from its entries as load_series
        makes them: sizes the last recorded, counts of every run, speeds of the runs not
        on a busy machine."""
        c = first + j
        a, b = int(self.starts[c]), int(self.ends[c])
        cv = CommitValues(int(self.commit[c]), int(self.order[c]),
                          self.set_of[int(self.triple[a])])
        cv.samples_loaded = False
        rows = self.entries[self.entry[a:b]].tolist()
        for (_ds, _conf, _set, ratio, cbytes, cmed, dmed, cic, dic, _cse, _dse), busy in zip(
                rows, self.busy[a:b].tolist(), strict=True):
            if ratio == ratio:  # not NaN
                cv.ratio = ratio
            if cbytes == cbytes:
                cv.compressed_bytes = cbytes
            if cic > 0:  # False for NaN
                cv.counts["compress_instructions_per_mb"].append(cic)
            if dic > 0:
                cv.counts["decompress_instructions_per_mb"].append(dic)
            if busy:
                cv.busy_runs += 1
                continue
            if cmed > 0:
                cv.runs["compress_mbps"].append(cmed)
            if dmed > 0:
                cv.runs["decompress_mbps"].append(dmed)
        return cv


_SPEED_COLUMNS = {"compress_mbps": "c_median", "decompress_mbps": "d_median"}
_BITS = 21


_TRIPLE = ("dataset", "configuration", "codec_set")


def _distinct_triples(entries: Any, sizes: Sequence[int] = ()) -> tuple[Any, Any, Any]:
    """The distinct (dataset, configuration, codec set) of the entries (k x 3), the first
    entry of each and each entry's: as np.unique(axis=0) gives them, from one int64 per
    entry when the ids fit in 21 bits each (a sort of ints, not of rows: ~10x faster).
    Documents (``sizes``: their entries, in order) that all list the same series in the
    same order, as a machine's runs of one suite do, are answered from the first alone:
    its first entries are the first ones, and each document repeats its inverse."""
    k = sizes[0] if sizes else 0
    if len(sizes) > 1 and k > 0 and all(n == k for n in sizes):
        rows = entries.reshape(len(sizes), k)
        if all(bool((rows[f] == rows[f][:1]).all()) for f in _TRIPLE):
            uniq, first, inverse = _distinct_triples(rows[0])
            return uniq, first, np.tile(inverse.reshape(-1), len(sizes))
    columns = [entries["dataset"].astype(np.int64), entries["configuration"].astype(np.int64),
               entries["codec_set"].astype(np.int64) + 1]  # no codec set: -1 -> 0
    if min(int(c.min()) for c in columns) < 0 or max(int(c.max()) for c in columns) >> _BITS:
        return np.unique(np.stack([columns[0], columns[1], columns[2] - 1], axis=1), axis=0,
                         return_index=True, return_inverse=True)
    packed = (columns[0] << 2 * _BITS) | (columns[1] << _BITS) | columns[2]
    uniq, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    mask = (1 << _BITS) - 1
    return (np.stack([uniq >> 2 * _BITS, (uniq >> _BITS) & mask, (uniq & mask) - 1], axis=1),
            first, inverse)
