"""History: one metric of one series (machine, dataset, configuration) along git order,
aggregated in SQL per commit and codec set, in one codec series, downsampled to the points
shown."""

from __future__ import annotations

import math
import operator
from collections import Counter
from collections.abc import Callable, Sequence
from functools import lru_cache, partial
from typing import Any

from sqlalchemy import Float, bindparam, cast, func, null, select
from sqlalchemy.orm import Session

from basketbench.analysis.configuration import (
    ConfigSelector,
    configuration_lookup,
    resolve_configuration,
)
from basketbench.analysis.merging import combine
from basketbench.analysis.schemas import SeriesOut
from basketbench.analysis.series import index_of, series_index
from basketbench.catalog import commit_heads as commitheads
from basketbench.catalog.lookup import get_machine_dataset_refs
from basketbench.catalog.service import order_bounds
from basketbench.changes.service import series_markers
from basketbench.core.errors import BadRequest
from basketbench.core.sqlutil import plain_rows
from basketbench.models import Commit, Result
from basketbench.models.result import COUNT_METRICS, METRICS
from basketbench.results import provenance


def _metric_sums(metric: str) -> tuple[Any, Any, Any, Any, Any, Any]:
    """(sum, count, min, max, stddev, n) of one metric over a group of results: sums, not
    averages, so groups of one commit measured with several codec sets of a series can be
    merged exactly (history). Values come back as floats (the API's type)."""
    if metric == "ratio":
        col = Result.ratio
        return (func.sum(col), func.count(col), func.min(col), func.max(col),
                cast(null(), Float), func.count(col))
    if metric == "compressed_bytes":
        col = Result.compressed_bytes
        return (cast(func.sum(col), Float), func.count(col), cast(func.min(col), Float),
                cast(func.max(col), Float), cast(null(), Float), func.count(col))
    if metric in COUNT_METRICS:  # one counted pass per result: no spread of its own
        col = getattr(Result, f"{metric[0]}_instructions_per_mb")
        return (func.sum(col), func.count(col), func.min(col), func.max(col),
                cast(null(), Float), func.count(col))
    p = "c" if metric == "compress_mbps" else "d"
    median = getattr(Result, f"{p}_median")
    return (func.sum(median), func.count(median), func.min(getattr(Result, f"{p}_min")),
            func.max(getattr(Result, f"{p}_max")), func.max(getattr(Result, f"{p}_stddev")),
            func.sum(getattr(Result, f"{p}_n")))


PointDict = dict[str, Any]
"""One history point: a dict with schemas.analysis.HistoryPoint's fields, in its order (the
answer's bytes follow it; tests/backend/analysis/test_history_points.py checks it). The one
shape from the query to the answer: a history has thousands of points, a pydantic model
costs ~20 us to build, and dicts made in one comprehension go to orjson as they are."""


@lru_cache(maxsize=64)
def _history_statement(metric: str, from_lo: bool, to_hi: bool, dialect: str) -> Any:
    """History's query, built once per metric, range kind and dialect (building the
    expression cost a request about a millisecond): one row per commit and codec set of a
    series, grouped over the covering index, with the commit's id, git order and row
    version (its sha, date, author and message come from catalog/commit_heads.py). Without
    a commit range these rows are also the series index (which codec series exist and how
    far each reaches): one scan of the series, not two."""
    total, count, vmin, vmax, vstd, n = _metric_sums(metric)
    per_set = (select(Result.commit_id, Result.codec_set_id, total.label("total"),
                      count.label("count"), vmin.label("vmin"), vmax.label("vmax"),
                      vstd.label("vstd"), n.label("n"), func.max(Result.run_id).label("run_id"))
               .where(Result.machine_id == bindparam("machine_id"),
                      Result.dataset_id == bindparam("dataset_id"),
                      Result.configuration_id == bindparam("configuration_id"))
               .group_by(Result.commit_id, Result.codec_set_id)
               .subquery())
    agg = per_set.c
    stmt = (select(Commit.id, Commit.order, commitheads.version_column(dialect),
                   agg.codec_set_id, agg.total, agg.count, agg.vmin, agg.vmax, agg.vstd, agg.n,
                   agg.run_id)
            .join(per_set, agg.commit_id == Commit.id)
            .order_by(Commit.order, Commit.date, Commit.id, agg.codec_set_id))
    if from_lo:
        stmt = stmt.where(Commit.order >= bindparam("lo"))
    if to_hi:
        stmt = stmt.where(Commit.order <= bindparam("hi"))
    return stmt


def history(session: Session, machine: str, dataset: str, metric: str, sel: ConfigSelector,
            commit_from: str | None, commit_to: str | None,
            max_points: int, codecs: str | None = None) -> dict[str, Any]:
    """JSON-ready dict shaped like schemas.analysis.HistoryOut."""
    if metric not in METRICS:
        raise BadRequest(f"unknown metric {metric!r}", list(METRICS))
    m, ds_id, ds_name, found = get_machine_dataset_refs(session, machine, dataset,
                                                        *configuration_lookup(sel))
    conf = resolve_configuration(session, sel, found)
    lo, hi = order_bounds(session, commit_from, commit_to)
    params = {"machine_id": m.id, "dataset_id": ds_id, "configuration_id": conf.id,
              "lo": lo, "hi": hi}
    dialect = session.get_bind().dialect.name
    rows = plain_rows(session, _history_statement(metric, lo is not None, hi is not None,
                                                   dialect), params)
    if lo is None and hi is None:
        index = index_of(session, _index_rows(rows))
    else:
        index = series_index(session, [Result.machine_id == m.id, Result.dataset_id == ds_id,
                                       Result.configuration_id == conf.id])
    choice = index.pick(codecs)
    chosen = set(choice.ids)
    commit_ids: list[int] = []
    points = _history_points(rows, chosen, index.described,
                             partial(commitheads.heads, session), commit_ids)
    # Markers are the recorded changes (changes/detection), so plot and inbox agree.
    changes = series_markers(session, m.id, ds_id, conf.id, metric, choice.ids, lo, hi)
    total = len(points)
    downsampled = total > max_points
    if downsampled:
        keep = {c["sha"] for c in changes} | {c["previous_sha"] for c in changes}
        id_of = dict(zip((p["sha"] for p in points), commit_ids, strict=True))
        points = _downsample(points, max_points, keep)
        commit_ids = [id_of[p["sha"]] for p in points]
    # How each shown point was measured, looked up for the points kept (after
    # downsampling): by reference, each build listed once in ``builds``.
    builds, build_of = provenance.build_refs(session, m.id, set(commit_ids), chosen)
    for p, commit_id in zip(points, commit_ids, strict=True):
        build_id = build_of.get(commit_id)
        if build_id is not None:
            p["build_id"] = build_id
    series = SeriesOut(machine=m, dataset=ds_name, configuration=conf, metric=metric)
    return {"series": series.model_dump(mode="json"), "points": points,
            "changes": changes, "downsampled": downsampled,
            "total_points": total, "codecs": choice.shown, "codec_series": choice.available,
            "builds": builds}


def _index_rows(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """series_index's rows (set id, newest and oldest git order, commits) from history's
    rows of one commit and set each (id, order, version, set id, ...), which come in git
    order: a set's first row holds its oldest order and its last row its newest. Built
    with dict and Counter over the columns (C loops): the per-row Python loop this
    replaces was ~1.2 ms of a 2 000-point request."""
    sets = [row[3] for row in rows]
    orders = [row[1] for row in rows]
    newest = dict(zip(sets, orders, strict=True))  # later rows overwrite earlier ones
    oldest = dict(zip(reversed(sets), reversed(orders), strict=True))
    return [(set_id, hi, oldest[set_id], count)
            for (set_id, hi), count in zip(newest.items(), map(Counter(sets).__getitem__, newest),
                                           strict=True)]


def _history_points(rows: Sequence[Any], chosen: set[int | None],
                    described: dict[int, dict[str, Any]],
                    heads_of: Callable[[list[tuple[int, Any]]], dict[int, commitheads.CommitHead]],
                    commit_ids: list[int] | None = None,
                    ) -> list[PointDict]:
    """Points as dicts (HistoryPoint's fields, in order), one per commit with a value, from
    the rows of the chosen codec sets; each commit's sha, date, author and message's first
    line by ``heads_of`` (commitheads.heads; a commit deleted since the query is left
    out). ``build`` is left None (history fills it for the points it keeps); each point's
    commit id is appended to ``commit_ids`` when given."""
    kept = [r for r in rows if r[3] in chosen and r[5]]
    if any(a[0] == b[0] for a, b in zip(kept, kept[1:], strict=False)):
        kept = _merge_sets(kept)
    heads = heads_of([(r[0], r[2]) for r in kept])
    if commit_ids is not None:
        commit_ids.extend(r[0] for r in kept if r[0] in heads)
    return [
        {"sha": head.sha, "order": order, "date": head.date, "author": head.author,
         "message": head.message, "value": total / count, "min": vmin, "max": vmax,
         "stddev": vstd, "n": n if n is None or type(n) is int else int(n), "run_id": run_id,
         **({"codecs": described[set_id]} if set_id is not None and set_id in described
            else {})}
        for (commit_id, order, _version, set_id, total, count, vmin, vmax, vstd, n, run_id)
        in kept if (head := heads.get(commit_id)) is not None]


def _merge_sets(rows: list[Any]) -> list[tuple[Any, ...]]:
    """One row per commit: a commit measured with several sets of one series (rows sorted
    by commit) has their sums added, so its value is the mean of all its results."""
    out: list[list[Any]] = []
    for row in rows:
        if not out or out[-1][0] != row[0]:
            out.append(list(row))
            continue
        m = out[-1]
        set_id, total, count, vmin, vmax, vstd, n, run_id = row[3:]
        m[3] = combine(max, m[3], set_id)  # the point names the newest set
        m[4] += total
        m[5] += count
        m[6] = combine(min, m[6], vmin)
        m[7] = combine(max, m[7], vmax)
        m[8] = combine(max, m[8], vstd)
        m[9] = combine(operator.add, m[9], n)
        m[10] = combine(max, m[10], run_id)
    return [tuple(m) for m in out]


def _downsample(points: list[PointDict], max_points: int, keep: set[str]) -> list[PointDict]:
    """One real point per bucket (its median), with min/max widened to the bucket's
    envelope so spikes stay visible; change points are always kept. The representative
    is a copy (its other fields, and their order, as they were)."""
    size = math.ceil(len(points) / max_points)
    out: list[PointDict] = []
    for start in range(0, len(points), size):
        bucket = points[start:start + size]
        kept = [p for p in bucket if p["sha"] in keep]
        rest = [p for p in bucket if p["sha"] not in keep]
        if rest:
            rep = sorted(rest, key=lambda p: p["value"])[len(rest) // 2]
            mins = [p["min"] for p in rest if p["min"] is not None]
            maxs = [p["max"] for p in rest if p["max"] is not None]
            kept.append({**rep, "min": min(mins) if mins else rep["min"],
                         "max": max(maxs) if maxs else rep["max"],
                         "n": sum(p["n"] or 0 for p in rest)})
        out.extend(sorted(kept, key=lambda p: p["order"]))
    return out
