"""Tradeoff: every configuration of one commit, machine and dataset, its size and speeds,
relative to a reference setting, and which are on the Pareto front."""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from basketbench.analysis.configuration import ConfigSelector
from basketbench.analysis.schemas import Relative, SpeedSummary, TradeoffOut, TradeoffPoint
from basketbench.analysis.series import choose_codecs
from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.catalog.service import machine_ref
from basketbench.core.errors import NotFound
from basketbench.models import Configuration, Result


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
