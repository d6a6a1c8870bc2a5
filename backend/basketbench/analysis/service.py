"""history, tradeoff and compare: aggregated in SQL, only what is shown is fetched."""

from __future__ import annotations

import math
import operator
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache, partial
from typing import Any

import orjson
from sqlalchemy import Float, Integer, Text, bindparam, cast, func, null, or_, select
from sqlalchemy.orm import Session

from basketbench.analysis import compare_view
from basketbench.analysis.schemas import (
    CompareSide,
    Relative,
    SeriesOut,
    SpeedSummary,
    TradeoffOut,
    TradeoffPoint,
)
from basketbench.catalog import commit_heads as commitheads
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import (
    get_commit,
    get_dataset,
    get_dataset_ref,
    get_machine,
    get_machine_ref,
)
from basketbench.catalog.service import machine_ref, order_bounds
from basketbench.changes.service import series_markers
from basketbench.core.config import Settings
from basketbench.core.errors import BadRequest, NotFound
from basketbench.models import Commit, Configuration, Machine, Result, ResultDocument
from basketbench.models.result import COUNT_METRICS, METRICS, SPEED_METRICS
from basketbench.results import codec_sets as codec_service
from basketbench.results import provenance
from basketbench.schemas.refs import ConfigurationOut
from basketbench.stats.counts import DEFAULT_THRESHOLD_PERCENT, count_change
from basketbench.stats.deltas import (
    MIN_EFFECT_PCT,
    finite_delta_pct,
    mann_whitney_batch,
    speed_delta,
)
from basketbench.stats.fdr import bh_adjust_partial


@dataclass
class ConfigSelector:
    """A configuration by id or by its fields (setting is needed for history)."""

    configuration_id: int | None = None
    setting: int | None = None
    codec: str | None = None
    preconditioner: str = "none"
    dictionary_size: int = 0
    basket_size: int = 0
    mode: str = "basket"
    threads: int = 1

    def clauses(self, with_setting: bool = True) -> list[Any]:
        out = [Configuration.preconditioner == self.preconditioner,
               Configuration.dictionary_size == self.dictionary_size,
               Configuration.basket_size == self.basket_size,
               Configuration.mode == self.mode, Configuration.threads == self.threads]
        if with_setting and self.setting is not None:
            out.append(Configuration.setting == self.setting)
        if self.codec is not None:
            out.append(Configuration.codec == self.codec)
        return out


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


@lru_cache(maxsize=2)
def _configuration_statement(with_codec: bool) -> Any:
    """ConfigSelector.clauses() with a setting, as parameters: built once."""
    fields = ["setting", "preconditioner", "dictionary_size", "basket_size", "mode", "threads"]
    if with_codec:
        fields.append("codec")
    return select(Configuration.id).where(
        *(getattr(Configuration, f) == bindparam(f) for f in fields)).limit(2)


def _resolve_configuration(session: Session, sel: ConfigSelector) -> ConfigurationOut:
    """The one configuration ``sel`` names, as columns (no ORM object): history's."""
    if sel.configuration_id is not None:
        found = dimcache.configurations(session, [sel.configuration_id])
        if sel.configuration_id not in found:
            raise NotFound(f"unknown configuration {sel.configuration_id}")
        return found[sel.configuration_id]
    if sel.setting is None:
        raise BadRequest("give configuration_id or setting")
    params = {"setting": sel.setting, "codec": sel.codec, "preconditioner": sel.preconditioner,
              "dictionary_size": sel.dictionary_size, "basket_size": sel.basket_size,
              "mode": sel.mode, "threads": sel.threads}
    ids = list(session.scalars(_configuration_statement(sel.codec is not None), params))
    if not ids:
        raise NotFound("no configuration matches these fields")
    if len(ids) > 1:
        raise BadRequest("several configurations match; give codec or configuration_id", ids)
    return dimcache.configurations(session, ids)[ids[0]]


def _samples_column(metric: str) -> Any:
    return Result.c_samples if metric == "compress_mbps" else Result.d_samples


@dataclass(slots=True)
class Point:
    """One history point; a slotted dataclass because pydantic models cost ~20 us each
    to build and a history has thousands (the API shape is schemas.analysis.HistoryPoint)."""

    sha: str
    order: int
    date: Any
    author: str | None
    message: str | None
    value: float
    min: float | None
    max: float | None
    stddev: float | None
    n: int | None
    run_id: int | None
    codecs: dict[str, Any] | None = None
    build: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"sha": self.sha, "order": self.order, "date": self.date, "author": self.author,
                "message": self.message, "value": self.value, "min": self.min,
                "max": self.max, "stddev": self.stddev, "n": self.n, "run_id": self.run_id,
                "codecs": self.codecs, "build": self.build}


@dataclass
class CodecChoice:
    """The codec series a history / comparison shows, and the ones it could show."""

    ids: list[int | None]
    shown: dict[str, Any] | None
    available: list[dict[str, Any]]

    def clause(self) -> Any:
        present = [i for i in self.ids if i is not None]
        clause = Result.codec_set_id.in_(present)
        return clause | Result.codec_set_id.is_(None) if None in self.ids else clause


@dataclass
class SeriesIndex:
    """The codec series among some results: their set ids, and where each reaches in git
    order (newest and oldest set, commits measured)."""

    ids: dict[str, list[int | None]]
    newest: dict[str, tuple[int, int | None]]  # (git order, set id) of the newest commit
    oldest: dict[str, tuple[int, int | None]]
    commits: dict[str, int]
    described: dict[int, dict[str, Any]]

    def newest_set(self, key: str) -> dict[str, Any] | None:
        set_id = self.newest[key][1]
        return None if set_id is None else self.described[set_id]

    def keys_newest_first(self) -> list[str]:
        return sorted(self.ids, key=lambda k: -self.newest[k][0])

    def pick(self, requested: str | None) -> CodecChoice:
        """The requested series (a series key or a set name), else the newest commit's."""
        if not self.ids:
            return CodecChoice([], None, [])
        if requested is None:
            key = max(self.ids, key=lambda k: self.newest[k][0])
        else:
            keys = [k for k in self.ids if k == requested
                    or (self.newest_set(k) or {}).get("set") == requested]
            if not keys:
                raise NotFound(f"no results measured with codec set {requested!r} here; "
                               f"available: {sorted(self.ids)}")
            key = max(keys, key=lambda k: self.newest[k][0])
        return CodecChoice(self.ids[key], self.newest_set(key), self.available())

    def available(self, first: SeriesIndex | None = None) -> list[dict[str, Any]]:
        """Every series with a codec set, newest first (CodecSeriesOut); `first` names whose
        oldest versions to show (compare: the base side's), default this index's own."""
        out = []
        for key in self.keys_newest_first():
            shown = self.newest_set(key)
            if shown is None:
                continue
            src = first if first is not None and key in first.ids else self
            oldest_id = src.oldest[key][1]
            oldest = src.described.get(oldest_id) if oldest_id is not None else None
            out.append({**shown, "commits": self.commits[key],
                        "first_libraries": (oldest or shown)["libraries"],
                        "first_root_version": (oldest or shown)["root_version"],
                        "latest_commits": []})
        return out


def series_index(session: Session, where: list[Any]) -> SeriesIndex:
    """Group the results matching `where` by codec series. Series never mix: a host upgrade
    or another named set is another series, not a change of ROOT."""
    rows = session.execute(
        select(Result.codec_set_id, func.max(Commit.order), func.min(Commit.order),
               func.count(func.distinct(Result.commit_id)))
        .join(Commit, Commit.id == Result.commit_id).where(*where)
        .group_by(Result.codec_set_id)).all()
    return _index_of(session, [tuple(r) for r in rows])


def _index_of(session: Session, rows: list[tuple[Any, ...]]) -> SeriesIndex:
    """rows: (codec set id, newest git order, oldest git order, commits)."""
    described = codec_service.describe(session, {r[0] for r in rows if r[0] is not None})
    keys_of = codec_service.series_keys(session, [r[0] for r in rows])
    index = SeriesIndex(defaultdict(list), {}, {}, defaultdict(int), described)
    for set_id, hi, lo, commits in rows:
        key = keys_of[set_id]
        index.ids[key].append(set_id)
        index.commits[key] += int(commits)
        if key not in index.newest or (hi or 0) > index.newest[key][0]:
            index.newest[key] = (hi or 0, set_id)
        if key not in index.oldest or (lo or 0) < index.oldest[key][0]:
            index.oldest[key] = (lo or 0, set_id)
    return index


def choose_codecs(session: Session, where: list[Any], requested: str | None) -> CodecChoice:
    """The codec series among the results matching `where`: the requested one (a series key
    or a set name), else the one measured on the newest commit."""
    return series_index(session, where).pick(requested)


def machine_codec_series(session: Session, machine: str, latest: int = 2) -> list[dict[str, Any]]:
    """Every codec series a machine measured, newest first, each with its newest commits
    (CodecSeriesOut): compare's default pair is the two newest of one series. From the
    small documents table, not the results."""
    m = get_machine(session, machine)
    rows = session.execute(
        select(ResultDocument.codec_set_id, func.max(Commit.order), func.min(Commit.order),
               func.count(func.distinct(ResultDocument.commit_id)))
        .join(Commit, Commit.id == ResultDocument.commit_id)
        .where(ResultDocument.machine_id == m.id)
        .group_by(ResultDocument.codec_set_id)).all()
    index = _index_of(session, [tuple(r) for r in rows])
    out = index.available()
    for series in out:
        ids = [i for i in index.ids[series["series_key"]] if i is not None]
        shas = session.execute(
            select(Commit.sha, func.max(Commit.order))
            .join(ResultDocument, ResultDocument.commit_id == Commit.id)
            .where(ResultDocument.machine_id == m.id, ResultDocument.codec_set_id.in_(ids))
            .group_by(Commit.sha).order_by(func.max(Commit.order).desc()).limit(latest))
        series["latest_commits"] = [sha for sha, _ in shas]
    return out


@lru_cache(maxsize=64)
def _history_statement(metric: str, from_lo: bool, to_hi: bool, dialect: str) -> Any:
    """History's query, built once per metric, range kind and dialect (building the
    expression cost a request about a millisecond): one row per commit and codec set of a
    series, grouped over the covering index, with the commit's id, git order and row
    version (its sha, date, author and message come from catalog/commit_heads). Without
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
    m = get_machine_ref(session, machine)
    ds_id, ds_name = get_dataset_ref(session, dataset)
    conf = _resolve_configuration(session, sel)
    lo, hi = order_bounds(session, commit_from, commit_to)
    params = {"machine_id": m.id, "dataset_id": ds_id, "configuration_id": conf.id,
              "lo": lo, "hi": hi}
    dialect = session.get_bind().dialect.name
    rows = _plain_rows(session, _history_statement(metric, lo is not None, hi is not None,
                                                   dialect), params)
    if lo is None and hi is None:
        index = _index_of(session, _index_rows(rows))
    else:
        index = series_index(session, [Result.machine_id == m.id, Result.dataset_id == ds_id,
                                       Result.configuration_id == conf.id])
    choice = index.pick(codecs)
    chosen = set(choice.ids)
    commit_ids: list[int] = []
    points = _history_points(rows, chosen, index.described,
                             partial(commitheads.heads, session), commit_ids)
    id_of = {p["sha"]: commit_id for p, commit_id in zip(points, commit_ids, strict=True)}
    # Markers are the recorded changes (changes/detection), so plot and inbox agree.
    changes = series_markers(session, m.id, ds_id, conf.id, metric, choice.ids, lo, hi)
    total = len(points)
    downsampled = total > max_points
    if downsampled:
        keep = {c["sha"] for c in changes} | {c["previous_sha"] for c in changes}
        points = [p.as_dict() for p in _downsample([Point(**p) for p in points], max_points,
                                                   keep)]
    # How each shown point was measured: looked up for the points kept, after downsampling.
    builds = provenance.builds_by_commit(session, m.id, {id_of[p["sha"]] for p in points},
                                         chosen)
    for p in points:
        p["build"] = builds.get(id_of[p["sha"]])
    series = SeriesOut(machine=m, dataset=ds_name, configuration=conf, metric=metric)
    return {"series": series.model_dump(mode="json"), "points": points,
            "changes": changes, "downsampled": downsampled,
            "total_points": total, "codecs": choice.shown, "codec_series": choice.available}


def _plain_rows(session: Session, stmt: Any, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """All rows as the driver's tuples. SQLAlchemy executes (events, error handling, the
    statement guard); the rows are taken from its DBAPI cursor rather than wrapped in Row
    objects one by one, which cost a 2 000-row history ~1.2 ms for nothing."""
    result = session.connection().execute(stmt, params)
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()


def _index_rows(rows: Sequence[Any]) -> list[tuple[Any, ...]]:
    """series_index's rows (set id, newest and oldest git order, commits) from history's
    rows of one commit and set each (id, order, version, set id, ...)."""
    reach: dict[int | None, list[int]] = {}
    for row in rows:
        order, set_id = row[1], row[3]
        seen = reach.get(set_id)
        if seen is None:
            reach[set_id] = [order, order, 1]
        else:
            seen[0] = max(seen[0], order)
            seen[1] = min(seen[1], order)
            seen[2] += 1
    return [(set_id, hi, lo, count) for set_id, (hi, lo, count) in reach.items()]


def _history_points(rows: Sequence[Any], chosen: set[int | None],
                    described: dict[int, dict[str, Any]],
                    heads_of: Callable[[list[tuple[int, Any]]], dict[int, commitheads.CommitHead]],
                    commit_ids: list[int] | None = None,
                    ) -> list[dict[str, Any]]:
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
         "codecs": described.get(set_id) if set_id is not None else None,
         "build": None}
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
        m[3] = _pick(max, m[3], set_id)  # the point names the newest set
        m[4] += total
        m[5] += count
        m[6] = _pick(min, m[6], vmin)
        m[7] = _pick(max, m[7], vmax)
        m[8] = _pick(max, m[8], vstd)
        m[9] = _pick(operator.add, m[9], n)
        m[10] = _pick(max, m[10], run_id)
    return [tuple(m) for m in out]


def _pick(f: Any, a: Any, b: Any) -> Any:
    """f(a, b) of two values that may be missing."""
    return b if a is None else a if b is None else f(a, b)


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _downsample(points: list[Point], max_points: int, keep: set[str]) -> list[Point]:
    """One real point per bucket (its median), with min/max widened to the bucket's
    envelope so spikes stay visible; change points are always kept."""
    size = math.ceil(len(points) / max_points)
    out: list[Point] = []
    for start in range(0, len(points), size):
        bucket = points[start:start + size]
        kept = [p for p in bucket if p.sha in keep]
        rest = [p for p in bucket if p.sha not in keep]
        if rest:
            rep = sorted(rest, key=lambda p: p.value)[len(rest) // 2]
            mins = [p.min for p in rest if p.min is not None]
            maxs = [p.max for p in rest if p.max is not None]
            kept.append(replace(
                rep, min=min(mins) if mins else rep.min, max=max(maxs) if maxs else rep.max,
                n=sum(p.n or 0 for p in rest)))
        out.extend(sorted(kept, key=lambda p: p.order))
    return out


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


def tradeoff(session: Session, commit: str, machine: str, dataset: str, sel: ConfigSelector,
             reference: int | None, codecs: str | None = None) -> TradeoffOut:
    c = get_commit(session, commit)
    m = get_machine(session, machine)
    ds = get_dataset(session, dataset)
    choice = choose_codecs(session, [Result.commit_id == c.id, Result.machine_id == m.id,
                                     Result.dataset_id == ds.id], codecs)
    stmt = (select(Configuration, func.avg(Result.ratio), func.avg(Result.compressed_bytes),
                   func.avg(Result.c_median), func.min(Result.c_min), func.max(Result.c_max),
                   func.avg(Result.d_median), func.min(Result.d_min), func.max(Result.d_max))
            .join(Configuration, Configuration.id == Result.configuration_id)
            .where(Result.commit_id == c.id, Result.machine_id == m.id,
                   Result.dataset_id == ds.id, *sel.clauses(with_setting=False),
                   choice.clause())
            .group_by(Configuration.id)
            .order_by(Configuration.setting, Configuration.codec))
    rows = session.execute(stmt).all()
    if reference is not None and not any(r[0].setting == reference for r in rows):
        raise NotFound(f"reference setting {reference} has no result here")

    def speed(median: Any, lo: Any, hi: Any) -> SpeedSummary | None:
        return None if median is None else SpeedSummary(median=median, min=lo, max=hi)

    def front(idx: int) -> list[bool]:
        return _pareto([
            (r[1], r[idx]) if r[1] is not None and r[idx] is not None
            and r[0].codec != "memcpy" else None for r in rows])

    pc, pd = front(3), front(6)
    ref = next((r for r in rows if r[0].setting == reference), None)
    counts = _count_medians(session, [Result.commit_id == c.id, Result.machine_id == m.id,
                                      Result.dataset_id == ds.id, choice.clause()],
                            [r[0].id for r in rows])

    def rel(a: Any, b: Any) -> float | None:
        return None if a is None or b in (None, 0) else float(a) / float(b)

    points = []
    for i, r in enumerate(rows):
        conf = r[0]
        relative = None
        if ref is not None:
            relative = Relative(ratio=rel(r[1], ref[1]), compressed_bytes=rel(r[2], ref[2]),
                                compress_mbps=rel(r[3], ref[3]),
                                decompress_mbps=rel(r[6], ref[6]))
        points.append(TradeoffPoint(
            configuration_id=conf.id, setting=conf.setting, algorithm=conf.algorithm,
            codec=conf.codec, level=conf.level, label=conf.label, ratio=r[1],
            compressed_bytes=int(r[2]) if r[2] is not None else None,
            compress_mbps=speed(r[3], r[4], r[5]), decompress_mbps=speed(r[6], r[7], r[8]),
            pareto_compress=pc[i], pareto_decompress=pd[i], relative=relative,
            compress_instructions_per_mb=counts.get((conf.id, 0)),
            decompress_instructions_per_mb=counts.get((conf.id, 1))))
    return TradeoffOut.model_validate({
        "commit": c.sha, "machine": machine_ref(m), "dataset": ds.name, "reference": reference,
        "points": points, "codecs": choice.shown, "codec_series": choice.available})


def _count_medians(session: Session, where: list[Any], configuration_ids: list[int]
                   ) -> dict[tuple[int, int], float]:
    """Median instructions per MB of the counted runs, per (configuration, 0 = compress /
    1 = decompress); a handful of rows (only counted runs carry them), so in Python."""
    if not configuration_ids:
        return {}
    rows = session.execute(
        select(Result.configuration_id, Result.c_instructions_per_mb, Result.d_instructions_per_mb)
        .where(*where, Result.configuration_id.in_(configuration_ids),
               or_(Result.c_instructions_per_mb.is_not(None),
                   Result.d_instructions_per_mb.is_not(None)))).all()
    values: dict[tuple[int, int], list[float]] = defaultdict(list)
    for conf, c, d in rows:
        for op, v in ((0, c), (1, d)):
            if v is not None:
                values[(conf, op)].append(float(v))
    return {k: float(statistics.median(v)) for k, v in values.items()}


@dataclass(slots=True)
class _Side:
    """One (dataset, configuration) of one compare side: values, and the raw samples --
    their JSON text as stored (parsed only for the rows that get a test), or a list where
    several runs were merged."""

    ratio: float | None
    cbytes: float | None
    c_median: float | None
    d_median: float | None
    c_samples: str | list[float] | None
    d_samples: str | list[float] | None
    c_ipmb: float | None = None  # instructions per MB (counted runs only)
    d_ipmb: float | None = None


def _has_samples(raw: str | list[float] | None) -> bool:
    """Whether the samples are a non-empty list, mostly without parsing them: in valid
    JSON, "[" followed by anything but blank or "]" starts a non-empty array."""
    if raw is None:
        return False
    if isinstance(raw, str):
        if len(raw) > 2 and raw[0] == "[" and raw[1] not in "] \t\r\n":
            return True
        return bool(orjson.loads(raw))
    return bool(raw)


def _sample_count(raw: str | list[float] | None) -> int:
    """How many samples, without parsing the JSON text: its commas plus one."""
    if raw is None:
        return 0
    if isinstance(raw, str):
        return raw.count(",") + 1 if _has_samples(raw) else 0
    return len(raw)


def _samples(raw: str | list[float] | None) -> list[float] | None:
    return orjson.loads(raw) if isinstance(raw, str) else raw


def _side(session: Session, commit_id: int, machine_id: int, dataset_id: int | None,
          metrics: list[str], codec_clause: Any) -> dict[tuple[int, int], _Side]:
    want_c = "compress_mbps" in metrics
    want_d = "decompress_mbps" in metrics
    cols = [Result.dataset_id, Result.configuration_id, Result.ratio, Result.compressed_bytes,
            Result.c_median, Result.d_median,
            cast(Result.c_samples, Text) if want_c else Result.c_n,
            cast(Result.d_samples, Text) if want_d else Result.d_n,
            Result.c_instructions_per_mb, Result.d_instructions_per_mb]
    stmt = select(*cols).where(Result.commit_id == commit_id, Result.machine_id == machine_id,
                               codec_clause)
    if dataset_id is not None:
        stmt = stmt.where(Result.dataset_id == dataset_id)
    out: dict[tuple[int, int], _Side] = {}
    repeated: dict[tuple[int, int], list[_Side]] = {}
    # Core execution: plain row tuples (864 per side), no ORM loading per row.
    for row in session.connection().execute(stmt).all():
        ds, conf, ratio, cb, cm, dm, cs, dsmp, ci, di = tuple(row)
        side = _Side(ratio, cb, cm, dm, cs if want_c else None, dsmp if want_d else None,
                     ci, di)
        key = (ds, conf)
        if key in out:  # several runs of this commit: rare, merged below
            repeated.setdefault(key, [out[key]]).append(side)
        else:
            out[key] = side
    for key, sides in repeated.items():
        out[key] = _Side(
            _mean([s.ratio for s in sides]), _mean([s.cbytes for s in sides]),
            _mean([s.c_median for s in sides]), _mean([s.d_median for s in sides]),
            [x for s in sides for x in (_samples(s.c_samples) or [])] or None,
            [x for s in sides for x in (_samples(s.d_samples) or [])] or None,
            _mean([s.c_ipmb for s in sides]), _mean([s.d_ipmb for s in sides]))
    return out


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def compare(session: Session, base_commit: str | None, head_commit: str | None,
            machine: str | None, base_machine: str | None, head_machine: str | None,
            commit: str | None, dataset: str | None, metric: str | None,
            only_significant: bool, codecs: str | None = None,
            settings: Settings | None = None, *, merged: bool = False,
            order: compare_view.Order | None = None, setting: int | None = None,
            limit: int | None = None, offset: int = 0) -> dict[str, Any]:
    """JSON-ready dict shaped like schemas.analysis.CompareOut.

    ``merged``, ``order``, ``setting``, ``limit`` and ``offset`` shape what is shown
    (services.compare_view); ``total`` and ``counts`` are over every row, not the page.

    Speed rows follow detection's rule: a change is significant when its effect passes
    the minimum (per series pattern) and its Mann-Whitney p-value survives
    Benjamini-Hochberg over every speed row compared (q <= detection_fdr)."""
    if metric is not None and metric not in METRICS:
        raise BadRequest(f"unknown metric {metric!r}", list(METRICS))
    if base_commit and head_commit and machine:
        mode = "commits"
        mb = mh = get_machine(session, machine)
        cb, ch = get_commit(session, base_commit), get_commit(session, head_commit)
    elif base_machine and head_machine and commit:
        mode = "machines"
        mb, mh = get_machine(session, base_machine), get_machine(session, head_machine)
        cb = ch = get_commit(session, commit)
    else:
        raise BadRequest("give base_commit+head_commit+machine or "
                         "base_machine+head_machine+commit")
    ds_id = get_dataset(session, dataset).id if dataset else None
    metrics = [metric] if metric else list(METRICS)
    head_series = series_index(session, [Result.commit_id == ch.id, Result.machine_id == mh.id])
    base_series = series_index(session, [Result.commit_id == cb.id, Result.machine_id == mb.id])
    # Both sides in one codec series (builtin: whatever versions each commit pins): the
    # requested one, else the newest both have. With none in common each side shows its own
    # newest series, and `codec_series` is empty, which the dashboard names.
    common = [k for k in head_series.keys_newest_first() if k in base_series.ids]
    wanted = codecs if codecs is not None else (common[0] if common else None)
    head_choice = head_series.pick(wanted)
    base_choice = base_series.pick(wanted)
    in_both = [{**s, "commits": len({cb.id, ch.id})}
               for s in head_series.available(first=base_series)
               if s["series_key"] in base_series.ids]
    base = _side(session, cb.id, mb.id, ds_id, metrics, base_choice.clause())
    head = _side(session, ch.id, mh.id, ds_id, metrics, head_choice.clause())
    keys = sorted(base.keys() & head.keys())
    conf_outs = dimcache.configurations(session, {k[1] for k in keys})
    names = dimcache.dataset_names(session, {k[0] for k in keys})
    fdr = settings.detection_fdr if settings else 0.05
    count_threshold = (settings.detection_count_threshold if settings
                       else DEFAULT_THRESHOLD_PERCENT)
    # Speed rows whose effect passes the minimum are tested together, in one batch; every
    # speed row with samples on both sides counts in the BH family.
    tests: list[tuple[tuple[int, int], str]] = []
    family = 0
    shapes: set[tuple[int, int]] = set()
    tag = mb.tag
    speed_metrics = [met for met in metrics if met in SPEED_METRICS]
    for key in keys:
        b, h = base[key], head[key]
        for met in speed_metrics:
            c = met == "compress_mbps"
            if (_has_samples(b.c_samples if c else b.d_samples)
                    and _has_samples(h.c_samples if c else h.d_samples)):
                family += 1
                shapes.add((_sample_count(b.c_samples if c else b.d_samples),
                            _sample_count(h.c_samples if c else h.d_samples)))
            effect = _min_effect(settings, tag, names[key[0]], conf_outs[key[1]].label, met)
            if speed_delta((b.c_median if c else b.d_median),
                           (h.c_median if c else h.d_median), effect) is not None:
                tests.append((key, met))
    pairs = []
    for key, met in tests:
        c = met == "compress_mbps"
        b, h = base[key], head[key]
        pairs.append((_samples(b.c_samples if c else b.d_samples),
                      _samples(h.c_samples if c else h.d_samples)))
    raw = mann_whitney_batch(pairs)
    qvalues = bh_adjust_partial(raw, family)

    # Plain dicts (shaped like schemas.analysis.CompareRow): thousands of rows, so the
    # loop avoids per-row calls and tuple keys (exact_change's rule inlined).
    conf_dicts = {cid: c.model_dump() for cid, c in conf_outs.items()}
    tested: dict[tuple[int, int], dict[str, tuple[float | None, float | None]]] = {}
    for (key, met), p, q in zip(tests, raw, qvalues, strict=True):
        tested.setdefault(key, {})[met] = (p, q)
    no_test: dict[str, tuple[float | None, float | None]] = {}
    rows: list[dict[str, Any]] = []
    append = rows.append
    for key in keys:
        b, h = base[key], head[key]
        dataset, configuration = names[key[0]], conf_dicts[key[1]]
        if setting is not None and configuration["setting"] != setting:
            continue
        tests_of_key = tested.get(key, no_test)
        for met in metrics:
            p_value: float | None = None
            q_value: float | None = None
            if met == "ratio" or met == "compressed_bytes":
                if met == "ratio":
                    bv, hv = b.ratio, h.ratio
                else:
                    bv, hv = _float(b.cbytes), _float(h.cbytes)
                if bv is None or hv is None:
                    if bv is None and hv is None:
                        continue
                    delta, significant, regression = None, False, False
                else:
                    delta = finite_delta_pct(bv, hv)
                    significant = bv != hv
                    regression = significant and (hv < bv if met == "ratio" else hv > bv)
            elif met in COUNT_METRICS:
                # near-exact: beyond the count threshold is a change, no test (counts.py)
                bv, hv = (b.c_ipmb, h.c_ipmb) if met[0] == "c" else (b.d_ipmb, h.d_ipmb)
                if bv is None or hv is None:
                    if bv is None and hv is None:
                        continue
                    delta, significant, regression = None, False, False
                else:
                    delta = finite_delta_pct(bv, hv)
                    significant = count_change(met, bv, hv, count_threshold).changed
                    regression = significant and hv > bv
            else:
                if met == "compress_mbps":
                    bv, hv = b.c_median, h.c_median
                else:
                    bv, hv = b.d_median, h.d_median
                if bv is None and hv is None:
                    continue
                delta = None if bv is None or hv is None else finite_delta_pct(bv, hv)
                p_value, q_value = tests_of_key.get(met, (None, None))
                significant = q_value is not None and q_value <= fdr
                regression = significant and (hv or 0) < (bv or 0)
            if only_significant and not significant:
                continue
            append({
                "dataset": dataset, "configuration": configuration, "metric": met,
                "base": bv, "head": hv, "delta_pct": delta, "p_value": p_value,
                "q_value": q_value, "significant": significant, "regression": regression,
                "base_bytes": None, "head_bytes": None, "delta_bytes": None,
                "base_ratio": None, "head_ratio": None})
    if merged:
        rows = compare_view.merge_sizes(rows)
    if order is not None:
        rows = compare_view.arrange(rows, order)
    total = len(rows)
    counted = compare_view.counts(rows)
    if limit is not None or offset:
        rows = rows[offset:offset + limit if limit is not None else None]
    applied = compare_view.rule(
        fdr, settings.detection_default_min_effect if settings else MIN_EFFECT_PCT,
        settings.detection_min_effect if settings else {}, family, shapes)
    return {"total": total, "offset": offset, "counts": counted, "rule": applied,
            "base": CompareSide(
                commit=cb.sha, machine=machine_ref(mb), codecs=base_choice.shown,
                builds=provenance.builds_of_side(session, mb.id, cb.id, base_choice.ids),
                busy=_busy(session, cb.id, mb.id),
            ).model_dump(),
            "head": CompareSide(
                commit=ch.sha, machine=machine_ref(mh), codecs=head_choice.shown,
                builds=provenance.builds_of_side(session, mh.id, ch.id, head_choice.ids),
                busy=_busy(session, ch.id, mh.id),
            ).model_dump(),
            "rows": rows, "mode": mode, "codec_series": in_both}


def _busy(session: Session, commit_id: int, machine_id: int) -> bool | None:
    """Whether any document of this commit and machine was measured on a busy machine."""
    flag = session.scalar(select(func.max(cast(ResultDocument.busy, Integer))).where(
        ResultDocument.commit_id == commit_id, ResultDocument.machine_id == machine_id))
    return None if flag is None else bool(flag)


def _min_effect(settings: Settings | None, tag: str, dataset: str, label: str,
                metric: str) -> float:
    if settings is None:
        return MIN_EFFECT_PCT
    from basketbench.changes.detection.history import min_effect

    return min_effect(settings, f"{tag}/{dataset}/{label}", metric)


def machine_of(session: Session, machine_id: int) -> Machine:
    m = session.get(Machine, machine_id)
    if m is None:
        raise NotFound(f"unknown machine {machine_id}")
    return m
