"""history, tradeoff and compare: aggregated in SQL, only what is shown is fetched."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Float, cast, func, null, select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Commit, Configuration, Machine, Result
from basketbench.models.result import METRICS, SPEED_METRICS
from basketbench.schemas.analysis import (
    CompareSide,
    Relative,
    SeriesOut,
    SpeedSummary,
    TradeoffOut,
    TradeoffPoint,
)
from basketbench.services import codecs as codec_service
from basketbench.services import dimcache
from basketbench.services.catalog import configuration_out, machine_ref, order_bounds
from basketbench.services.changes import series_markers
from basketbench.services.detection.fdr import bh_adjust_partial
from basketbench.services.errors import BadRequest, NotFound
from basketbench.services.lookup import get_commit, get_configuration, get_dataset, get_machine
from basketbench.services.stats import (
    MIN_EFFECT_PCT,
    delta_pct,
    exact_change,
    mann_whitney_batch,
    speed_delta,
)


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


def _metric_columns(metric: str) -> tuple[Any, Any, Any, Any, Any]:
    """(value, min, max, stddev, n) aggregates for one metric over a commit's results."""
    if metric == "ratio":
        col = Result.ratio
        return func.avg(col), func.min(col), func.max(col), cast(null(), Float), func.count(col)
    if metric == "compressed_bytes":
        col = Result.compressed_bytes
        return func.avg(col), func.min(col), func.max(col), cast(null(), Float), func.count(col)
    p = "c" if metric == "compress_mbps" else "d"
    return (func.avg(getattr(Result, f"{p}_median")), func.min(getattr(Result, f"{p}_min")),
            func.max(getattr(Result, f"{p}_max")), func.max(getattr(Result, f"{p}_stddev")),
            func.sum(getattr(Result, f"{p}_n")))


def _resolve_configuration(session: Session, sel: ConfigSelector) -> Configuration:
    if sel.configuration_id is not None:
        return get_configuration(session, sel.configuration_id)
    if sel.setting is None:
        raise BadRequest("give configuration_id or setting")
    confs = list(session.scalars(select(Configuration).where(*sel.clauses()).limit(2)))
    if not confs:
        raise NotFound("no configuration matches these fields")
    if len(confs) > 1:
        raise BadRequest("several configurations match; give codec or configuration_id",
                         [c.id for c in confs])
    return confs[0]


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

    def as_dict(self) -> dict[str, Any]:
        return {"sha": self.sha, "order": self.order, "date": self.date, "author": self.author,
                "message": self.message, "value": self.value, "min": self.min,
                "max": self.max, "stddev": self.stddev, "n": self.n, "run_id": self.run_id,
                "codecs": self.codecs}


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


def choose_codecs(session: Session, where: list[Any], requested: str | None) -> CodecChoice:
    """The codec series among the results matching `where`: the requested one (a series key
    or a set name), else the one measured on the newest commit. Series never mix: a host
    upgrade or another named set is another series, not a change of ROOT."""
    latest = dict(session.execute(
        select(Result.codec_set_id, func.max(Commit.order))
        .join(Commit, Commit.id == Result.commit_id).where(*where)
        .group_by(Result.codec_set_id)).all())
    described = codec_service.describe(session, {i for i in latest if i is not None})
    keys_of = codec_service.series_keys(session, latest)
    series: dict[str, list[int | None]] = defaultdict(list)
    newest: dict[str, tuple[int, int | None]] = {}
    for set_id, order in latest.items():
        key = keys_of[set_id]
        series[key].append(set_id)
        if key not in newest or (order or 0) > newest[key][0]:
            newest[key] = (order or 0, set_id)
    if not series:
        return CodecChoice([], None, [])
    shown = {k: described[i] for k, (_, i) in newest.items() if i is not None}
    available = [shown[k] for k in sorted(shown, key=lambda k: -newest[k][0])]
    if requested is None:
        key = max(series, key=lambda k: newest[k][0])
    else:
        keys = [k for k in series
                if k == requested or (k in shown and shown[k]["set"] == requested)]
        if not keys:
            raise NotFound(f"no results measured with codec set {requested!r} here; "
                           f"available: {sorted(series)}")
        key = max(keys, key=lambda k: newest[k][0])
    return CodecChoice(series[key], shown.get(key), available)


def history(session: Session, machine: str, dataset: str, metric: str, sel: ConfigSelector,
            commit_from: str | None, commit_to: str | None,
            max_points: int, codecs: str | None = None) -> dict[str, Any]:
    """JSON-ready dict shaped like schemas.analysis.HistoryOut."""
    if metric not in METRICS:
        raise BadRequest(f"unknown metric {metric!r}", list(METRICS))
    m = get_machine(session, machine)
    ds = get_dataset(session, dataset)
    conf = _resolve_configuration(session, sel)
    lo, hi = order_bounds(session, commit_from, commit_to)
    value, vmin, vmax, vstd, n = _metric_columns(metric)
    where = [Result.machine_id == m.id, Result.dataset_id == ds.id,
             Result.configuration_id == conf.id]
    choice = choose_codecs(session, where, codecs)
    stmt = (select(Commit.id, Commit.sha, Commit.order, Commit.date, Commit.author,
                   Commit.message, value, vmin, vmax, vstd, n, func.max(Result.run_id),
                   func.max(Result.codec_set_id))
            .join(Commit, Commit.id == Result.commit_id)
            .where(*where, choice.clause())
            .group_by(Commit.id, Commit.sha, Commit.order, Commit.date, Commit.author,
                      Commit.message)
            .order_by(Commit.order, Commit.date, Commit.id))
    if lo is not None:
        stmt = stmt.where(Commit.order >= lo)
    if hi is not None:
        stmt = stmt.where(Commit.order <= hi)
    rows = [r for r in session.execute(stmt).all() if r[6] is not None]
    sets = codec_service.describe(session, {r[12] for r in rows if r[12] is not None})
    points = [Point(
        sha=r[1], order=r[2], date=r[3], author=r[4],
        message=(r[5] or "").split("\n", 1)[0][:200] or None, value=float(r[6]),
        min=_float(r[7]), max=_float(r[8]), stddev=_float(r[9]),
        n=int(r[10]) if r[10] is not None else None, run_id=r[11],
        codecs=sets.get(r[12])) for r in rows]
    # Markers are the recorded changes (services/detection), so plot and inbox agree.
    changes = series_markers(session, m.id, ds.id, conf.id, metric, choice.ids, lo, hi)
    total = len(points)
    downsampled = total > max_points
    if downsampled:
        keep = {c["sha"] for c in changes} | {c["previous_sha"] for c in changes}
        points = _downsample(points, max_points, keep)
    series = SeriesOut(machine=machine_ref(m), dataset=ds.name,
                       configuration=configuration_out(conf), metric=metric)
    return {"series": series.model_dump(mode="json"), "points": [p.as_dict() for p in points],
            "changes": changes, "downsampled": downsampled,
            "total_points": total, "codecs": choice.shown, "codec_series": choice.available}


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
            pareto_compress=pc[i], pareto_decompress=pd[i], relative=relative))
    return TradeoffOut(commit=c.sha, machine=machine_ref(m), dataset=ds.name,
                       reference=reference, points=points)


@dataclass(slots=True)
class _Side:
    """One (dataset, configuration) of one compare side: values, and the raw samples."""

    ratio: float | None
    cbytes: float | None
    c_median: float | None
    d_median: float | None
    c_samples: list[float] | None
    d_samples: list[float] | None


def _side(session: Session, commit_id: int, machine_id: int, dataset_id: int | None,
          metrics: list[str], codec_clause: Any) -> dict[tuple[int, int], _Side]:
    want_c = "compress_mbps" in metrics
    want_d = "decompress_mbps" in metrics
    cols = [Result.dataset_id, Result.configuration_id, Result.ratio, Result.compressed_bytes,
            Result.c_median, Result.d_median,
            Result.c_samples if want_c else Result.c_n, Result.d_samples if want_d else Result.d_n]
    stmt = select(*cols).where(Result.commit_id == commit_id, Result.machine_id == machine_id,
                               codec_clause)
    if dataset_id is not None:
        stmt = stmt.where(Result.dataset_id == dataset_id)
    out: dict[tuple[int, int], _Side] = {}
    repeated: dict[tuple[int, int], list[_Side]] = {}
    for row in session.execute(stmt).all():
        ds, conf, ratio, cb, cm, dm, cs, dsmp = tuple(row)
        side = _Side(ratio, cb, cm, dm, cs if want_c else None, dsmp if want_d else None)
        key = (ds, conf)
        if key in out:  # several runs of this commit: rare, merged below
            repeated.setdefault(key, [out[key]]).append(side)
        else:
            out[key] = side
    for key, sides in repeated.items():
        out[key] = _Side(
            _mean([s.ratio for s in sides]), _mean([s.cbytes for s in sides]),
            _mean([s.c_median for s in sides]), _mean([s.d_median for s in sides]),
            [x for s in sides for x in (s.c_samples or [])] or None,
            [x for s in sides for x in (s.d_samples or [])] or None)
    return out


def _mean(values: list[Any]) -> float | None:
    present = [float(v) for v in values if v is not None]
    return sum(present) / len(present) if present else None


def compare(session: Session, base_commit: str | None, head_commit: str | None,
            machine: str | None, base_machine: str | None, head_machine: str | None,
            commit: str | None, dataset: str | None, metric: str | None,
            only_significant: bool, codecs: str | None = None,
            settings: Settings | None = None) -> dict[str, Any]:
    """JSON-ready dict shaped like schemas.analysis.CompareOut.

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
    head_choice = choose_codecs(session, [Result.commit_id == ch.id,
                                          Result.machine_id == mh.id], codecs)
    # The base side measured in the head's codec series (builtin: whatever versions the
    # base commit pins); without an explicit choice, its own newest series otherwise.
    wanted = codecs or (head_choice.shown or {}).get("series_key")
    try:
        base_choice = choose_codecs(session, [Result.commit_id == cb.id,
                                              Result.machine_id == mb.id], wanted)
    except NotFound:
        if codecs is not None:
            raise
        base_choice = choose_codecs(session, [Result.commit_id == cb.id,
                                              Result.machine_id == mb.id], None)
    base = _side(session, cb.id, mb.id, ds_id, metrics, base_choice.clause())
    head = _side(session, ch.id, mh.id, ds_id, metrics, head_choice.clause())
    keys = sorted(base.keys() & head.keys())
    conf_outs = dimcache.configurations(session, {k[1] for k in keys})
    names = dimcache.dataset_names(session, {k[0] for k in keys})
    fdr = settings.detection_fdr if settings else 0.05
    # Speed rows whose effect passes the minimum are tested together, in one batch; every
    # speed row with samples on both sides counts in the BH family.
    tests: list[tuple[tuple[int, int], str]] = []
    family = 0
    for key in keys:
        b, h = base[key], head[key]
        for met in metrics:
            if met in SPEED_METRICS:
                c = met == "compress_mbps"
                if (b.c_samples if c else b.d_samples) and (h.c_samples if c else h.d_samples):
                    family += 1
                effect = _min_effect(settings, mb.tag, names[key[0]], conf_outs[key[1]].label,
                                     met)
                if speed_delta((b.c_median if c else b.d_median),
                               (h.c_median if c else h.d_median), effect) is not None:
                    tests.append((key, met))
    pairs = []
    for key, met in tests:
        c = met == "compress_mbps"
        b, h = base[key], head[key]
        pairs.append((b.c_samples if c else b.d_samples, h.c_samples if c else h.d_samples))
    raw = mann_whitney_batch(pairs)
    pvalue = dict(zip(tests, raw, strict=True))
    qvalue = dict(zip(tests, bh_adjust_partial(raw, family), strict=True))

    # Plain dicts (shaped like schemas.analysis.CompareRow): thousands of rows.
    conf_dicts = {cid: c.model_dump() for cid, c in conf_outs.items()}
    rows: list[dict[str, Any]] = []
    for key in keys:
        b, h = base[key], head[key]
        for met in metrics:
            p_value: float | None = None
            q_value: float | None = None
            if met == "ratio":
                bv, hv = b.ratio, h.ratio
                delta, significant = exact_change(bv, hv)
                regression = significant and (hv or 0) < (bv or 0)
            elif met == "compressed_bytes":
                bv, hv = _float(b.cbytes), _float(h.cbytes)
                delta, significant = exact_change(bv, hv)
                regression = significant and (hv or 0) > (bv or 0)
            else:
                c = met == "compress_mbps"
                bv = (b.c_median if c else b.d_median)
                hv = (h.c_median if c else h.d_median)
                delta = delta_pct(bv, hv)
                p_value = pvalue.get((key, met))
                q_value = qvalue.get((key, met))
                significant = q_value is not None and q_value <= fdr
                regression = significant and (hv or 0) < (bv or 0)
            if bv is None and hv is None:
                continue
            if only_significant and not significant:
                continue
            if delta is not None and not math.isfinite(delta):
                delta = None
            rows.append({
                "dataset": names[key[0]], "configuration": conf_dicts[key[1]], "metric": met,
                "base": bv, "head": hv, "delta_pct": delta, "p_value": p_value,
                "q_value": q_value,
                "significant": bool(significant), "regression": bool(regression)})
    return {"base": CompareSide(commit=cb.sha, machine=machine_ref(mb),
                                codecs=base_choice.shown).model_dump(),
            "head": CompareSide(commit=ch.sha, machine=machine_ref(mh),
                                codecs=head_choice.shown).model_dump(),
            "rows": rows, "mode": mode}


def _min_effect(settings: Settings | None, tag: str, dataset: str, label: str,
                metric: str) -> float:
    if settings is None:
        return MIN_EFFECT_PCT
    from basketbench.services.detection.history import min_effect

    return min_effect(settings, f"{tag}/{dataset}/{label}", metric)


def machine_of(session: Session, machine_id: int) -> Machine:
    m = session.get(Machine, machine_id)
    if m is None:
        raise NotFound(f"unknown machine {machine_id}")
    return m
