"""How a result's numbers were produced, beyond its codec set: the harness that measured
them (version, backend, hash of its sources), the build profile of ROOT's compression
layer and the ROOT commit it was built from. Read from result_documents (one row per
upload) for history points, compare sides and change records; /results selects the same
columns in its own query (results/listing.py)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from basketbench.models import ResultDocument

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


_MACHINE_BUILDS = (select(ResultDocument.commit_id, ResultDocument.codec_set_id, *BUILD_COLUMNS)
                   .where(ResultDocument.machine_id == bindparam("machine_id"))
                   .order_by(ResultDocument.id))


def builds_by_commit(session: Session, machine_id: int, commit_ids: Collection[int],
                     codec_set_ids: Collection[int | None] | None = None,
                     ) -> dict[int, dict[str, Any]]:
    """commit id -> the build of its newest document on this machine (within the given
    codec sets, when given). A commit measured again by another build shows the newest.

    All the machine's documents in one indexed read, taken as the driver's tuples and
    filtered here: for a 2 000-point history ~7x cheaper than an IN list of 2 000 ids
    (docs/provenance.md). Points of one build share one dict."""
    if not commit_ids:
        return {}
    result = session.connection().execute(_MACHINE_BUILDS, {"machine_id": machine_id})
    try:
        rows = result.cursor.fetchall()
    finally:
        result.close()
    wanted_ids = commit_ids if isinstance(commit_ids, set | frozenset) else set(commit_ids)
    wanted_sets = set(codec_set_ids) if codec_set_ids is not None else None
    shared: dict[tuple[Any, ...], dict[str, Any]] = {}
    out: dict[int, dict[str, Any]] = {}
    for row in rows:
        if row[0] not in wanted_ids or (wanted_sets is not None and row[1] not in wanted_sets):
            continue
        build = shared.get(row[2:])
        if build is None:
            build = shared[row[2:]] = build_out(*row[2:])
        out[row[0]] = build
    return out


def builds_of_side(session: Session, machine_id: int, commit_id: int,
                   codec_set_ids: Collection[int | None]) -> list[dict[str, Any]]:
    """The distinct builds of one commit x machine's documents in the given codec sets,
    oldest first (a compare side: usually one)."""
    stmt = (select(ResultDocument.codec_set_id, *BUILD_COLUMNS)
            .where(ResultDocument.machine_id == machine_id,
                   ResultDocument.commit_id == commit_id)
            .order_by(ResultDocument.id))
    wanted = set(codec_set_ids)
    out: list[dict[str, Any]] = []
    for set_id, *build in session.execute(stmt):
        item = build_out(*build)
        if set_id in wanted and item not in out:
            out.append(item)
    return out


