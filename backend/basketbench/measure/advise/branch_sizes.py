"""Per-branch compressed sizes, aggregated per branch, per type class or per file.

Input rows are `rzbench sizes` branches (docs/RZBENCH_CLI.md) or the same numbers from
the database: exact byte counts, so aggregation is a plain sum and every share is
weighted by uncompressed bytes (a branch holding 40 % of the file's bytes weighs 40 %).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

GroupBy = Literal["branch", "type_class", "file"]
GROUP_BY: tuple[GroupBy, ...] = ("branch", "type_class", "file")


@dataclass
class SizeGroup:
    """Summed sizes of one branch, type class or file."""

    key: str
    type_class: str | None
    branches: int = 0
    baskets: int = 0
    raw_bytes: int = 0
    share: float = 0.0  # of all raw bytes given
    # (setting, preconditioner) -> compressed bytes
    compressed: dict[tuple[int, str], int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "type_class": self.type_class,
            "branches": self.branches,
            "baskets": self.baskets,
            "raw_bytes": self.raw_bytes,
            "share": self.share,
            "sizes": [
                {"setting": s, "preconditioner": p, "compressed_bytes": n}
                for (s, p), n in sorted(self.compressed.items())
            ],
        }


def _key(row: Mapping[str, Any], by: GroupBy) -> str:
    if by == "branch":
        return f"{row['tree']}/{row['branch']}" if row.get("tree") else str(row["branch"])
    if by == "type_class":
        return str(row.get("type_class") or "unknown")
    return str(row.get("file") or "")


def aggregate(rows: Iterable[Mapping[str, Any]], by: GroupBy) -> list[SizeGroup]:
    """Sum `rows` (rzbench sizes branches) per `by`; groups in order of first appearance."""
    if by not in GROUP_BY:
        raise ValueError(f"group_by must be one of {', '.join(GROUP_BY)}, got {by!r}")
    groups: dict[str, SizeGroup] = {}
    total = 0
    for row in rows:
        key = _key(row, by)
        group = groups.get(key)
        if group is None:
            tc = row.get("type_class") if by != "file" else None
            group = groups[key] = SizeGroup(key, tc)
        elif by == "branch" and group.type_class != row.get("type_class"):
            group.type_class = None
        group.branches += 1
        group.baskets += int(row.get("baskets", 0))
        group.raw_bytes += int(row["raw_bytes"])
        total += int(row["raw_bytes"])
        for size in row["sizes"]:
            k = (int(size["setting"]), str(size["preconditioner"]))
            group.compressed[k] = group.compressed.get(k, 0) + int(size["compressed_bytes"])
    for group in groups.values():
        group.share = group.raw_bytes / total if total else 0.0
    return list(groups.values())
