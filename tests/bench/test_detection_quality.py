"""The detection benchmark runs and scores: a small synthetic world through the same
rule the service uses, next to the plain 5 % rule."""

from __future__ import annotations

import numpy as np
from basketbench.stats.budget import BudgetRule
from basketbench.stats.speed import SpeedRule

from bench import detection_quality


def test_small_world_scores_like_the_full_benchmark() -> None:
    rng = np.random.default_rng(7)
    world = detection_quality.make_world(30, 70, rng, step_every=35)
    assert world.steps and world.outliers and world.drift
    alarms, reruns = detection_quality.run_detector(world, 0.02, SpeedRule(), rng)
    ours = detection_quality.score(world, alarms)
    plain = detection_quality.score(world, detection_quality.plain_rule(world, 0.02,
                                                                np.random.default_rng(7)))
    assert ours["recall"].get("10", 1.0) == 1.0 and ours["recall"].get("5", 1.0) >= 0.9
    # e-divisive can pass the screen since issue 32 (adaptive permutations): at CV 2 % it
    # finds more 3 % steps here (0.41 -> 0.59) and places some of them 2 commits off
    # (counted false): 1.9 -> 3.8 per 1000
    assert ours["false_per_1000"] <= 4.0
    # at CV 2 % consecutive runs differ by 5 % often: the plain rule fires on noise
    assert plain["false_per_1000"] > 3 * max(ours["false_per_1000"], 1.0)
    assert ours["delay_median"] is not None and ours["delay_median"] <= 1
    assert reruns > 0 and reruns % (2 * SpeedRule().confirm_runs) == 0


# Issue 27's planted scenarios in the simulator (1 % noise, half of its variance between
# runs; 42 series, as the histories through the API).


def _run(kind: str, commits: int, seed: int = 3) -> tuple[list[detection_quality.Alarm], int,
                                                           detection_quality.Trace, int]:
    level, at = detection_quality.planted(kind, 42, commits)
    trace = detection_quality.Trace()
    alarms, reruns = detection_quality.run_detector(
        detection_quality._world(level), 0.01, SpeedRule(), np.random.default_rng(seed), 0.5,
        trace=trace)
    return alarms, reruns, trace, at


def test_pure_noise_costs_under_one_rerun_per_commit_and_does_not_grow() -> None:
    alarms, reruns, trace, _ = _run("noise", 300)
    assert reruns / 300 < 1.0
    # the service history grew 14, 32, 63, 79, 84, 108 candidates per 50 commits
    first, last = sum(trace.reruns[:100]), sum(trace.reruns[200:])
    assert last <= 2 * first + 8, trace.reruns
    assert len([a for a in alarms if a.test != "drift"]) <= 1


def test_a_step_at_the_minimum_effect_is_judged_once() -> None:
    alarms, _, trace, at = _run("min_step", 120)
    # at most one round of reruns and its moves (e-divisive, which can pass the screen
    # since issue 32, may place it a commit off first), never reopened: the issue's
    # service reopened a -2 % step four times (76 reruns)
    assert trace.rounds[0] <= 4, trace.rounds[0]
    on_step = [a for a in alarms if a.series == 0]
    below = [c for s, c in trace.below_minimum if s == 0]
    assert len(on_step) + len(below) <= 1, (on_step, below)
    assert all(abs(c - at) <= 1 for c in [a.position for a in on_step] + below)


def test_a_slow_drift_is_reported_within_50_commits_of_reaching_3_percent() -> None:
    alarms, _, _, at = _run("drift", 130)
    drifts = [a for a in alarms if a.series == 0 and a.test == "drift"]
    assert drifts, alarms
    # the fitted line may pass 3 % a little before the truth does (noise on its slope)
    assert at - 20 <= drifts[0].detected_at <= at + 50, (drifts[0], at)
    assert -6 < drifts[0].delta * 100 <= -3
    assert [a for a in alarms if a.series != 0] == []


# Issue 32's planted histories (bench/detection_planted.py), cut to their first 24 commits:
# steps in the first 20 commits, with and without per-commit A/B effects.


def test_early_steps_are_found_by_the_ab_and_the_history_screen_runs_its_budget() -> None:
    from bench import detection_planted

    level, events, drifts = detection_planted.planted(300)
    level = level[:, :24]
    early = [e for e in events if e.commit < 24]
    assert {e.group for e in early} == {"early 3 %", "early 2 %"}
    trace = detection_quality.Trace()
    alarms, reruns = detection_quality.run_detector(
        detection_quality.World(level.copy(), []), 0.01, SpeedRule(),
        np.random.default_rng(5), trace=trace, budget=BudgetRule(), reverts=True,
        ab=detection_quality.AbModel())
    got = detection_planted.score(early, drifts, alarms, 24)
    # the 3 % steps always, at their commit, from the A/B; no rerun, one A/B per commit
    # plus one per commit with candidates
    assert got["found"]["early 3 %"] == 2 and got["exact"]["early 3 %"] == 2
    assert got["false"] == 0 and reruns == 0
    assert sum(trace.ab_runs) <= 23 + len(early)
    # without A/B: the history screen under the budget (a young window counts as full)
    alarms, reruns = detection_quality.run_detector(
        detection_quality.World(level.copy(), []), 0.01, SpeedRule(),
        np.random.default_rng(5), budget=BudgetRule(), reverts=True)
    got = detection_planted.score(early, drifts, alarms, 24)
    assert got["found"]["early 3 %"] >= 1 and got["false"] <= 1
