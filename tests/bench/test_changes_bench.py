"""The detection benchmark runs and scores: a small synthetic world through the same
rule the service uses, next to the plain 5 % rule."""

from __future__ import annotations

import numpy as np
from basketbench.services.detection.speed import SpeedRule

from bench import changes_bench


def test_small_world_scores_like_the_full_benchmark() -> None:
    rng = np.random.default_rng(7)
    world = changes_bench.make_world(30, 70, rng, step_every=35)
    assert world.steps and world.outliers and world.drift
    alarms, reruns = changes_bench.run_detector(world, 0.02, SpeedRule(), rng)
    ours = changes_bench.score(world, alarms)
    plain = changes_bench.score(world, changes_bench.plain_rule(world, 0.02,
                                                                np.random.default_rng(7)))
    assert ours["recall"].get("10", 1.0) == 1.0 and ours["recall"].get("5", 1.0) >= 0.9
    assert ours["false_per_1000"] <= 2.0
    # at CV 2 % consecutive runs differ by 5 % often: the plain rule fires on noise
    assert plain["false_per_1000"] > 3 * max(ours["false_per_1000"], 1.0)
    assert ours["delay_median"] is not None and ours["delay_median"] <= 1
    assert reruns > 0 and reruns % (2 * SpeedRule().confirm_runs) == 0
