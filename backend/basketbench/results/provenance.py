"""How a result's numbers were produced, beyond its codec set: the harness that measured
them (version, backend, hash of its sources), the build profile of ROOT's compression
layer and the ROOT commit it was built from. Read from result_documents (one row per
upload) for history points, compare sides and change records; /results selects the same
columns in its own query (results/listing.py)."""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from typing import Any

import orjson
from sqlalchemy import bindparam, select, tuple_
from sqlalchemy.orm import Session

from basketbench.catalog import dimensions
from basketbench.core.sqlutil import insert_ignore, plain_rows
from basketbench.models import Build, ResultDocument

BUILD_COLUMNS = (ResultDocument.tool, ResultDocument.backend, ResultDocument.root_commit,
                 ResultDocument.build_profile, ResultDocument.build_profile_version,
                 ResultDocument.harness_hash)


def build_out(tool: str | None, backend: str | None, root_commit: str | None,
              profile: str | None, profile_version: str | None,
              harness_hash: str | None) -> dict[str, Any]:
    """Shaped like schemas.results.BuildOut (BUILD_COLUMNS in order)."""
    return {"harness": tool, "harness_backend": backend, "harness_hash": harness_hash,
            "build_profile": profile, "build_profile_version": profile_version,
            "root_commit": root_commit}


def build_key(tool: str | None, backend: str | None, root_commit: str | None,
              profile: str | None, profile_version: str | None,
              harness_hash: str | None) -> str:
    """A build's identity (builds.key): sha256 of its columns, BUILD_COLUMNS' order."""
    canonical = orjson.dumps([tool, backend, root_commit, profile, profile_version,
                              harness_hash])
    return hashlib.sha256(canonical).hexdigest()


def ensure_build(session: Session, tool: str | None, backend: str | None,
                 root_commit: str | None, profile: str | None, profile_version: str | None,
                 harness_hash: str | None) -> int:
    """The id of this build's row, made if new (ingest: a document's build_id)."""
    key = build_key(tool, backend, root_commit, profile, profile_version, harness_hash)
    found = session.scalar(select(Build.id).where(Build.key == key))
    if found is None:  # new: made here, or concurrently by another ingest
        insert_ignore(session, Build.__table__, [  # type: ignore[arg-type]
            {"key": key, "tool": tool, "backend": backend, "root_commit": root_commit,
             "build_profile": profile, "build_profile_version": profile_version,
             "harness_hash": harness_hash}], ["key"])
        found = session.scalar(select(Build.id).where(Build.key == key))
        assert found is not None  # ON CONFLICT waited for the other insert: it is seen
    return found


# Served by ix_result_documents_machine_commit (migrations 0024, 0043) as an index-only
# scan, in (commit, document) order: no read of the table, no sort, three integers a row.
_MACHINE_BUILDS = (select(ResultDocument.commit_id, ResultDocument.codec_set_id,
                          ResultDocument.build_id)
                   .where(ResultDocument.machine_id == bindparam("machine_id"))
                   .order_by(ResultDocument.commit_id, ResultDocument.id))


def build_refs(session: Session, machine_id: int, commit_ids: Collection[int],
               codec_set_ids: Collection[int | None] | None = None,
               ) -> tuple[list[dict[str, Any]], dict[int, int]]:
    """The builds of the newest document of each commit on this machine (within the given
    codec sets, when given), each listed once: (builds, each with its ``id`` = its place
    in the list; commit id -> build id). A commit measured again by another build shows
    the newest; a commit whose newest document has no build row, none.

    All the machine's documents in one index-only read of their build ids (filtered
    here): for a 2 000-point history cheaper than an IN list of 2 000 ids
    (docs/provenance.md); the builds' columns come from the process's cache."""
    if not commit_ids:
        return [], {}
    rows = plain_rows(session, _MACHINE_BUILDS, {"machine_id": machine_id})
    wanted_ids = commit_ids if isinstance(commit_ids, set | frozenset) else set(commit_ids)
    if codec_set_ids is None:
        newest = {commit: build for commit, _set, build in rows if commit in wanted_ids}
    else:
        sets = set(codec_set_ids)
        newest = {commit: build for commit, set_id, build in rows
                  if commit in wanted_ids and set_id in sets}
    columns = dimensions.builds(session, {b for b in newest.values() if b is not None})
    # Listed in the order first met along the commits (a build row's columns are unique).
    builds: list[dict[str, Any]] = []
    place: dict[int, int] = {}
    out: dict[int, int] = {}
    for commit, build in newest.items():
        if build is None:
            continue
        at = place.get(build)
        if at is None:
            at = place[build] = len(builds)
            builds.append({**build_out(*columns[build]), "id": at})  # HistoryBuild's order
        out[commit] = at
    return builds, out


Side = tuple[int, int]
"""(machine id, commit id): one side of a comparison."""


def sides_provenance(session: Session, sides: dict[Side, Collection[int | None]],
                     ) -> dict[Side, tuple[list[dict[str, Any]], bool | None]]:
    """Per compare side (machine, commit) and its codec sets: the distinct builds of its
    documents in those sets, oldest first (usually one), and whether any of its documents
    (in any set) was measured on a busy machine (None: load not recorded). Both sides in
    one index-only read of ix_result_documents_machine_commit."""
    pairs = list(sides)
    stmt = (select(ResultDocument.machine_id, ResultDocument.commit_id,
                   ResultDocument.codec_set_id, ResultDocument.busy, *BUILD_COLUMNS)
            .where(tuple_(ResultDocument.machine_id, ResultDocument.commit_id).in_(pairs))
            .order_by(ResultDocument.machine_id, ResultDocument.commit_id, ResultDocument.id))
    out: dict[Side, tuple[list[dict[str, Any]], bool | None]] = {}
    busy: dict[Side, bool | None] = dict.fromkeys(pairs)
    builds: dict[Side, list[dict[str, Any]]] = {side: [] for side in pairs}
    for machine_id, commit_id, set_id, doc_busy, *build in session.execute(stmt):
        side = (machine_id, commit_id)
        if doc_busy is not None:
            busy[side] = bool(busy[side]) or doc_busy
        item = build_out(*build)
        if set_id in sides[side] and item not in builds[side]:
            builds[side].append(item)
    for side in pairs:
        out[side] = (builds[side], busy[side])
    return out
