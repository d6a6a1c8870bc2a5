"""Reverts: a change back to the level before an earlier confirmed change of the same
series. A one-commit regression reverted at the next commit used to leave the history
reading as permanently regressed: the revert came while the first change split the
series (too few points since it for any test), so it was never screened (issue 27).

``candidate`` looks at the newest point of a series whose last confirmed change is
recent: when the point sits nearer the level before that change than the level after
it, by at least the screen's share of the minimum effect, it is a candidate, confirmed
by reruns like any other. ``link`` records both sides once a change is confirmed."""

from __future__ import annotations

import math
from collections.abc import Sequence

from sqlalchemy.orm import Session

from basketbench.models import Change
from basketbench.stats import revert as stats_revert
from basketbench.stats.speed import SpeedRule

# Points since the change (its own included) up to which a step back is a revert.
MAX_POINTS_SINCE = stats_revert.MAX_POINTS_SINCE


def new_level_runs(change: Change) -> list[float]:
    """The runs that measured the change's new level: its screened runs and reruns."""
    ev = change.evidence or {}
    result = (change.confirmation or {}).get("result") or {}
    return [float(v) for v in [*ev.get("suspect_runs", []), *result.get("suspect_reruns", [])]
            if v and v > 0]


def candidate(change: Change, since: Sequence[float], newest_runs: Sequence[float],
              min_effect_pct: float, rule: SpeedRule) -> tuple[float, float] | None:
    """(delta against the new level, distance to the old level) when the newest point
    steps back towards ``change.base_value``; ``since``: run medians of the points after
    the change's commit and before the newest."""
    return stats_revert.step_back(change.base_value, new_level_runs(change) + list(since),
                                  newest_runs, min_effect_pct, rule)


def is_back(change: Change, head_value: float | None, tolerance_pct: float) -> bool:
    """A value back at the level before ``change`` (within tolerance; 0: exactly)."""
    base = change.base_value
    if base is None or head_value is None:
        return False
    if tolerance_pct <= 0:
        return math.isclose(head_value, base, rel_tol=1e-12)
    return abs(head_value / base - 1) * 100 < tolerance_pct


def link(session: Session, confirmed: Sequence[Change]) -> None:
    """Record confirmed reverts on both sides (evidence["reverts"] names the first)."""
    for ch in confirmed:
        first_id = (ch.evidence or {}).get("reverts")
        if not first_id or ch.state != "confirmed":
            continue
        first = session.get(Change, int(first_id))
        if first is None or first.reverted_by_id is not None:
            continue
        ch.reverts_id, first.reverted_by_id = first.id, ch.id
