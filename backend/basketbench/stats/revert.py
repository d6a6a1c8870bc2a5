"""A step back: the newest point of a series nearer the level before a recent change
than the level after it (the change's own runs and the points since), by at least the
screen's share of the minimum effect. Independent of the database: the service
(changes/detection/revert.py) and bench/detection_quality.py call the same rule."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from basketbench.stats.speed import SpeedRule

# Points since the change (its own included) up to which a step back is looked for as a
# revert: a revert up to 6 commits after its change (issue 32: 3 commits later was never
# raised with the old limit of 3 points). Later the ordinary step tests have a segment of
# 7 points or more to work with.
MAX_POINTS_SINCE = 7


def step_back(base: float | None, new_level: Sequence[float], newest_runs: Sequence[float],
              min_effect_pct: float, rule: SpeedRule) -> tuple[float, float] | None:
    """(delta against the new level, distance to the old level ``base``) when the newest
    runs step back towards ``base``; None otherwise. ``new_level``: run medians that
    measured the level after the change (its runs, reruns, the points since)."""
    if not new_level or not newest_runs or base is None or base <= 0:
        return None
    now = float(np.median(newest_runs))
    level = float(np.median(new_level))
    if now <= 0 or level <= 0:
        return None
    to_old, to_new = abs(math.log(now / base)), abs(math.log(now / level))
    delta = now / level - 1
    if to_old >= to_new or abs(delta) * 100 < min_effect_pct * rule.screen_effect_fraction:
        return None
    return delta, now / base - 1
