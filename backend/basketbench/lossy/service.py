"""Store lossy sweeps and read them back: per column for the plot, per series over commits.

Every read is bounded by its arguments: one sweep's rows at one setting for at most
`MAX_COLUMNS` columns, or one series' points over at most `limit` commits."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit
from basketbench.core.errors import Invalid, NotFound
from basketbench.lossy.schemas import LossyUpload
from basketbench.models import Commit, LossyResult, LossySweep

MAX_COLUMNS = 50
_POINT = (LossyResult.column, LossyResult.representation, LossyResult.bits,
          LossyResult.compressed_bytes, LossyResult.uncompressed_bytes,
          LossyResult.max_abs_error, LossyResult.max_rel_error, LossyResult.rms_rel_error)


def store(session: Session, upload: LossyUpload) -> dict[str, Any]:
    """Insert the sweep (replacing an earlier one of the same commit, file and codecs)."""
    commit = get_commit(session, upload.commit)
    doc = upload.document
    session.execute(delete(LossySweep).where(
        LossySweep.commit_id == commit.id, LossySweep.file_sha256 == doc.file_sha256,
        LossySweep.codecs == upload.codecs))
    sweep = LossySweep(commit_id=commit.id, file=doc.file, file_sha256=doc.file_sha256,
                       codecs=upload.codecs, tool=doc.tool, settings=doc.settings,
                       columns=doc.columns, physics=doc.physics, notes=doc.notes)
    session.add(sweep)
    session.flush()
    rows = [{"sweep_id": sweep.id, **r.model_dump()} for r in doc.results]
    session.execute(insert(LossyResult), rows)
    session.commit()
    return {"id": sweep.id, "commit": commit.sha, "file": doc.file, "codecs": upload.codecs,
            "rows": len(rows)}


def _sweep_out(sweep: LossySweep, sha: str) -> dict[str, Any]:
    return {"id": sweep.id, "commit": sha, "file": sweep.file, "file_sha256": sweep.file_sha256,
            "codecs": sweep.codecs, "settings": sweep.settings, "columns": sweep.columns,
            "created_at": sweep.created_at}


def list_sweeps(session: Session, file: str | None, limit: int) -> list[dict[str, Any]]:
    query = select(LossySweep, Commit.sha).join(Commit, Commit.id == LossySweep.commit_id)
    if file is not None:
        query = query.where(LossySweep.file == file)
    rows = session.execute(query.order_by(LossySweep.id.desc()).limit(limit)).all()
    return [_sweep_out(sweep, sha) for sweep, sha in rows]


def _saved(full: int | None, compressed: int) -> float:
    return round(100.0 * (full - compressed) / full, 3) if full else 0.0


def columns_view(session: Session, sweep_id: int, setting: int | None,
                 columns: list[str]) -> dict[str, Any]:
    """One sweep at one setting: every column's name (largest first) and, for the columns
    asked for (default: the largest), each representation's bytes, saving and errors."""
    found = session.execute(select(LossySweep, Commit.sha).join(
        Commit, Commit.id == LossySweep.commit_id).where(LossySweep.id == sweep_id)).first()
    if found is None:
        raise NotFound(f"unknown lossy sweep {sweep_id}")
    sweep, sha = found
    if setting is None:
        setting = sweep.settings[0]
    if setting not in sweep.settings:
        raise Invalid(f"setting {setting} not in this sweep (it has {sweep.settings})")
    if len(columns) > MAX_COLUMNS:
        raise Invalid(f"at most {MAX_COLUMNS} columns at once")
    at = (LossyResult.sweep_id == sweep.id, LossyResult.setting == setting)
    sizes = session.execute(select(LossyResult.column, LossyResult.compressed_bytes).where(
        *at, LossyResult.representation == "full")).all()
    full = dict(sizes)
    ordered = sorted(full, key=lambda c: (-full[c], c))
    unknown = [c for c in columns if c not in full]
    if unknown:
        raise NotFound(f"columns not in this sweep: {unknown[:5]}")
    wanted = columns or ordered[:8]
    points = [
        {"column": r.column, "representation": r.representation, "bits": r.bits,
         "compressed_bytes": r.compressed_bytes, "uncompressed_bytes": r.uncompressed_bytes,
         "saved_pct": _saved(full.get(r.column), r.compressed_bytes),
         "max_abs_error": r.max_abs_error, "max_rel_error": r.max_rel_error,
         "rms_rel_error": r.rms_rel_error}
        for r in session.execute(select(*_POINT).where(
            *at, LossyResult.column.in_(wanted)).order_by(
            LossyResult.column, LossyResult.representation, LossyResult.bits)).all()]
    physics = [p for p in sweep.physics if not wanted or set(p.get("columns", [])) & set(wanted)]
    return {"sweep": _sweep_out(sweep, sha), "setting": setting, "columns": ordered,
            "points": points, "physics": physics, "notes": sweep.notes[:200]}


def history(session: Session, *, file: str, column: str, representation: str, bits: int,
            setting: int, codecs: str | None, limit: int) -> dict[str, Any]:
    """One series over the newest `limit` commits with a sweep of this file: of one codec
    set, or of all (a ROOT release's codecs are part of the release, so a history across
    releases crosses codec sets; each point names its own)."""
    series = select(LossySweep.id, LossySweep.commit_id, LossySweep.codecs).where(
        LossySweep.file == file,
        *([LossySweep.codecs == codecs] if codecs is not None else [])).subquery()
    full = select(LossyResult.sweep_id, LossyResult.compressed_bytes.label("full")).where(
        LossyResult.column == column, LossyResult.representation == "full",
        LossyResult.bits == 32, LossyResult.setting == setting).subquery()
    query = (
        select(Commit.sha, Commit.date, series.c.id, series.c.codecs, LossyResult.compressed_bytes,
               LossyResult.max_rel_error, full.c.full)
        .join(series, series.c.commit_id == Commit.id)
        .join(LossyResult, LossyResult.sweep_id == series.c.id)
        .outerjoin(full, full.c.sweep_id == series.c.id)
        .where(LossyResult.column == column, LossyResult.representation == representation,
               LossyResult.bits == bits, LossyResult.setting == setting)
        .order_by(Commit.order.desc(), series.c.id.desc())
        .limit(limit))
    rows = session.execute(query).all()
    if not rows:
        raise NotFound(f"no lossy results for {column!r} of {file!r} at {representation} "
                       f"{bits} bits, setting {setting}"
                       + (f", codecs {codecs!r}" if codecs is not None else ""))
    points = [{"commit": sha, "committed_at": date, "sweep": sweep_id, "codecs": sweep_codecs,
               "compressed_bytes": compressed, "saved_pct": _saved(full_bytes, compressed),
               "max_rel_error": error}
              for sha, date, sweep_id, sweep_codecs, compressed, error, full_bytes
              in reversed(rows)]
    return {"file": file, "column": column, "representation": representation, "bits": bits,
            "setting": setting, "codecs": codecs, "points": points}
