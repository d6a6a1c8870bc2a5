"""The speed rule for one commit's family of series, independent of the database:
the service feeds it histories from PostgreSQL, bench/changes_bench.py synthetic ones.

Per series three tests, all in one Benjamini-Hochberg family per commit:
- ``single``: the newest point against the current segment (change at the newest commit);
- ``pair``: the two newest points against the segment before them (change one commit
  back, seen once two points agree: more power for small steps, delay 1);
- ``edivisive``: the strongest change point of the whole segment (slow or small
  shifts), permutation p-value; only where its effect passes the minimum.
A candidate passes ``screen_q`` and the minimum effect; it is raised only after the
interleaved confirmation reruns agree (``decide``).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from basketbench.services.detection import edivisive
from basketbench.services.detection.fdr import bh_adjust
from basketbench.services.detection.speed import (
    Array,
    SpeedRule,
    bootstrap_shift_ci,
    level_test,
    mann_whitney,
    within_se,
)

EDIVISIVE_MIN_SIZE = 5
EDIVISIVE_MAX_POINTS = 60


@dataclass
class SeriesPoint:
    """One commit of a series: each run's median, and the samples of its runs."""

    commit: int
    runs: list[float]
    samples: list[float]
    median: float = field(init=False)

    def __post_init__(self) -> None:
        self.median = float(statistics.median(self.runs))


@dataclass
class SeriesInput:
    key: object
    points: list[SeriesPoint]  # the current segment, oldest first, newest commit last
    min_effect_pct: float = 2.0
    flagged: set[int] = field(default_factory=set)  # commits that already have a change


@dataclass
class Candidate:
    series: int  # index into the family
    position: int  # index into points: the first commit after the change
    test: str
    delta: float
    p_value: float
    q_value: float
    mw_p: float | None
    ci: tuple[float, float]
    family_size: int


def _log_matrix(rows: Sequence[Sequence[float]], width: int) -> Array:
    out = np.full((len(rows), max(width, 1)), np.nan)
    for i, row in enumerate(rows):
        vals = np.log(np.asarray(row[-width:] if width else [], dtype=float))
        out[i, :vals.size] = vals
    return out


def screen(family: list[SeriesInput], rule: SpeedRule) -> list[Candidate]:
    """Candidates for confirmation among a commit's series (one BH family)."""
    tests: list[tuple[int, int, str, float, float]] = []  # series, position, test, delta, p
    w = rule.window
    for test, back in (("single", 1), ("pair", 2)):
        idx = [i for i, s in enumerate(family) if len(s.points) >= back + 2
               and s.points[-back].commit not in s.flagged]
        if not idx:
            continue
        refs = [[p.median for p in family[i].points[:-back]] for i in idx]
        news = [[r for p in family[i].points[-back:] for r in ([p.median] if back > 1 else p.runs)]
                for i in idx]
        se = within_se([family[i].points[-1].samples for i in idx])
        lt = level_test(_log_matrix(refs, w), _log_matrix(news, max(len(n) for n in news)), se,
                        rule.scale_floor)
        for k, i in enumerate(idx):
            if np.isfinite(lt.p[k]):
                tests.append((i, len(family[i].points) - back, test, float(lt.delta[k]),
                              float(lt.p[k])))
    for i, s in enumerate(family):
        pts = s.points[-EDIVISIVE_MAX_POINTS:]
        offset = len(s.points) - len(pts)
        if len(pts) < 2 * EDIVISIVE_MIN_SIZE:
            continue
        x = np.log([p.median for p in pts])
        split = edivisive.best_split(x, EDIVISIVE_MIN_SIZE, permutations=0)
        # The newest two points are the single and pair tests' business.
        if split is None or split.index >= len(pts) - 2:
            continue
        delta = float(np.expm1(np.median(x[split.index:]) - np.median(x[:split.index])))
        if abs(delta) * 100 < s.min_effect_pct * rule.screen_effect_fraction \
                or pts[split.index].commit in s.flagged:
            continue
        split = edivisive.best_split(x, EDIVISIVE_MIN_SIZE, permutations=199, seed=i)
        if split is not None and split.index < len(pts) - 2:
            tests.append((i, offset + split.index, "edivisive", delta, split.p_value))
    qs = bh_adjust([t[4] for t in tests])
    best: dict[int, Candidate] = {}
    for (i, pos, test, delta, p), q in zip(tests, qs, strict=True):
        s = family[i]
        if q is None or q > rule.screen_q or \
                abs(delta) * 100 < s.min_effect_pct * rule.screen_effect_fraction:
            continue
        if i in best and best[i].p_value <= p:
            continue
        best[i] = Candidate(i, pos, test, delta, p, q, None, (np.nan, np.nan), len(tests))
    out = sorted(best.values(), key=lambda c: c.series)
    if out:
        parents = [family[c.series].points[c.position - 1].samples for c in out]
        suspects = [family[c.series].points[c.position].samples for c in out]
        for c, mw in zip(out, mann_whitney(parents, suspects), strict=True):
            c.mw_p = mw
            pts = family[c.series].points
            ref = np.array([p.median for p in pts[max(0, c.position - w):c.position]])
            c.ci = bootstrap_shift_ci(ref, np.asarray(pts[c.position].samples, dtype=float),
                                      rule.bootstrap, seed=c.series)
        # The parent's samples must differ too, unless the change is seen over several
        # commits (pair, e-divisive), where one pair of runs may straddle the noise.
        out = [c for c in out if c.test != "single" or c.mw_p is None or c.mw_p <= rule.mw_alpha]
    return out


@dataclass
class Confirmation:
    delta: float
    p_value: float
    rerun_delta: float
    q_value: float = float("nan")
    confirmed: bool = False


def confirm_one(reference: list[float], suspect_runs: list[float], parent_reruns: list[float],
                suspect_reruns: list[float], samples: list[float], rule: SpeedRule
                ) -> Confirmation:
    """The level test again with the reruns: the suspect's runs (original + reruns)
    against the reference plus the parent's reruns; and the interleaved pair alone."""
    ref = list(reference[-rule.window:]) + list(parent_reruns)
    new = list(suspect_runs) + list(suspect_reruns)
    lt = level_test(_log_matrix([ref], len(ref)), _log_matrix([new], len(new)),
                    within_se([samples]), rule.scale_floor)
    rerun = (float(np.median(suspect_reruns) / np.median(parent_reruns) - 1)
             if parent_reruns and suspect_reruns else float("nan"))
    return Confirmation(float(lt.delta[0]), float(lt.p[0]), rerun)


def decide(confirmations: list[Confirmation], screen_deltas: list[float],
           min_effects_pct: list[float], family_size: int, rule: SpeedRule) -> None:
    """Final BH over the commit's family (m = every test screened; candidates' p-values
    replaced by their confirmation's), then the effect and the reruns' agreement."""
    ps = [c.p_value for c in confirmations]
    m = max(family_size, len(ps))
    order = np.argsort(ps)
    ranked = np.array(ps)[order] * m / np.arange(1, len(ps) + 1)
    q_sorted = np.minimum.accumulate(ranked[::-1])[::-1] if len(ps) else ranked
    for k, i in enumerate(order):
        c = confirmations[i]
        c.q_value = float(min(q_sorted[k], 1.0))
        effect = min_effects_pct[i] / 100
        same_sign = np.sign(c.rerun_delta) == np.sign(screen_deltas[i]) == np.sign(c.delta)
        c.confirmed = bool(c.q_value <= rule.fdr_q and abs(c.delta) >= effect and same_sign
                           and abs(c.rerun_delta) >= effect / 2)
