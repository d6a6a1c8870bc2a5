"""How a result's numbers were produced, beyond its codec set: the harness that measured
them (version, backend, hash of its sources), the build profile of ROOT's compression
layer and the ROOT commit it was built from. Read from result_documents (one row per
upload) for history points, compare sides and change records; /results selects the same
columns in its own query (services/catalog.py)."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import select
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


def builds_by_commit(session: Session, machine_id: int, commit_ids: Collection[int],
                     codec_set_ids: Collection[int | None] | None = None,
                     ) -> dict[int, dict[str, Any]]:
    """commit id -> the build of its newest document on this machine (within the given
    codec sets, when given). A commit measured again by another build shows the newest."""
    if not commit_ids:
        return {}
    stmt = (select(ResultDocument.commit_id, ResultDocument.codec_set_id, *BUILD_COLUMNS)
            .where(ResultDocument.machine_id == machine_id,
                   ResultDocument.commit_id.in_(list(commit_ids)))
            .order_by(ResultDocument.id))
    wanted = set(codec_set_ids) if codec_set_ids is not None else None
    out: dict[int, dict[str, Any]] = {}
    for commit_id, set_id, *build in session.execute(stmt):
        if wanted is None or set_id in wanted:
            out[commit_id] = build_out(*build)
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


