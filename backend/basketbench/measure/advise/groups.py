"""Recommendations per branch and per type class, and what per-branch settings would save.

ROOT allows a compression setting per branch. A group (a branch or a type class) is ranked
with its own exact compressed sizes and the file's speeds (the few baskets of one branch are
too few to time): `group_candidates` builds those candidates, `advise_group` ranks one group,
`recommend_groups` ranks many and compares the sum of the groups' own winners with the file's
single best setting applied to every group. The CLI (`basketbench advise`) and the API
(`POST /recommend/groups`, the Recommend page) both call these functions.

Costs are linear in the bytes, so with one set of speeds the groups' costs at one setting sum
to the file's cost at that setting: the file's best setting is the best of the summed groups.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from basketbench.measure.advise.ranking import Candidate, CostModel, cost_of, recommend
from basketbench.measure.advise.root_snippet import root_snippet

# (setting, preconditioner) -> (compress MB/s, decompress MB/s)
Speeds = Mapping[tuple[int, str], tuple[float, float]]


@dataclass(frozen=True)
class GroupSizes:
    """One branch or type class: its uncompressed bytes and exact compressed bytes per setting."""

    key: str
    type_class: str | None
    raw_bytes: int
    share: float
    compressed: Mapping[tuple[int, str], int]


def group_candidates(raw_bytes: int, compressed: Mapping[tuple[int, str], int],
                     speeds: Speeds) -> list[Candidate]:
    """The group's measured settings that have speeds (an empty group has none)."""
    if raw_bytes <= 0:
        return []
    return [
        Candidate(setting, pre, raw_bytes, max(1, n), *speeds[(setting, pre)])
        for (setting, pre), n in sorted(compressed.items())
        if (setting, pre) in speeds
    ]


def advise_group(cands: Sequence[Candidate], model: CostModel) -> dict[str, Any]:
    """One group's recommendation as `advise --json` lists it (null when nothing is measured)."""
    if not cands:
        return {"recommended": None, "margin": None, "summary": "no data", "ranking": []}
    rec = recommend(cands, model, pareto=False)  # a group's answer names no Pareto set
    return {
        "recommended": rec.best.candidate.label,
        "margin": None if math.isinf(rec.margin) else rec.margin,
        "summary": rec.summary(),
        "ranking": [r.candidate.label for r in rec.ranking],
    }


def recommend_groups(groups: Sequence[GroupSizes], speeds: Speeds,
                     model: CostModel) -> dict[str, Any]:
    """Each group's winner, and per-group winners against the file's single best setting."""
    per_group = [group_candidates(g.raw_bytes, g.compressed, speeds) for g in groups]
    # The file: every group summed, at the settings every measured group has.
    measured = [cands for cands in per_group if cands]
    common = set.intersection(*({c.label for c in m} for m in measured)) if measured else set()
    raw = sum(m[0].raw_bytes for m in measured)
    # Bytes per setting summed over the groups in one pass (not one pass per setting).
    summed: dict[str, int] = {}
    for m in measured:
        for x in m:
            summed[x.label] = summed.get(x.label, 0) + x.compressed_bytes
    file_cands = [
        Candidate(c.setting, c.preconditioner, raw, summed[c.label],
                  c.compress_mb_s, c.decompress_mb_s)
        for c in (measured[0] if measured else [])
        if c.label in common
    ]
    file_best = (recommend(file_cands, model, pareto=False).best.candidate.label
                 if file_cands else None)

    rows = []
    single_cost = own_cost = 0.0
    single_bytes = own_bytes = 0
    for g, cands in zip(groups, per_group, strict=True):
        advice = advise_group(cands, model)
        own = next((c for c in cands if c.label == advice["recommended"]), None)
        at_file = next((c for c in cands if c.label == file_best), own)
        row: dict[str, Any] = {
            "key": g.key, "type_class": g.type_class, "raw_bytes": g.raw_bytes,
            "share": g.share, **advice,
            "compressed_bytes": own.compressed_bytes if own else None,
            "cost_total": cost_of(own, model).total if own else None,
            "compressed_bytes_at_file_best": at_file.compressed_bytes if at_file else None,
            "cost_at_file_best": cost_of(at_file, model).total if at_file else None,
            # what switching this group from the file's best to its own saves
            "differs": bool(own and at_file and own.label != at_file.label),
            "saving": None, "saving_bytes": None,
        }
        if own and at_file:
            row["saving"] = row["cost_at_file_best"] - row["cost_total"]
            row["saving_bytes"] = at_file.compressed_bytes - own.compressed_bytes
            own_cost += row["cost_total"]
            single_cost += row["cost_at_file_best"]
            own_bytes += own.compressed_bytes
            single_bytes += at_file.compressed_bytes
        rows.append(row)
    saving = single_cost - own_cost
    rows = lead_with_differences(rows)
    return {
        "model": asdict(model),
        "file_recommended": file_best,
        "groups": rows,
        "cost_at_file_best": single_cost,
        "cost_per_group": own_cost,
        "saving": saving,
        "saving_fraction": saving / single_cost if single_cost > 0 else 0.0,
        "compressed_bytes_at_file_best": single_bytes,
        "compressed_bytes_per_group": own_bytes,
        "settings_used": len({r["recommended"] for r in rows if r["recommended"]}),
        "differing": sum(1 for r in rows if r["differs"]),
        "snippet": root_snippet(file_best, {r["key"]: r["recommended"] for r in rows
                                            if r["differs"]}) if file_best else None,
    }


def lead_with_differences(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups whose own best setting differs from the file's first, largest saving
    first; then the others, largest first (the order the page and the CLI list them in)."""
    return sorted(rows, key=lambda r: (
        not r.get("differs"),
        -(r.get("saving") or 0.0) if r.get("differs") else -r["raw_bytes"],
        r["key"]))
