"""The changes inbox at scale: one line per commit, machine and cause, and one status for
many changes at once.

A cause is what moved together: one codec's one metric in one direction at one commit on
one machine ("ZLIB compression speed -47 % ... -74 %, 36 series on 4 datasets,
haswell-01"). Lines are built from the same filtered listing as /changes
(services.changes.list_query), so the lines and the rows they expand to agree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from basketbench.catalog.service import machine_ref
from basketbench.changes.service import ChangeFilter, _commit_ref, list_query
from basketbench.core.errors import BadRequest, NotFound
from basketbench.core.sqlutil import chunked
from basketbench.models import Change, Commit, Configuration, Dataset, Machine, Repository
from basketbench.models.base import utcnow

METRIC_WORDS = {"compress_mbps": "compression speed", "decompress_mbps": "decompression speed",
                "ratio": "compression ratio", "compressed_bytes": "compressed size",
                "compress_instructions_per_mb": "compression instructions per MB",
                "decompress_instructions_per_mb": "decompression instructions per MB"}


@dataclass
class _Line:
    commit: Commit
    repository: Repository
    machine: Machine
    codec: str
    metric: str
    direction: str
    ids: list[int] = field(default_factory=list)
    datasets: set[str] = field(default_factory=set)
    deltas: list[float] = field(default_factory=list)
    statuses: dict[str, int] = field(default_factory=dict)
    bisection: dict[str, Any] = field(default_factory=dict)


def _text(line: _Line) -> str:
    lo, hi = min(line.deltas), max(line.deltas)
    # the smaller effect first, as a range reads: -47 % ... -74 %
    first, last = (hi, lo) if hi <= 0 else (lo, hi)
    span = f"{first:+.2f} %" if first == last else f"{first:+.2f} % ... {last:+.2f} %"
    n, k = len(line.ids), len(line.datasets)
    return (f"{line.codec.upper()} {METRIC_WORDS.get(line.metric, line.metric)} {span}, "
            f"{n} series on {k} dataset{'s' if k != 1 else ''}, {line.machine.name}")


def summary(session: Session, f: ChangeFilter, limit: int, offset: int) -> dict[str, Any]:
    """Lines (ChangeSummaryPage), newest commit first; within a commit and machine the
    regressions first, then the largest effect. ``total`` and ``changes`` count every
    line and change of the filter, not one page."""
    stmt = list_query(session, f).with_only_columns(
        Change.id, Change.metric, Change.direction, Change.delta_pct, Change.status,
        Change.bisection, Commit, Repository, Machine, Dataset.name, Configuration.codec)
    lines: dict[tuple[int, int, str, str, str], _Line] = {}
    for cid, metric, direction, delta, status, bisection, commit, repo, machine, ds, codec in (
            session.execute(stmt)):
        key = (commit.id, machine.id, codec, metric, direction)
        line = lines.get(key)
        if line is None:
            line = lines[key] = _Line(commit, repo, machine, codec, metric, direction)
        line.ids.append(cid)
        line.datasets.add(ds)
        line.deltas.append(delta)
        line.statuses[status] = line.statuses.get(status, 0) + 1
        line.bisection = line.bisection or bisection or {}
    ordered = sorted(lines.values(), key=lambda ln: (
        -ln.commit.order, -ln.commit.id, ln.machine.id, ln.direction != "regression",
        -max(abs(d) for d in ln.deltas), ln.codec, ln.metric))
    page = ordered[offset:offset + limit]
    return {
        "items": [{
            "line": _text(ln), "commit": _commit_ref(ln.repository, ln.commit),
            "machine": machine_ref(ln.machine), "codec": ln.codec, "metric": ln.metric,
            "direction": ln.direction, "changes": len(ln.ids),
            "datasets": sorted(ln.datasets), "min_delta_pct": min(ln.deltas),
            "max_delta_pct": max(ln.deltas), "statuses": ln.statuses, "change_ids": ln.ids,
            "bisection": ln.bisection,
        } for ln in page],
        "total": len(ordered), "changes": sum(len(ln.ids) for ln in ordered),
        "limit": limit, "offset": offset}


def set_many(session: Session, ids: list[int], status: str, reason: str | None,
             by: str | None, token_name: str) -> dict[str, Any]:
    """One status and reason for many changes, all or none: an unknown id fails the whole
    request before anything is written."""
    wanted = sorted(set(ids))
    if status in ("fixed", "ignored") and not (reason or "").strip():
        raise BadRequest(f"reason: say why the changes are {status}")
    found: set[int] = set()
    for piece in chunked(wanted):  # IN lists within the drivers' parameter limits
        found.update(session.scalars(select(Change.id).where(Change.id.in_(piece))))
    missing = [i for i in wanted if i not in found]
    if missing:
        raise NotFound(f"change_ids: unknown change(s) {missing[:20]}"
                       f"{' ...' if len(missing) > 20 else ''}; nothing was changed")
    values = {"status": status, "status_reason": (reason or "").strip() or None,
              "status_by": (by or "").strip() or token_name, "status_at": utcnow()}
    for piece in chunked(wanted):  # one transaction: all pieces or none
        session.execute(update(Change).where(Change.id.in_(piece)).values(**values))
    session.commit()
    return {"status": status, "updated": len(wanted), "change_ids": wanted}
