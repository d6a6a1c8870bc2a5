"""The screen's points of each document (models/screen.py, table screen_points): packed at
ingest from the rows it writes, read by a detection pass for its window instead of the
window's ``results`` rows.

``load_window`` returns what ``history.load_series(..., regular_only=True,
samples_of=set())`` returns for the same commits, value for value (tests/backend/changes/
test_screen_points.py runs both paths over the same histories and compares every change
recorded): the same runs, exact values and counts per series and commit, without samples
(``history.fill_samples`` reads those from ``results`` for the few points that need them).
Documents of the window without a row (written before migration 0042, or by a bulk seed
that bypassed ingest) get theirs from ``results`` first (``rebuild``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from sqlalchemy import delete, insert, or_, select
from sqlalchemy.orm import Session

from basketbench.changes.detection.common import RERUN_TRIGGERS
from basketbench.changes.detection.history import CommitValues, SeriesKey
from basketbench.models import Result, ResultDocument, Run, ScreenPoints
from basketbench.results.codec_sets import series_keys

FORMAT = 1
# One entry per result with a good round trip. NaN: not recorded (None); -1: no codec set.
# The speed medians and counts are stored as recorded: the "> 0" rules apply when read,
# as load_series applies them.
DTYPE = np.dtype([("dataset", "<i4"), ("configuration", "<i4"), ("codec_set", "<i4"),
                  ("ratio", "<f8"), ("compressed_bytes", "<f8"), ("c_median", "<f8"),
                  ("d_median", "<f8"), ("c_count", "<f8"), ("d_count", "<f8")])
_NAN = float("nan")
_UNSEEN: Any = object()


def pack(rows: Iterable[tuple[Any, ...]]) -> bytes:
    """rows: (dataset, configuration, codec set, ratio, compressed bytes, compress median,
    decompress median, compress and decompress instructions per MB) of the results with a
    good round trip; None where not recorded."""
    arr = np.array([(ds, conf, -1 if cs is None else cs,
                     *(_NAN if x is None else float(x) for x in rest))
                    for ds, conf, cs, *rest in rows], dtype=DTYPE)
    return arr.tobytes()


def row_of(document_id: int, machine_id: int, commit_id: int,
           rows: Iterable[tuple[Any, ...]]) -> dict[str, Any]:
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
                   Result.d_instructions_per_mb)
            .where(Result.document_id.in_(ids), Result.roundtrip_ok.is_(True))
            .order_by(Result.document_id, Result.id)):
        found[doc].append(tuple(values))
    rows = [row_of(d, m, c, found[d]) for d, m, c in documents]
    session.execute(insert(ScreenPoints), rows)
    return {r["document_id"]: r["packed"] for r in rows}


def load_window(session: Session, machine_id: int, commits: list[tuple[int, int]],
                keys: set[SeriesKey], skip_busy: bool = True
                ) -> dict[SeriesKey, list[CommitValues]]:
    """Per series, the regular runs' values at the window's commits (oldest first), as
    load_series(regular_only=True, samples_of=set()) gives them."""
    order = dict(commits)
    reruns = select(Run.id).where(Run.trigger.in_(RERUN_TRIGGERS))
    docs = session.connection().execute(
        select(ResultDocument.id, ResultDocument.commit_id, ResultDocument.busy,
               ScreenPoints.format, ScreenPoints.packed)
        .outerjoin(ScreenPoints, ScreenPoints.document_id == ResultDocument.id)
        .where(ResultDocument.machine_id == machine_id, ResultDocument.commit_id.in_(order),
               or_(ResultDocument.run_id.is_(None), ResultDocument.run_id.not_in(reruns)))
        .order_by(ResultDocument.id)).all()
    stale = [(d, machine_id, c) for d, c, _busy, fmt, packed in docs
             if packed is None or fmt != FORMAT]
    if stale:
        session.execute(delete(ScreenPoints).where(  # an older format's rows
            ScreenPoints.document_id.in_([d for d, _, _ in stale])))
    rebuilt = rebuild(session, stale)
    arrays = [(c, bool(busy) and skip_busy,
               np.frombuffer(rebuilt.get(d, packed), dtype=DTYPE))
              for d, c, busy, _fmt, packed in docs]
    codec_series = series_keys(session, {None if s < 0 else s for _, _, a in arrays
                                         for s in np.unique(a["codec_set"]).tolist()})
    # A window's documents repeat the same (dataset, configuration, codec set) triples:
    # each is mapped to its series once (None: not one of ``keys``).
    series_of: dict[tuple[int, int, int], tuple[SeriesKey, int | None] | None] = {}
    out: dict[SeriesKey, dict[int, CommitValues]] = defaultdict(dict)
    for cid, busy, arr in arrays:
        o = order[cid]
        for ds, conf, set_id, ratio, cbytes, cmed, dmed, cic, dic in arr.tolist():
            triple = (ds, conf, set_id)
            found = series_of.get(triple, _UNSEEN)
            if found is _UNSEEN:
                set_key = None if set_id < 0 else set_id
                key = (ds, conf, codec_series[set_key])
                found = series_of[triple] = (key, set_key) if key in keys else None
            if found is None:
                continue
            key, set_key = found
            per = out[key]
            cv = per.get(cid)
            if cv is None:
                cv = per[cid] = CommitValues(cid, o, set_key)
                cv.samples_loaded = False
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
    return {k: sorted(v.values(), key=lambda c: (c.order, c.commit_id)) for k, v in out.items()}
