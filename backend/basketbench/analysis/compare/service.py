"""Compare: per-series deltas between two commits on one machine, or two machines at one
commit; sizes are exact, speeds are tested."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Integer, Text, cast, func, select
from sqlalchemy.orm import Session

from basketbench.analysis.compare import view as compare_view
from basketbench.analysis.schemas import CompareSide
from basketbench.analysis.series import series_index
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.catalog.service import machine_ref
from basketbench.core.config import Settings
from basketbench.core.errors import BadRequest
from basketbench.models import Result, ResultDocument
from basketbench.models.result import COUNT_METRICS, METRICS, SPEED_METRICS
from basketbench.results import provenance
from basketbench.stats.counts import DEFAULT_THRESHOLD_PERCENT, count_change
from basketbench.stats.deltas import (
    MIN_EFFECT_PCT,
    finite_delta_pct,
    mann_whitney_batch,
    speed_delta,
)
from basketbench.stats.fdr import bh_adjust_partial


def _float(value: Any) -> float | None:
    return None if value is None else float(value)




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
    (compare/view.py); ``total`` and ``counts`` are over every row, not the page.

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
