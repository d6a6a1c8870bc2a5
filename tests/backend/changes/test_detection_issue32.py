"""Issue 32's detection defects, on the pure rules (no database): e-divisive's p-value
floor, the rerun budget that starved early and bursty steps, the interval of a confirmed
effect, reverts a few commits later, and the per-commit A/B rule."""

from __future__ import annotations

import math

import numpy as np
from basketbench.stats import edivisive
from basketbench.stats.abeffect import AbEstimate, decide_ab, screen_ab
from basketbench.stats.budget import BudgetRule, strong
from basketbench.stats.engine import SeriesInput, SeriesPoint, confirm_one, screen
from basketbench.stats.revert import MAX_POINTS_SINCE, step_back
from basketbench.stats.speed import SpeedRule
from test_detection_rules import family, runs_at

RULE = SpeedRule()


def test_edivisive_p_value_reaches_below_the_bh_threshold_of_a_commit() -> None:
    rng = np.random.default_rng(5)
    x = np.log(np.r_[runs_at(rng, 100, 25), runs_at(rng, 97, 20)])
    needed = edivisive.permutations_for(RULE.screen_q / 85)  # ~85 tests in the family
    assert needed >= 1600
    old = edivisive.best_split(x, 5, permutations=199)
    new = edivisive.best_split(x, 5, permutations=199, max_permutations=needed)
    assert old is not None and new is not None and new.index == old.index == 25
    assert old.p_value == 1 / 200  # the floor that could never pass BH over 85 tests
    assert new.p_value < RULE.screen_q / 85 / 1.5
    # noise stops at the first batch: it pays for no resolution it cannot use
    quiet = edivisive.best_split(np.log(runs_at(rng, 100, 45)), 5, permutations=199,
                                 max_permutations=needed)
    assert quiet is not None and quiet.p_value > edivisive.EARLY_STOP_P


def test_a_step_older_than_two_commits_passes_the_screen_by_edivisive() -> None:
    rng = np.random.default_rng(6)
    fam = family(rng, 43, 40, 0.01, step={7: -0.03}, at=25)
    for s in fam:  # the newest points of series 7 already flagged: only e-divisive can see it
        s.flagged = {38, 39}
    found = [c for c in screen(fam, RULE) if c.series == 7]
    assert found and found[0].test == "edivisive" and abs(found[0].position - 25) <= 1
    assert found[0].q_value <= RULE.screen_q


def test_the_confirmed_effect_lies_inside_its_own_interval() -> None:
    rng = np.random.default_rng(7)
    outside = 0
    for _ in range(50):
        reference = runs_at(rng, 100, 30)
        conf = confirm_one(reference, runs_at(rng, 97, 1), runs_at(rng, 100, 2),
                           runs_at(rng, 97, 2), list(97 * (1 + rng.normal(0, 0.007, 9))), RULE)
        lo, hi = conf.interval
        outside += not lo <= conf.delta <= hi
    assert outside == 0


def test_a_revert_five_commits_later_is_a_step_back() -> None:
    # a -5 % change at commit c (base 100, new level 95), reverted at c + 5
    assert MAX_POINTS_SINCE >= 6  # the change's point and five after it
    since = [95.2, 94.8, 95.1, 94.9]  # c+1 .. c+4
    hit = step_back(100.0, [95.0, 95.1] + since, [99.8, 100.1], 2.0, RULE)
    assert hit is not None and hit[0] > 0.04 and abs(hit[1]) < 0.01
    assert step_back(100.0, [95.0] + since, [95.3], 2.0, RULE) is None  # still at the new level


def test_the_budget_keeps_a_reserve_for_strong_evidence_and_counts_a_young_window_full() -> None:
    budget = BudgetRule(per_commit=1.0, window=50, round_cost=4)
    # a young tag (three commits measured) may spend a full window's budget
    assert budget.grants(0, strong=False) and budget.allowance() == 50
    # weak candidates stop at three quarters; strong evidence still gets its rounds
    assert not budget.grants(36, strong=False)
    assert budget.grants(36, strong=True) and budget.grants(44, strong=True)
    assert not budget.grants(47, strong=True)
    assert strong(0.01, -0.03, 2.0, 0.05) and not strong(0.08, -0.03, 2.0, 0.05)
    assert not strong(0.01, -0.015, 2.0, 0.05)


def ab(rng: np.random.Generator, true: float, pairs: int = 15, noise: float = 0.01
       ) -> AbEstimate:
    """An A/B effect: per-pair ratios true x (1 + e), e ~ N(0, noise); the median and a
    sign-test interval of the median (order statistics), as the harness states."""
    samples = np.sort(true * (1 + rng.normal(0, noise, pairs)))
    k = int(max(0, math.floor(pairs / 2 - 1.96 * math.sqrt(pairs) / 2)))
    return AbEstimate(float(np.median(samples)), float(samples[k]),
                      float(samples[pairs - 1 - k]), pairs, samples.tolist())


def test_ab_screen_finds_a_three_percent_effect_among_85_and_nothing_in_noise() -> None:
    rng = np.random.default_rng(8)
    hits = false = 0
    for _ in range(8):
        fam = [ab(rng, 0.97 if i == 4 else 1.0) for i in range(85)]
        found = screen_ab(fam, [2.0] * 85, RULE)
        hits += any(c.index == 4 for c in found)
        false += sum(c.index != 4 for c in found)
    assert hits == 8 and false <= 1


def test_ab_confirmation_lists_the_confirming_effect_and_interval() -> None:
    rng = np.random.default_rng(9)
    confirming = ab(rng, 0.97)
    [v] = decide_ab([confirming], [-0.031], [2.0], RULE, candidates=1)
    assert v.confirmed
    assert v.delta == confirming.ratio - 1
    assert v.interval == (confirming.ci_low - 1, confirming.ci_high - 1)
    assert v.interval[0] <= v.delta <= v.interval[1] < 0
    # a confirming A/B at the old level rejects it; a missing series is said so
    [no, missing] = decide_ab([ab(rng, 1.0), None], [-0.031, -0.03], [2.0, 2.0], RULE,
                              candidates=2)
    assert no.verdict == "rejected" and missing.verdict == "missing"


def test_a_family_without_ab_still_goes_through_the_history_screen() -> None:
    # SeriesInput/SeriesPoint unchanged: the history screen stays for commits without a
    # reference build (a smoke check that the family API is intact)
    pts = [SeriesPoint(c, [100.0 + (c % 3) * 0.1], [100.0] * 9) for c in range(12)]
    assert screen([SeriesInput("s", pts)], RULE) == []
