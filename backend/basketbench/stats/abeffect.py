"""Speed changes from per-commit interleaved A/B effects (issue 32), independent of the
database: the service (changes/detection/ab.py) feeds it ``ab_effects`` rows,
bench/detection_quality.py simulated ones.

An A/B effect is the median of the per-pair speed ratios B/A of one (dataset,
configuration, metric), B the commit, A its reference build (its parent, or the previous
measured commit), measured alternately in one process: load, frequency and neighbours hit
both sides of a pair alike. Its test is on the pairs themselves: a Wilcoxon signed-rank
test of the log ratios against 0 (the pairs are the unit; with fewer than MIN_PAIRS
samples the stored interval is turned into a normal standard error instead).

- ``screen_ab``: one Benjamini-Hochberg family per commit (all its A/B effects); a
  candidate passes ``screen_q``, its interval excludes 1 and its ratio passes the screen's
  share of the minimum effect.
- ``decide_ab``: the confirmation is ONE more interleaved A/B of the commit against the
  same reference: new data, tested again with BH at ``fdr_q`` over the candidates (m =
  the screened candidates, as the reruns' decision); confirmed when its interval excludes
  1 on the same side and its ratio passes the full minimum. The listed effect and its
  interval are the confirming A/B's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from basketbench.stats.fdr import bh_adjust, bh_adjust_partial
from basketbench.stats.speed import SpeedRule

MIN_PAIRS = 6  # fewer pairs: the signed-rank test cannot reach 0.05, use the interval
Z95 = 1.959963984540054


@dataclass
class AbEstimate:
    """One A/B effect: B over A (>1: B faster) with its interval and per-pair ratios."""

    ratio: float
    ci_low: float
    ci_high: float
    pairs: int = 0
    samples: list[float] = field(default_factory=list)

    @property
    def delta(self) -> float:
        return self.ratio - 1.0

    def excludes_one(self) -> bool:
        return self.ci_low > 1.0 or self.ci_high < 1.0

    def p_value(self) -> float:
        """Two-sided p of "no effect": signed-rank test of the log per-pair ratios, or a
        normal test with the standard error read off the interval."""
        logs = np.log([s for s in self.samples if s and s > 0])
        if logs.size >= MIN_PAIRS and np.any(logs != 0):
            from scipy.stats import wilcoxon

            return float(wilcoxon(logs, zero_method="zsplit", alternative="two-sided").pvalue)
        if not (self.ci_low > 0 and self.ci_high > 0 and self.ratio > 0):
            return math.nan
        se = (math.log(self.ci_high) - math.log(self.ci_low)) / (2 * Z95)
        if se <= 0:
            return 0.0 if self.ratio != 1 else 1.0
        from scipy.stats import norm

        return float(2 * norm.sf(abs(math.log(self.ratio)) / se))


@dataclass
class AbCandidate:
    index: int  # into the family
    delta: float  # ratio - 1
    p_value: float
    q_value: float
    family_size: int


def screen_ab(family: Sequence[AbEstimate], min_effects_pct: Sequence[float],
              rule: SpeedRule) -> list[AbCandidate]:
    """Candidates among one commit's A/B effects (one BH family)."""
    ps = [e.p_value() for e in family]
    qs = bh_adjust(ps)
    m = sum(1 for p in ps if np.isfinite(p))
    out = []
    for i, (e, q) in enumerate(zip(family, qs, strict=True)):
        if q is None or q > rule.screen_q or not e.excludes_one():
            continue
        if abs(e.delta) * 100 < min_effects_pct[i] * rule.screen_effect_fraction:
            continue
        out.append(AbCandidate(i, e.delta, ps[i], q, m))
    return out


@dataclass
class AbVerdict:
    verdict: str  # confirmed | below_minimum | rejected | missing
    delta: float = math.nan
    interval: tuple[float, float] = (math.nan, math.nan)  # fractions, from the confirming A/B
    p_value: float = math.nan
    q_value: float = math.nan

    @property
    def confirmed(self) -> bool:
        return self.verdict == "confirmed"


def decide_ab(confirming: Sequence[AbEstimate | None], screen_deltas: Sequence[float],
              min_effects_pct: Sequence[float], rule: SpeedRule,
              candidates: int = 0) -> list[AbVerdict]:
    """The verdicts on a commit's A/B candidates from the confirming A/B (None: that
    series is missing from it)."""
    ps = [c.p_value() if c is not None else None for c in confirming]
    qs = bh_adjust_partial(ps, max(candidates, len(ps), 1))
    out = []
    for i, c in enumerate(confirming):
        if c is None:
            out.append(AbVerdict("missing"))
            continue
        p, q = ps[i], qs[i]
        v = AbVerdict("rejected", c.delta, (c.ci_low - 1.0, c.ci_high - 1.0),
                      p if p is not None else math.nan, q if q is not None else math.nan)
        same_side = np.sign(c.delta) == np.sign(screen_deltas[i]) and c.excludes_one()
        if same_side and v.q_value <= rule.fdr_q:
            v.verdict = "confirmed" if abs(c.delta) * 100 >= min_effects_pct[i] \
                else "below_minimum"
        out.append(v)
    return out
