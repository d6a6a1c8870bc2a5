"""Tradeoff: every configuration of one commit, machine and dataset, its size and speeds,
relative to a reference setting, and which are on the Pareto front.

One grouped read of the commit's results on the machine and dataset, per configuration
and codec set, serves both the codec series index (which series this commit was
measured in) and the points; the points are plain dicts in TradeoffPoint's field order,
serialised by orjson (as history's are). Built so, a request reads three lookups and
that one statement (plus the counted runs' values, only when there are any), where
the ORM objects, pydantic models and per-request statements it replaced cost it more
than its SQL (docs/perf/backend.md)."""

from __future__ import annotations

import math
import operator
import statistics
from collections import defaultdict
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, or_, select
from sqlalchemy.orm import Session

from basketbench.analysis.configuration import ConfigSelector
from basketbench.analysis.merging import combine
from basketbench.analysis.series import commit_set_rows, index_of
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import get_commit_ref, get_machine_dataset_refs
from basketbench.core.errors import NotFound
from basketbench.models import Configuration, Result
from basketbench.schemas.refs import ConfigurationOut

PointDict = dict[str, Any]


def _pareto(values: list[tuple[float, float] | None]) -> list[bool]:
    """Maximise both coordinates; a point is on the front if nothing dominates it."""
    flags = [False] * len(values)
    live = [(v, i) for i, v in enumerate(values) if v is not None]
    # Sort by ratio desc, speed desc: a point is on the front iff its speed beats
    # every point with a higher-or-equal ratio seen so far.
    live.sort(key=lambda t: (-t[0][0], -t[0][1]))
    best = -math.inf
    for (_ratio, speed), i in live:
        if speed > best:
            flags[i] = True
            best = speed
    return flags


# (sum, count) of each averaged column, so the groups of several codec sets of one series
# merge into the mean over all their results; min and max of the speeds' envelopes.
_AVERAGED = (Result.ratio, Result.compressed_bytes, Result.c_median, Result.d_median)
_COUNTED = (Result.c_instructions_per_mb, Result.d_instructions_per_mb)


@lru_cache(maxsize=1)
def _groups_statement() -> Any:
    """The commit's results on one machine and dataset grouped per configuration and codec
    set, in the order the points are shown (setting, codec): every configuration, so the
    same rows give the codec series index; built once."""
    sums = [f(col) for col in _AVERAGED for f in (func.sum, func.count)]
    per = (select(Result.configuration_id, Result.codec_set_id, *sums,
                  func.min(Result.c_min), func.max(Result.c_max),
                  func.min(Result.d_min), func.max(Result.d_max),
                  *(func.count(col) for col in _COUNTED))
           .where(Result.commit_id == bindparam("commit_id"),
                  Result.machine_id == bindparam("machine_id"),
                  Result.dataset_id == bindparam("dataset_id"))
           .group_by(Result.configuration_id, Result.codec_set_id)
           .subquery())
    return (select(*per.c)
            .join(Configuration, Configuration.id == per.c.configuration_id)
            .order_by(Configuration.setting, Configuration.codec, per.c.configuration_id,
                      per.c.codec_set_id))


@lru_cache(maxsize=1)
def _counts_statement() -> Any:
    """The counted runs' instructions per MB of some configurations and codec sets."""
    return (select(Result.configuration_id, Result.codec_set_id, *_COUNTED)
            .where(Result.commit_id == bindparam("commit_id"),
                   Result.machine_id == bindparam("machine_id"),
                   Result.dataset_id == bindparam("dataset_id"),
                   Result.configuration_id.in_(bindparam("configuration_ids", expanding=True)),
                   or_(*(col.is_not(None) for col in _COUNTED))))


def tradeoff(session: Session, commit: str, machine: str, dataset: str, sel: ConfigSelector,
             reference: int | None, codecs: str | None = None) -> dict[str, Any]:
    """JSON-ready dict shaped like schemas.analysis.TradeoffOut."""
    commit_id, sha, order = get_commit_ref(session, commit)
    m, ds_id, ds_name, _ = get_machine_dataset_refs(session, machine, dataset)
    params = {"commit_id": commit_id, "machine_id": m.id, "dataset_id": ds_id}
    groups = [tuple(row) for row in session.execute(_groups_statement(), params)]
    # The codec series of this commit's results (every configuration): one commit, so
    # each set reaches from this commit's git order to itself.
    choice = index_of(session, commit_set_rows((row[1] for row in groups), order)).pick(codecs)
    chosen = set(choice.ids)
    confs = dimcache.configurations(session, {row[0] for row in groups})
    wanted = {cid for cid, conf in confs.items() if sel.matches(conf)}
    shown = [row for row in groups if row[1] in chosen and row[0] in wanted]
    merged = _merge(shown)
    if reference is not None and not any(confs[cid].setting == reference for cid in merged):
        raise NotFound(f"reference setting {reference} has no result here")
    counted = any(row[14] or row[15] for row in shown)
    counts = _count_medians(session, params, merged, chosen) if counted else {}
    points = [_point(confs[cid], values, counts) for cid, values in merged.items()]
    ref = next((values for cid, values in merged.items() if confs[cid].setting == reference),
               None)
    for side, index in (("pareto_compress", 2), ("pareto_decompress", 3)):
        flags = _pareto([(v[0], v[index]) if v[0] is not None and v[index] is not None
                         and confs[cid].codec != "memcpy" else None
                         for cid, v in merged.items()])
        for point, flag in zip(points, flags, strict=True):
            point[side] = flag
    for point, values in zip(points, merged.values(), strict=True):
        point["relative"] = None if ref is None else {
            name: _rel(values[k], ref[k]) for k, name in enumerate(
                ("ratio", "compressed_bytes", "compress_mbps", "decompress_mbps"))}
    return {"commit": sha, "machine": m.model_dump(), "dataset": ds_name,
            "reference": reference, "points": points, "codecs": choice.shown,
            "codec_series": choice.available}


Values = tuple[Any, ...]
"""A configuration's means (ratio, compressed bytes, compress and decompress median) and
envelopes (compress min, max, decompress min, max)."""


def _merge(rows: list[tuple[Any, ...]]) -> dict[int, Values]:
    """One entry per configuration (rows in shown order): the means over the results of
    its chosen codec sets (sums and counts added; the mean of one set as SQL's avg
    computes it), and the envelopes of their speeds."""
    sums: dict[int, list[Any]] = {}
    for row in rows:
        cid = row[0]
        s = sums.get(cid)
        if s is None:
            sums[cid] = list(row[2:14])
            continue
        for k in range(0, 8, 2):  # sums and counts of the averaged columns
            s[k] = combine(operator.add, s[k], row[2 + k])
            s[k + 1] += row[3 + k]
        s[8], s[10] = combine(min, s[8], row[10]), combine(min, s[10], row[12])
        s[9], s[11] = combine(max, s[9], row[11]), combine(max, s[11], row[13])
    out: dict[int, Values] = {}
    for cid, s in sums.items():
        ratio, size, cmed, dmed = (None if s[k + 1] == 0 else s[k] / s[k + 1]
                                   for k in range(0, 8, 2))
        out[cid] = (ratio, size, cmed, dmed, s[8], s[9], s[10], s[11])
    return out


def _point(conf: ConfigurationOut, v: Values, counts: dict[tuple[int, int], float]
           ) -> PointDict:
    """A TradeoffPoint's fields in order (the Pareto flags and ``relative`` filled after)."""
    size = v[1]
    return {
        "configuration_id": conf.id, "setting": conf.setting, "algorithm": conf.algorithm,
        "codec": conf.codec, "level": conf.level, "label": conf.label,
        "ratio": None if v[0] is None else float(v[0]),
        "compressed_bytes": None if size is None else int(size),
        "compress_mbps": _speed(v[2], v[4], v[5]), "decompress_mbps": _speed(v[3], v[6], v[7]),
        "pareto_compress": False, "pareto_decompress": False, "relative": None,
        "compress_instructions_per_mb": counts.get((conf.id, 0)),
        "decompress_instructions_per_mb": counts.get((conf.id, 1))}


def _speed(median: Any, lo: Any, hi: Any) -> dict[str, Any] | None:
    return None if median is None else {"median": float(median), "min": _float(lo),
                                        "max": _float(hi)}


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _rel(a: Any, b: Any) -> float | None:
    return None if a is None or b in (None, 0) else float(a) / float(b)


def _count_medians(session: Session, params: dict[str, Any], merged: dict[int, Values],
                   chosen: set[int | None]) -> dict[tuple[int, int], float]:
    """Median instructions per MB of the counted runs, per (configuration, 0 = compress /
    1 = decompress); a handful of rows (only counted runs carry them), so in Python."""
    rows = session.execute(_counts_statement(),
                           {**params, "configuration_ids": sorted(merged)}).all()
    values: dict[tuple[int, int], list[float]] = defaultdict(list)
    for conf, set_id, c, d in rows:
        if set_id not in chosen:
            continue
        for op, v in ((0, c), (1, d)):
            if v is not None:
                values[(conf, op)].append(float(v))
    return {k: float(statistics.median(v)) for k, v in values.items()}

