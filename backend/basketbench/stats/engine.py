"""The speed rule for one commit's family of series, independent of the database:
the service feeds it histories from PostgreSQL, bench/detection_quality.py synthetic ones.

Per series three tests, all in one Benjamini-Hochberg family per commit:
- ``single``: the newest point against the current segment (change at the newest commit);
- ``pair``: the two newest points against the segment before them (change one commit
  back, seen once two points agree: more power for small steps, delay 1);
- ``edivisive``: the strongest change point of the whole segment (slow or small
  shifts), permutation p-value; only where its effect passes the minimum.
A candidate passes ``screen_q`` and the minimum effect; it is raised only after the
interleaved confirmation reruns agree (``decide``). When the reruns show the parent
already at the new level (a step whose first run fell inside the noise, found one commit
late), the candidate moves to the parent and is confirmed there against its own parent.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from basketbench.stats import edivisive
from basketbench.stats.fdr import bh_adjust, bh_adjust_partial
from basketbench.stats.speed import (
    Array,
    LevelTest,
    SpeedRule,
    bootstrap_shift_ci,
    level_test,
    mann_whitney,
    within_se,
)

EDIVISIVE_MIN_SIZE = 5
EDIVISIVE_MAX_POINTS = 60


def run_median(runs: Sequence[float]) -> float:
    """The median of a commit's run medians (non-empty). One run: its value (what
    statistics.median and np.median return), without their sort, copy and per-call cost:
    a screen asks this of ~200 000 points per commit."""
    return float(runs[0]) if len(runs) == 1 else float(statistics.median(runs))


def points_needed(rule: SpeedRule) -> int:
    """How many of a segment's newest points ``screen`` can read: e-divisive's span, and
    the reference window before the oldest change point it can find there."""
    return EDIVISIVE_MAX_POINTS + rule.window


@dataclass(slots=True)
class SeriesPoint:
    """One commit of a series: each run's median, and the samples of its runs."""

    commit: int
    runs: list[float]
    samples: list[float]
    median: float = field(init=False)

    def __post_init__(self) -> None:
        self.median = run_median(self.runs)


@dataclass
class SeriesInput:
    key: object
    # The current segment, oldest first, newest commit last. Any sequence: the service
    # passes one that makes a point only when the screen reads it (changes/detection/
    # cells.py), since most of a segment is read through ``medians`` alone.
    points: Sequence[SeriesPoint]
    min_effect_pct: float = 2.0
    flagged: set[int] = field(default_factory=set)  # commits that already have a change
    # Each point's median (SeriesPoint.median), when the caller has them as an array
    # already; else taken from the points.
    medians: Array | None = None
    # within_se of the newest point's samples, when the caller knows it without them (the
    # service's packed points of a commit measured once); else computed from the samples.
    newest_se: float | None = None
    # The newest point's runs, when the caller knows them without making the point (a
    # commit measured once: its one run is its median); else read from the point.
    newest_runs: list[float] | None = None

    def __post_init__(self) -> None:
        if self.medians is None:
            self.medians = np.array([p.median for p in self.points], dtype=float)

    @property
    def levels(self) -> Array:
        """``medians``, set by __post_init__ (typed without the None)."""
        assert self.medians is not None
        return self.medians


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


def _log_matrix(rows: Sequence[Sequence[float] | Array], width: int) -> Array:
    """The log of each row's newest ``width`` values, left-aligned, NaN after them. One
    np.log over all the rows' values (elementwise: the same bits as row by row), not one
    per row: a screen asks this of ~1 700 rows."""
    out = np.full((len(rows), max(width, 1)), np.nan)
    if not width or not rows:
        return out
    tails = [row[-width:] for row in rows]
    sizes = np.fromiter(map(len, tails), dtype=np.int64, count=len(tails))
    if not sizes.any():
        return out
    values = np.concatenate(tails, dtype=float)
    out[np.arange(out.shape[1])[None, :] < sizes[:, None]] = np.log(values)
    return out


def _logs(rows: list[Array]) -> list[Array]:
    """np.log of each row, by one np.log over all the rows' values (elementwise: the same
    bits as row by row) and views of it, as _log_matrix takes its logs: one call per row
    is ~1 700 calls a screen (a small share of a pass: docs/perf/detection.md)."""
    if not rows:
        return []
    ends = np.cumsum([row.size for row in rows]).tolist()
    flat = np.log(np.concatenate(rows))
    return [flat[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def _newest_runs(s: SeriesInput) -> list[float]:
    return s.newest_runs if s.newest_runs is not None else s.points[-1].runs


def _newest_se(series: list[SeriesInput]) -> Array:
    """within_se of each series' newest point: given, or from its samples (computed
    together, the same values as one by one)."""
    out = np.array([np.nan if s.newest_se is None else s.newest_se for s in series])
    unknown = [k for k, s in enumerate(series) if s.newest_se is None]
    if unknown:
        out[unknown] = within_se([series[k].points[-1].samples for k in unknown])
    return out


def screen(family: list[SeriesInput], rule: SpeedRule) -> list[Candidate]:
    """Candidates for confirmation among a commit's series (one BH family)."""
    return with_evidence(family, tested_candidates(family, rule), rule)


def tested_candidates(family: list[SeriesInput], rule: SpeedRule) -> list[Candidate]:
    """``screen``'s candidates before their Mann-Whitney tests and intervals: what the
    tests find from the run medians and the newest point's samples alone. The caller can
    load the samples the evidence needs (each candidate's commit and its parent) for these
    few series only, then call ``with_evidence``."""
    tests: list[tuple[int, int, str, float, float]] = []  # series, position, test, delta, p
    w = rule.window
    # each series' points, asked once (a segment's length is a method call; ~10 000 of
    # them a pass)
    sizes = [len(s.points) for s in family]
    for test, back in (("single", 1), ("pair", 2)):
        idx = [i for i, (s, size) in enumerate(zip(family, sizes, strict=True))
               if size >= back + 2
               # (a point is made only where a commit of the series is flagged)
               and not (s.flagged and s.points[-back].commit in s.flagged)]
        if not idx:
            continue
        refs = [family[i].levels[:-back] for i in idx]
        news = [family[i].levels[-back:] if back > 1 else _newest_runs(family[i])
                for i in idx]
        se = _newest_se([family[i] for i in idx])
        lt = level_test(_log_matrix(refs, w), _log_matrix(news, max(len(n) for n in news)), se,
                        rule.scale_floor)
        # (as Python floats at once: a numpy scalar per series and test cost ~10 ms a pass)
        for i, delta, p in zip(idx, lt.delta.tolist(), lt.p.tolist(), strict=True):
            if math.isfinite(p):
                tests.append((i, sizes[i] - back, test, delta, p))
    # E-divisive's p-value must be able to pass BH's strictest threshold over the whole
    # family (screen_q / m, m = every test of this commit): without it the test could
    # never pass (199 permutations: floor 0.005; ~85 tests: 0.0012 needed, issue 32).
    ediv: list[tuple[int, int, float, Array]] = []  # series, offset, delta, log medians
    tested = [i for i, size in enumerate(sizes if rule.edivisive != "off" else [])
              if size >= 2 * EDIVISIVE_MIN_SIZE]
    logs = _logs([family[i].levels[-EDIVISIVE_MAX_POINTS:] for i in tested])
    # The newest two points are the single and pair tests' business.
    found = [(i, x, split) for i, x, split in zip(
        tested, logs, edivisive.best_splits(logs, EDIVISIVE_MIN_SIZE), strict=True)
        if split is not None and split.index < x.size - 2]
    shifts = edivisive.split_shifts([x for _, x, _ in found],
                                    [split.index for _, _, split in found])
    # (np.expm1 of the array: the same bits as of each shift, without a call per series)
    deltas: list[float] = np.expm1(np.array(shifts, dtype=float)).tolist()
    for (i, x, split), delta in zip(found, deltas, strict=True):
        s = family[i]
        offset = sizes[i] - x.size
        if abs(delta) * 100 < s.min_effect_pct * rule.screen_effect_fraction \
                or (s.flagged and s.points[offset + split.index].commit in s.flagged):
            continue
        ediv.append((i, offset, delta, x))
    needed = edivisive.permutations_for(rule.screen_q / max(len(tests) + len(ediv), 1)) \
        if rule.edivisive == "adaptive" else None
    for i, offset, delta, x in ediv:
        tested_split = edivisive.best_split(x, EDIVISIVE_MIN_SIZE, permutations=199, seed=i,
                                            max_permutations=needed)
        if tested_split is not None and tested_split.index < x.size - 2:
            tests.append((i, offset + tested_split.index, "edivisive", delta,
                          tested_split.p_value))
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
    return sorted(best.values(), key=lambda c: c.series)


def with_evidence(family: list[SeriesInput], candidates: list[Candidate], rule: SpeedRule
                  ) -> list[Candidate]:
    """The candidates with their Mann-Whitney p-values and bootstrap intervals (from the
    samples of their commits and parents), a single-commit step whose parent's samples
    do not differ left out."""
    out = candidates
    w = rule.window
    if out:
        parents = [family[c.series].points[c.position - 1].samples for c in out]
        suspects = [family[c.series].points[c.position].samples for c in out]
        for c, mw in zip(out, mann_whitney(parents, suspects), strict=True):
            c.mw_p = mw
            s = family[c.series]
            ref = np.array(s.levels[max(0, c.position - w):c.position])
            c.ci = bootstrap_shift_ci(ref, np.asarray(s.points[c.position].samples, dtype=float),
                                      rule.bootstrap, seed=c.series)
        # The parent's samples must differ too, unless the change is seen over several
        # commits (pair, e-divisive), where one pair of runs may straddle the noise.
        out = [c for c in out if c.test != "single" or c.mw_p is None or c.mw_p <= rule.mw_alpha]
    return out


@dataclass
class Confirmation:
    """What the interleaved reruns say about one candidate (``decide`` fills the verdict).

    The p-value comes from the reruns alone: fresh runs the screen never saw, so under
    "no change" they are as likely high as low whatever made the screen pick the series.
    The effect is estimated from every run of the suspect (screened and reruns)."""

    delta: float  # the suspect's runs (screened and reruns) against the reference (+ the
    # parent's reruns), median against median
    p_value: float  # the suspect's reruns against the same reference
    rerun_delta: float  # the interleaved pair: suspect reruns against parent reruns
    # Where the parent's reruns sit between the level before the parent (0) and the
    # suspect's reruns (1): nearer 1 means the change came at the parent or earlier.
    parent_share: float = float("nan")
    # The parent's and the suspect's reruns against the reference before the parent:
    # the evidence for moving the candidate one commit earlier.
    earlier_delta: float = float("nan")
    earlier_p: float = float("nan")
    fresh: bool = True  # False: no reruns, the p-value is the screened runs' own
    q_value: float = float("nan")
    # 95 % interval of the effect (fractions), from the level test's standard error
    interval: tuple[float, float] = (float("nan"), float("nan"))
    # confirmed | earlier | below_minimum (a real shift smaller than the minimum effect:
    # rejected once, and the series' reference restarts there) | rejected
    verdict: str = "rejected"

    @property
    def confirmed(self) -> bool:
        return self.verdict == "confirmed"


def _level(ref: Sequence[float], new: Sequence[float], samples: list[float],
           rule: SpeedRule) -> tuple[float, float]:
    lt = _level_test(ref, new, samples, rule)
    return float(lt.delta[0]), float(lt.p[0])


def _level_test(ref: Sequence[float], new: Sequence[float], samples: list[float],
                rule: SpeedRule) -> LevelTest:
    return level_test(_log_matrix([ref], len(ref)), _log_matrix([new], len(new)),
                      within_se([samples]), rule.scale_floor, successive=True)


def confirm_one(reference: list[float], suspect_runs: list[float], parent_reruns: list[float],
                suspect_reruns: list[float], samples: list[float], rule: SpeedRule
                ) -> Confirmation:
    """The level tests with the reruns. ``reference``: the segment's run medians before
    the suspect, oldest first, the parent's last."""
    ref = list(reference[-rule.window:]) + list(parent_reruns)
    new = list(suspect_runs) + list(suspect_reruns)
    full = _level_test(ref, new, samples, rule)
    p = float(full.p[0])
    # The effect: median against median, so that one run off (the screened run inside the
    # noise, or an outlier) does not move it.
    shift = float(np.median(np.log(new)) - np.median(np.log(ref)))
    delta = float(np.expm1(shift))
    conf = Confirmation(delta, p, float("nan"), fresh=bool(suspect_reruns))
    if full.se is not None and np.isfinite(full.se[0]):
        from scipy.stats import t as t_dist

        half = float(t_dist.ppf(0.975, max(int(full.n_ref[0]) - 1, 1)) * full.se[0])
        conf.interval = (float(np.expm1(shift - half)), float(np.expm1(shift + half)))
    if suspect_reruns:
        conf.p_value = _level(ref, suspect_reruns, samples, rule)[1]
    if parent_reruns and suspect_reruns:
        conf.rerun_delta = float(np.median(suspect_reruns) / np.median(parent_reruns) - 1)
        before = list(reference[:-1][-rule.window:])
        if len(before) >= 2:
            old = float(np.median(np.log(before)))
            to_parent = float(np.mean(np.log(parent_reruns))) - old
            to_suspect = float(np.mean(np.log(suspect_reruns))) - old
            if to_suspect != 0:
                conf.parent_share = to_parent / to_suspect
            conf.earlier_delta, conf.earlier_p = _level(
                before, list(parent_reruns) + list(suspect_reruns), samples, rule)
    return conf


def decide(confirmations: list[Confirmation], screen_deltas: list[float],
           min_effects_pct: list[float], family_size: int, rule: SpeedRule,
           candidates: int = 0, may_move: Sequence[bool] | None = None) -> None:
    """The verdict on a commit's candidates.

    Benjamini-Hochberg again, in two stages: the screen chose ``candidates`` series out
    of ``family_size`` tests (BH at screen_q), and the reruns, new data, test those
    again at fdr_q with m = ``candidates`` (without reruns: the screened p-values with
    m = ``family_size``). Then the effect must pass the minimum and the interleaved pair
    must agree, with the parent's reruns nearer the old level than the suspect's. When
    the parent's reruns sit nearer the suspect's new level and both differ from the level
    before the parent, the candidate moves one commit earlier (verdict "earlier": the
    parent is confirmed against its own parent by the next reruns) if ``may_move``
    allows; otherwise it is rejected."""
    ps = [c.p_value for c in confirmations]
    fresh = all(c.fresh for c in confirmations)
    m = max(candidates if fresh else family_size, len(ps), 1)
    q = bh_adjust_partial(ps, m)
    for i, c in enumerate(confirmations):
        qi = q[i]
        c.q_value = float(qi) if qi is not None else float("nan")
        effect = min_effects_pct[i] / 100
        sign = np.sign(screen_deltas[i])
        same_sign = np.sign(c.rerun_delta) == sign == np.sign(c.delta)
        # NaN (no level before the parent to compare with): the pair alone decides.
        parent_new = bool(c.parent_share >= 0.5)
        if (c.q_value <= rule.fdr_q and abs(c.delta) >= effect and same_sign
                and abs(c.rerun_delta) >= effect / 2 and not parent_new):
            c.verdict = "confirmed"
        elif ((may_move is None or may_move[i]) and parent_new
              and c.earlier_p <= rule.fdr_q and np.sign(c.earlier_delta) == sign
              and abs(c.earlier_delta) >= effect * rule.screen_effect_fraction):
            c.verdict = "earlier"
        elif (c.fresh and c.q_value <= rule.fdr_q and same_sign and not parent_new
              and abs(c.delta) < effect):
            # Real but smaller than the minimum: said once. Reopening it at every later
            # commit (the level stays shifted against the old reference) cost 76 reruns
            # for one -2 % step measured at -1.9 % (issue 27).
            c.verdict = "below_minimum"
        else:
            c.verdict = "rejected"
