"""Stored per-branch sizes (the Recommend page's tracker source): written from a worker's
`rzbench sizes` output and read back in the same branch shape, the input of
measure.advise.branch_sizes.aggregate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from basketbench.models import BranchSize


def store(session: Session, *, commit_id: int, dataset_id: int, codecs: str,
          branches: Iterable[Mapping[str, Any]]) -> int:
    """Replace the stored sizes of (commit, dataset, codecs) by `branches`; rows written."""
    key = {"commit_id": commit_id, "dataset_id": dataset_id, "codecs": codecs}
    rows = [
        {**key, "file": b.get("file") or "", "tree": b.get("tree") or "", "branch": b["branch"],
         "type_class": b.get("type_class"), "baskets": int(b.get("baskets", 0)),
         "raw_bytes": int(b["raw_bytes"]), "setting": int(s["setting"]),
         "preconditioner": str(s["preconditioner"]),
         "compressed_bytes": int(s["compressed_bytes"])}
        for b in branches for s in b["sizes"]
    ]
    session.execute(delete(BranchSize).where(
        BranchSize.commit_id == commit_id, BranchSize.dataset_id == dataset_id,
        BranchSize.codecs == codecs))
    if rows:
        session.execute(insert(BranchSize), rows)
    return len(rows)


def load(session: Session, *, commit_id: int, dataset_id: int, codecs: str) -> list[dict[str, Any]]:
    """Stored rows back in `rzbench sizes` branch shape (input of `aggregate`)."""
    out: dict[tuple[str, str, str], dict[str, Any]] = {}
    stmt = select(BranchSize).where(
        BranchSize.commit_id == commit_id, BranchSize.dataset_id == dataset_id,
        BranchSize.codecs == codecs).order_by(BranchSize.id)
    for r in session.scalars(stmt):
        row = out.setdefault((r.file, r.tree, r.branch), {
            "file": r.file, "tree": r.tree, "branch": r.branch, "type_class": r.type_class,
            "baskets": r.baskets, "raw_bytes": r.raw_bytes, "sizes": []})
        row["sizes"].append({"setting": r.setting, "preconditioner": r.preconditioner,
                             "compressed_bytes": r.compressed_bytes})
    return list(out.values())
