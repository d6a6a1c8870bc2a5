"""Storing an arena upload: one arena_runs row and its arena_results, in one transaction.

Idempotent: the canonical JSON of the document (keys sorted) is hashed; the same document
again from the same machine answers the stored run (duplicate), never a second row. Uploads
for one machine are serialised by an advisory lock (and a unique index backs it), so two
identical uploads arriving together store one run. Nothing is written unless everything
validates: a bad document is a 422 listing every reason with its place in the body.
"""

from __future__ import annotations

import hashlib
from typing import Any

import orjson
from pydantic import ValidationError
from sqlalchemy import func, insert, select, text
from sqlalchemy.orm import Session

from basketbench.arena.schemas import ArenaStored, ArenaUpload
from basketbench.catalog.commits import ensure_commit
from basketbench.catalog.lookup import get_repository
from basketbench.core import ownership
from basketbench.core.config import Settings
from basketbench.core.errors import Invalid
from basketbench.measure.document.arena import ArenaResult as ResultIn
from basketbench.measure.document.arena import LevelMappingEntry as MappingIn
from basketbench.measure.document.arena import SpeedRatio
from basketbench.models import (
    ApiToken,
    ArenaResult,
    ArenaRun,
    Commit,
    Repository,
    Run,
)

# "bb" + 4 (commits.py holds "bb" + 1, detection "bb" + 2, A/B "bb" + 3).
ARENA_INGEST_LOCK = 0x62620004
MAX_REASONS = 50


def parse_upload(body: Any) -> ArenaUpload:
    """The upload, or Invalid (422) listing every reason with its place in the body."""
    if not isinstance(body, dict):
        raise Invalid("arena upload rejected", ["body: a JSON object {machine_id, commit?, "
                                                "document} is expected"])
    try:
        return ArenaUpload.model_validate(body)
    except ValidationError as rejected:
        reasons = [f"{'/'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}"
                   for e in rejected.errors(include_url=False)]
        raise Invalid("arena upload rejected", reasons[:MAX_REASONS]) from rejected


def document_hash(document: Any) -> str:
    return hashlib.sha256(orjson.dumps(document, option=orjson.OPT_SORT_KEYS)).hexdigest()


def ingest(session: Session, settings: Settings, body: Any,
           uploader: ApiToken | None = None) -> ArenaStored:
    """Store an upload; ``uploader`` (an HTTP upload's token) must serve the machine's tag."""
    upload = parse_upload(body)
    digest = document_hash(body["document"])
    machine = ownership.upload_machine(session, upload.machine_id, uploader)
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k, :m)"),
                        {"k": ARENA_INGEST_LOCK, "m": machine.id})
    found = session.scalar(select(ArenaRun).where(ArenaRun.machine_id == machine.id,
                                                  ArenaRun.document_sha256 == digest))
    if found is not None:
        count = session.scalar(select(func.count()).select_from(ArenaResult)
                               .where(ArenaResult.arena_run_id == found.id)) or 0
        return ArenaStored(arena_run_id=found.id, results=count, duplicate=True)
    run = None
    if upload.run_id is not None:
        run = session.get(Run, upload.run_id)
        if run is None:
            raise Invalid(f"unknown run {upload.run_id}", [f"run_id: no run {upload.run_id}"])
    commit_id = None
    if upload.commit is not None:
        commit = _commit(session, settings, upload, run)
        if run is not None and run.commit_id != commit.id:
            raise Invalid("the run measured another commit",
                          [f"commit: run {run.id} is not a run of {upload.commit}"])
        commit_id = commit.id
    doc = upload.document
    arena_run = ArenaRun(
        machine_id=machine.id, commit_id=commit_id, run_id=run.id if run else None,
        file=doc.file, file_sha256=doc.file_sha256, format=doc.format,
        host=doc.machine.model_dump(), load=doc.load.model_dump(), buffers=doc.buffers,
        embedded_buffers=doc.embedded_buffers,
        uncompressed_bytes=doc.uncompressed_bytes,
        candidates=[c.model_dump() for c in doc.candidates], document_sha256=digest,
        reference=({"label": doc.reference.label,
                    "codec_versions": dict(doc.reference.codec_versions)}
                   if doc.reference is not None else None),
        method=doc.method,
        shape_totals={shape: {"buffers": doc.shape_buffers.get(shape),
                              "bytes": doc.shape_bytes.get(shape)}
                      for shape in sorted({*doc.shape_buffers, *doc.shape_bytes})})
    session.add(arena_run)
    session.flush()
    whole = {(r.candidate, r.level, r.reference_setting): r for r in doc.results}
    rows = ([_row(arena_run.id, "candidate", r, None) for r in doc.results]
            + [_row(arena_run.id, "shape", r, r.shape) for r in doc.shapes]
            + [_mapping_row(arena_run.id, family, m, whole)
               for family, entries in (("zstd", doc.level_mapping.zstd),
                                       ("lz4", doc.level_mapping.lz4))
               for m in entries])
    session.execute(insert(ArenaResult), rows)
    session.commit()
    return ArenaStored(arena_run_id=arena_run.id, results=len(rows), duplicate=False)


def _row(arena_run_id: int, view: str, r: ResultIn, shape: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "arena_run_id": arena_run_id, "view": view, "shape": shape, "root_setting": None,
        **r.model_dump(include={
            "candidate", "family", "level", "reference_setting", "compressed_bytes",
            "reference_bytes", "size_change_pct", "identical_to_reference", "roundtrip_ok",
            "root_readable", "error", "compress_instructions", "decompress_instructions",
            "reference_compress_instructions", "reference_decompress_instructions"})}
    return _with_ratios(row, r.compress_ratio, r.decompress_ratio)


def _mapping_row(arena_run_id: int, family: str, m: MappingIn,
                 whole: dict[tuple[str, int, int], ResultIn]) -> dict[str, Any]:
    """A level-mapping entry is the family's own library (candidate = the family's name) at
    one native level; its round trip, readability and instruction counts are those of the
    same measurement among the whole-file results, when it is there."""
    same = whole.get((family, m.native_level, m.reference_setting))
    row: dict[str, Any] = {
        "arena_run_id": arena_run_id, "view": "mapping", "shape": None,
        "candidate": family, "family": family, "level": m.native_level,
        "root_setting": m.root_setting, "reference_setting": m.reference_setting,
        "compressed_bytes": m.compressed_bytes, "reference_bytes": m.reference_bytes,
        "size_change_pct": m.size_change_pct,
        "identical_to_reference": m.identical_to_reference,
        "roundtrip_ok": same.roundtrip_ok if same else None,
        "root_readable": same.root_readable if same else None,
        "error": same.error if same else None,
        **{key: getattr(same, key) if same else None for key in (
            "compress_instructions", "decompress_instructions",
            "reference_compress_instructions", "reference_decompress_instructions")}}
    return _with_ratios(row, m.compress_ratio, m.decompress_ratio)


def _with_ratios(row: dict[str, Any], compress: SpeedRatio | None,
                 decompress: SpeedRatio | None) -> dict[str, Any]:
    for direction, ratio in (("compress", compress), ("decompress", decompress)):
        row[f"{direction}_ratio"] = ratio.median if ratio else None
        row[f"{direction}_ci_low"] = ratio.ci_low if ratio else None
        row[f"{direction}_ci_high"] = ratio.ci_high if ratio else None
        row[f"{direction}_pairs"] = ratio.pairs if ratio else None
        row[f"{direction}_disturbed_pairs"] = ratio.disturbed_pairs if ratio else None
    return row


def _commit(session: Session, settings: Settings, upload: ArenaUpload,
            run: Run | None) -> Commit:
    """The run's commit when it is the one named, else the commit in the run's repository,
    the one named or the default (created when unknown, as results' ingest does)."""
    assert upload.commit is not None
    sha = upload.commit.lower()
    repo: Repository | None = None
    if run is not None:
        commit = session.get(Commit, run.commit_id)
        if commit is not None and commit.sha.lower() == sha:
            return commit
        repo = session.get(Repository, commit.repository_id) if commit else None
    if repo is None:
        repo = get_repository(session, upload.repository or settings.default_repository,
                              create=True)
    return ensure_commit(session, repo, sha)
