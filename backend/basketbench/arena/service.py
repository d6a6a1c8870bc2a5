"""Reading the arena: the latest board per file and machine, one row's history over commits.

Every read is a fixed number of statements bounded by its arguments: the boards are the
newest run of each (file, machine) pair (at most `limit` of them) and their rows in a second
statement; a history is one statement over at most `limit` runs."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.orm import Session

from basketbench.arena.schemas import (
    ArenaBoardOut,
    ArenaBoardsOut,
    ArenaHistoryOut,
    ArenaHistoryPointOut,
    ArenaResultOut,
    ArenaRunOut,
    SpeedRatioOut,
)
from basketbench.core.errors import Invalid, NotFound
from basketbench.models import ArenaResult, ArenaRun, Commit, Machine

FAMILY_ORDER = ("zlib", "zstd", "lz4", "lzma")


def _machine_is(machine: str) -> ColumnElement[bool]:
    """A machine id, or a name (every version of that machine)."""
    if machine.isdigit():
        return or_(Machine.id == int(machine), Machine.name == machine)
    return Machine.name == machine


def _ratio(result: ArenaResult, direction: str) -> SpeedRatioOut | None:
    pairs = getattr(result, f"{direction}_pairs")
    if pairs is None:
        return None
    return SpeedRatioOut(median=getattr(result, f"{direction}_ratio"),
                         ci_low=getattr(result, f"{direction}_ci_low"),
                         ci_high=getattr(result, f"{direction}_ci_high"), pairs=pairs,
                         disturbed_pairs=getattr(result, f"{direction}_disturbed_pairs") or 0)


def _result_out(r: ArenaResult) -> ArenaResultOut:
    return ArenaResultOut(
        candidate=r.candidate, family=r.family, level=r.level, shape=r.shape,
        reference_setting=r.reference_setting, root_setting=r.root_setting,
        compressed_bytes=r.compressed_bytes, reference_bytes=r.reference_bytes,
        size_change_pct=r.size_change_pct, identical_to_reference=r.identical_to_reference,
        roundtrip_ok=r.roundtrip_ok, root_readable=r.root_readable, error=r.error,
        compress_ratio=_ratio(r, "compress"), decompress_ratio=_ratio(r, "decompress"),
        compress_instructions=r.compress_instructions,
        decompress_instructions=r.decompress_instructions,
        reference_compress_instructions=r.reference_compress_instructions,
        reference_decompress_instructions=r.reference_decompress_instructions)


def _run_out(run: ArenaRun, machine: str, sha: str | None) -> ArenaRunOut:
    return ArenaRunOut(
        id=run.id, file=run.file, file_sha256=run.file_sha256, format=run.format,
        machine_id=run.machine_id, machine=machine, commit=sha, run_id=run.run_id,
        host=run.host or {}, load=run.load or {}, buffers=run.buffers,
        embedded_buffers=run.embedded_buffers,
        uncompressed_bytes=run.uncompressed_bytes,
        candidates=run.candidates or [],
        reference=run.reference, method=run.method or {}, shape_totals=run.shape_totals or {},
        created_at=run.created_at)


def boards(session: Session, *, file: str | None, machine: str | None, family: str | None,
           shapes: bool, with_results: bool, limit: int) -> ArenaBoardsOut:
    """The newest arena run of each (file, machine) pair matching the filters, with its
    rows (of one family when asked; per data shape only with `shapes`)."""
    newest: Select[Any] = (select(func.max(ArenaRun.id))
                           .join(Machine, Machine.id == ArenaRun.machine_id)
                           .group_by(ArenaRun.file, ArenaRun.machine_id))
    if file is not None:
        newest = newest.where(ArenaRun.file == file)
    if machine is not None:
        newest = newest.where(_machine_is(machine))
    rows = session.execute(
        select(ArenaRun, Machine.name, Commit.sha)
        .join(Machine, Machine.id == ArenaRun.machine_id)
        .outerjoin(Commit, Commit.id == ArenaRun.commit_id)
        .where(ArenaRun.id.in_(newest.scalar_subquery()))
        .order_by(ArenaRun.file, Machine.name, ArenaRun.id.desc()).limit(limit)).all()
    found: dict[int, list[ArenaResult]] = defaultdict(list)
    if with_results and rows:
        views = ["candidate", "mapping", *(["shape"] if shapes else [])]
        query = select(ArenaResult).where(ArenaResult.arena_run_id.in_([r[0].id for r in rows]),
                                          ArenaResult.view.in_(views))
        if family is not None:
            query = query.where(ArenaResult.family == family)
        for result in session.scalars(query.order_by(
                ArenaResult.arena_run_id, ArenaResult.view, ArenaResult.family,
                ArenaResult.candidate, ArenaResult.level, ArenaResult.reference_setting,
                ArenaResult.shape)):
            found[result.arena_run_id].append(result)
    out = []
    for run, machine_name, sha in rows:
        mine = found.get(run.id, [])
        mapping: dict[str, list[ArenaResultOut]] = {}
        for r in mine:
            if r.view == "mapping":
                mapping.setdefault(r.family, []).append(_result_out(r))
        out.append(ArenaBoardOut(
            run=_run_out(run, machine_name, sha),
            results=[_result_out(r) for r in mine if r.view == "candidate"],
            shapes=[_result_out(r) for r in mine if r.view == "shape"],
            level_mapping=mapping))
    return ArenaBoardsOut(boards=out)


def history(session: Session, *, file: str, machine: str, candidate: str, level: int,
            reference_setting: int, view: str, shape: str | None,
            limit: int) -> ArenaHistoryOut:
    """One row (candidate, level, ROOT setting, view, shape) of a file on a machine over the
    newest `limit` arena runs that measured against a commit's build, oldest first."""
    if (view == "shape") != (shape is not None):
        raise Invalid("a shape's history names the shape (view=shape&shape=...); the other "
                      "views have none")
    query = (
        select(ArenaResult, ArenaRun.id, ArenaRun.created_at, Commit.sha, Commit.date,
               Machine.name)
        .join(ArenaRun, ArenaRun.id == ArenaResult.arena_run_id)
        .join(Machine, Machine.id == ArenaRun.machine_id)
        .join(Commit, Commit.id == ArenaRun.commit_id)
        .where(ArenaRun.file == file, _machine_is(machine), ArenaResult.view == view,
               ArenaResult.candidate == candidate, ArenaResult.level == level,
               ArenaResult.reference_setting == reference_setting,
               *([ArenaResult.shape == shape] if shape is not None else []))
        .order_by(Commit.order.desc(), ArenaRun.id.desc()).limit(limit))
    rows = session.execute(query).all()
    if not rows:
        raise NotFound(f"no arena results for {candidate} level {level} against "
                       f"{reference_setting} on {file!r}, machine {machine!r}"
                       + (f", shape {shape!r}" if shape else "")
                       + " measured with a commit's build")
    points = [ArenaHistoryPointOut(
        commit=sha, committed_at=date, arena_run_id=run_id, created_at=created,
        compressed_bytes=r.compressed_bytes, reference_bytes=r.reference_bytes,
        size_change_pct=r.size_change_pct, roundtrip_ok=r.roundtrip_ok, error=r.error,
        compress_ratio=_ratio(r, "compress"), decompress_ratio=_ratio(r, "decompress"),
        compress_instructions=r.compress_instructions,
        reference_compress_instructions=r.reference_compress_instructions,
        decompress_instructions=r.decompress_instructions,
        reference_decompress_instructions=r.reference_decompress_instructions)
        for r, run_id, created, sha, date, _name in reversed(rows)]
    return ArenaHistoryOut(file=file, machine=rows[0][5], candidate=candidate, level=level,
                           reference_setting=reference_setting, shape=shape, points=points)
