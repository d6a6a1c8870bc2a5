"""Detection benchmark: synthetic histories through the same rule the service runs.

    .venv/bin/python -m bench.detection_quality --out /tmp/changes.json

For each noise level (CV of a sample: half its variance between runs, half within a
run, 9 samples per run) it builds ``--series`` series per commit over ``--commits``
commits, with planted steps (1-10 %, both signs, hitting a group of 1-8 series of the
same commit, as one codec change hits several datasets), single outlier runs (5-15 %)
and gradual drifts (3 % over 200 commits on a tenth of the series). Every commit goes
through ``engine.screen``; candidates get the interleaved confirmation reruns (drawn
from the truth with fresh run noise) and ``engine.decide``. Reported: recall per step
size (an alarm on the step's commit or next to it), false alarms per 1000 commits per
series (everything not matching a step, drift series included), the median and 95th
percentile of the detection delay (commits from the step until the commit whose
ingest raised it, confirmation included), reruns spent; next to the plain rule
"5 % versus the previous commit". A candidate whose reruns show its parent already at
the new level moves one commit earlier and gets another round of reruns, as in the
service (changes/detection/confirm.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

from basketbench.stats import revert as revert_rule
from basketbench.stats.abeffect import AbEstimate, decide_ab, screen_ab
from basketbench.stats.budget import BudgetRule, strong
from basketbench.stats.drift import find_drift
from basketbench.stats.engine import SeriesInput, SeriesPoint, confirm_one, decide, screen
from basketbench.stats.speed import SpeedRule, level_test, within_se

STEP_SIZES = (1.0, 2.0, 3.0, 5.0, 10.0)
SAMPLES = 9
SEGMENT_KEEP = 121  # as the service loads: max(61, drift window + 1)
OUTLIER_RATE = 0.002  # per series and commit: one run in 500 is off by 5-15 %


@dataclass
class World:
    """True level of every series at every commit, and what was planted."""

    level: np.ndarray  # series x commits, multiplicative truth
    steps: list[tuple[int, int, float]]  # (series, commit, size %)
    outliers: set[tuple[int, int]] = field(default_factory=set)
    outlier_size: dict[tuple[int, int], float] = field(default_factory=dict)
    drift: set[int] = field(default_factory=set)


def make_world(series: int, commits: int, rng: np.random.Generator,
               step_every: int = 100, events: bool = True) -> World:
    level = np.ones((series, commits))
    steps: list[tuple[int, int, float]] = []
    if not events:  # noise only: what confirmation costs when nothing happens
        return World(level, steps)
    n_events = max(1, series * commits // (step_every * 4))
    for _ in range(n_events):
        c = int(rng.integers(15, commits - 5))
        group = rng.choice(series, size=int(rng.integers(1, 9)), replace=False)
        size = float(rng.choice(STEP_SIZES)) * float(rng.choice([-1, 1]))
        for s in group:
            # one step per series within 15 commits of another would be ambiguous
            if any(ss == s and abs(cc - c) < 15 for ss, cc, _ in steps):
                continue
            level[s, c:] *= 1 + size / 100
            steps.append((int(s), c, size))
    world = World(level, steps)
    for drifting in rng.choice(series, size=max(1, series // 10), replace=False):
        world.drift.add(int(drifting))
        level[drifting, :] *= 1 + 0.03 * np.arange(commits) / 200
    for s in range(series):
        for at in np.nonzero(rng.random(commits) < OUTLIER_RATE)[0]:
            size = float(rng.uniform(0.05, 0.15)) * float(rng.choice([-1, 1]))
            world.outliers.add((s, int(at)))
            world.outlier_size[(s, int(at))] = size
    return world


def draw_run(true: float, cv: float, rng: np.random.Generator,
             outlier: float = 0.0, run_share: float = 0.5) -> tuple[float, list[float]]:
    """One run: ``run_share`` of the variance moves the whole run (another tenant,
    thermal state), the rest scatters its samples."""
    between, within = cv * math.sqrt(run_share), cv * math.sqrt(1 - run_share)
    run_level = true * (1 + rng.normal(0, between)) * (1 + outlier)
    samples = run_level * (1 + rng.normal(0, within, SAMPLES))
    return float(np.median(samples)), samples.tolist()


@dataclass
class Alarm:
    series: int
    position: int
    detected_at: int
    delta: float
    test: str
    moves: int = 0  # commits the candidate moved back before it was confirmed


@dataclass
class Pending:
    """A candidate waiting for its reruns: the screened one, or one moved earlier."""

    series: int
    points: list[SeriesPoint]  # the segment as screened
    position: int  # the suspect's index in points
    reference: list[float]  # run medians before the suspect, the parent's last
    suspect_runs: list[float]
    samples: list[float]
    screen_delta: float
    test: str
    family_size: int
    moves: int = 0
    q_value: float | None = None  # the screen's (None: a revert's single test, p below)
    p_value: float = 1.0

    @property
    def commit(self) -> int:
        return self.points[self.position].commit


@dataclass
class Trace:
    """Per commit: candidates sent to reruns, reruns spent, rejected below the minimum."""

    candidates: list[int] = field(default_factory=list)
    reruns: list[int] = field(default_factory=list)
    ab_runs: list[int] = field(default_factory=list)  # A/B runs per commit (pipeline + confirming)
    unconfirmed: list[tuple[int, int]] = field(default_factory=list)  # budget spent
    below_minimum: list[tuple[int, int]] = field(default_factory=list)  # (series, commit)
    rounds: dict[int, int] = field(default_factory=lambda: defaultdict(int))  # per series


@dataclass(frozen=True)
class AbModel:
    """Per-commit A/B effects as simulated: on a share of the commits (those with a
    reference build) every series gets B/A = true level ratio of the commit to its previous
    commit, times per-pair noise: ``pairs`` per-pair ratios (1 + e), e ~ N(0, ``noise``),
    summarised as the harness does (median, 95 % order-statistic interval of the median)."""

    share: float = 1.0
    pairs: int = 15
    noise: float = 0.01

    def draw(self, true: float, rng: np.random.Generator) -> AbEstimate:
        samples = np.sort(true * (1 + rng.normal(0, self.noise, self.pairs)))
        k = int(max(0, math.floor(self.pairs / 2 - 1.96 * math.sqrt(self.pairs) / 2)))
        return AbEstimate(float(np.median(samples)), float(samples[k]),
                          float(samples[self.pairs - 1 - k]), self.pairs, samples.tolist())


@dataclass
class _Confirmed:
    """A series' last confirmed change, for the revert rule: its commit, the level before
    it and the runs that measured the level after it."""

    commit: int
    base: float
    new_level: list[float]
    delta: float


def run_detector(world: World, cv: float, rule: SpeedRule, rng: np.random.Generator,
                 run_share: float = 0.5, drift_min_pct: float | None = 3.0,
                 drift_window: int = 120, trace: Trace | None = None,
                 budget: BudgetRule | None = None, reverts: bool = False,
                 ab: AbModel | None = None) -> tuple[list[Alarm], int]:
    """Every commit through the service's screen (one regular run per commit and series:
    reruns are evidence for their candidate only, as in the service); every candidate
    through rounds of interleaved reruns (drawn from the truth) and the service's decide,
    moving earlier as the service does; a shift judged real but below the minimum
    restarts the segment, as in the service; the drift rule (drift.find_drift) on every
    series without a candidate. With ``budget``: the service's rerun budget (a window of
    commits, a reserve for strong evidence; candidates beyond it stay unconfirmed). With
    ``reverts``: the service's revert rule (a step back within MAX_POINTS_SINCE points of a
    confirmed change). With ``ab``: per-commit A/B effects first, as the service
    (changes/detection/ab.py): on commits with a reference build the A/B screen decides
    every series (confirmation: one more A/B), the history screen only the others.
    Returns the alarms and the reruns spent."""
    n_series, n_commits = world.level.shape
    segments: list[list[SeriesPoint]] = [[] for _ in range(n_series)]
    states: list[dict[int, str]] = [{} for _ in range(n_series)]  # the change records
    flagged: list[set[int]] = [set() for _ in range(n_series)]
    last: list[_Confirmed | None] = [None] * n_series
    alarms: list[Alarm] = []
    reruns = 0
    spent: list[int] = []  # reruns per commit, for the budget's window

    def confirmed(s: int, commit: int, t: int, delta: float, test: str, moves: int,
                  base: float, new_level: list[float]) -> None:
        alarms.append(Alarm(s, commit, t, delta, test, moves))
        last[s] = _Confirmed(commit, base, new_level, delta)
        segments[s] = [p for p in segments[s] if p.commit >= commit]  # a new segment

    for t in range(n_commits):
        for s in range(n_series):
            median, samples = draw_run(world.level[s, t], cv, rng,
                                       world.outlier_size.get((s, t), 0.0), run_share)
            segments[s].append(SeriesPoint(t, [median], samples))
            del segments[s][:-SEGMENT_KEEP]
        covered: set[int] = set()
        ab_runs = 0
        if ab is not None and t > 0 and rng.random() < ab.share:
            covered = set(range(n_series))
            ab_runs += 1
            ests = [ab.draw(world.level[s, t] / world.level[s, t - 1], rng)
                    for s in range(n_series)]
            found = [c for c in screen_ab(ests, [rule.min_effect_pct] * n_series, rule)
                     if t not in flagged[c.index]]
            if found:
                ab_runs += 1  # one more A/B of the commit against its reference
                again = [ab.draw(world.level[c.index, t] / world.level[c.index, t - 1], rng)
                         for c in found]
                verdicts = decide_ab(again, [c.delta for c in found],
                                     [rule.min_effect_pct] * len(found), rule,
                                     candidates=len(found))
                for c, v in zip(found, verdicts, strict=True):
                    flagged[c.index].add(t)
                    states[c.index][t] = v.verdict
                    if v.confirmed:
                        prev = segments[c.index][-2].median if len(segments[c.index]) > 1 \
                            else segments[c.index][-1].median
                        confirmed(c.index, t, t, v.delta, "ab", 0, prev,
                                  [prev * (1 + v.delta)])
                    elif v.verdict == "below_minimum":
                        segments[c.index] = [p for p in segments[c.index] if p.commit >= t]
        in_family = [s for s in range(n_series) if s not in covered]
        family = [SeriesInput(s, segments[s], rule.min_effect_pct, flagged[s])
                  for s in in_family]
        candidates = screen(family, rule) if family else []
        spent_before = reruns
        pending = []
        for c in candidates:
            pts = family[c.series].points
            pending.append(Pending(in_family[c.series], pts, c.position,
                                   [p.median for p in pts[:c.position]],
                                   list(pts[c.position].runs), pts[c.position].samples,
                                   c.delta, c.test, c.family_size, q_value=c.q_value,
                                   p_value=c.p_value))
        screened = {item.series for item in pending}
        if reverts:
            pending += _reverts(segments, last, screened | covered, flagged, t, rule)
        while pending:  # rounds of reruns: the screened candidates, then moved ones
            by_commit: dict[int, list[Pending]] = defaultdict(list)
            for item in pending:
                by_commit[item.commit].append(item)
            pending = []
            # the strongest evidence first (the service's order when the budget is short)
            order = list(by_commit.items()) if budget is None else sorted(
                by_commit.items(), key=lambda g: (not any(_strong(item, rule) for item in g[1]),
                                                  min(item.p_value for item in g[1])))
            for commit, group in order:
                if budget is not None and not budget.grants(
                        sum(spent[max(0, len(spent) - budget.window + 1):])
                        + reruns - spent_before,
                        any(_strong(item, rule) for item in group)):
                    for item in group:
                        flagged[item.series].add(commit)
                        states[item.series][commit] = "unconfirmed"
                        if trace is not None:
                            trace.unconfirmed.append((item.series, commit))
                    continue
                reruns += 2 * rule.confirm_runs
                confs, parent_reruns, suspect_reruns = [], [], []
                for item in group:
                    parent = item.points[item.position - 1]
                    pr = [draw_run(world.level[item.series, parent.commit], cv, rng,
                                   run_share=run_share)[0] for _ in range(rule.confirm_runs)]
                    sr = [draw_run(world.level[item.series, commit], cv, rng,
                                   run_share=run_share)[0] for _ in range(rule.confirm_runs)]
                    if trace is not None:
                        trace.rounds[item.series] += 1
                    parent_reruns.append(pr)
                    suspect_reruns.append(sr)
                    confs.append(confirm_one(item.reference, item.suspect_runs, pr, sr,
                                             item.samples, rule))
                may_move = [item.moves < rule.max_moves and item.position >= 2
                            and states[item.series].get(item.points[item.position - 1].commit)
                            != "confirmed" for item in group]
                decide(confs, [item.screen_delta for item in group],
                       [rule.min_effect_pct] * len(group), group[0].family_size, rule,
                       candidates=len(candidates) or len(group), may_move=may_move)
                for item, conf, pr, sr in zip(group, confs, parent_reruns, suspect_reruns,
                                              strict=True):
                    s = item.series
                    flagged[s].add(commit)
                    states[s][commit] = "confirmed" if conf.confirmed else "rejected"
                    if conf.confirmed:
                        new_level = list(item.suspect_runs) + sr
                        confirmed(s, commit, t, conf.delta, item.test, item.moves,
                                  float(np.median(new_level)) / (1 + conf.delta), new_level)
                    elif conf.verdict == "rejected":
                        # the reruns contradicted the screened run: it leaves the series
                        segments[s] = [p for p in segments[s] if p.commit != commit]
                    elif conf.verdict == "below_minimum":
                        segments[s] = [p for p in segments[s] if p.commit >= commit]
                        if trace is not None:
                            trace.below_minimum.append((s, commit))
                    elif conf.verdict == "earlier":
                        parent = item.points[item.position - 1]
                        pending.append(Pending(
                            s, item.points, item.position - 1, item.reference[:-1],
                            list(parent.runs) + pr, parent.samples, item.screen_delta,
                            item.test, item.family_size, item.moves + 1,
                            q_value=None, p_value=conf.earlier_p))
        if drift_min_pct is not None:
            for s in range(n_series):
                if s in screened or t in flagged[s]:
                    continue
                found_drift = find_drift([p.median for p in segments[s]], drift_min_pct,
                                         drift_window)
                if found_drift is not None:
                    alarms.append(Alarm(s, t, t, found_drift.shift, "drift"))
                    flagged[s].add(t)
                    segments[s] = segments[s][-1:]
        spent.append(reruns - spent_before)
        if trace is not None:
            trace.candidates.append(len(candidates))
            trace.reruns.append(reruns - spent_before)
            trace.ab_runs.append(ab_runs)
    return alarms, reruns


def _strong(item: Pending, rule: SpeedRule) -> bool:
    q = item.q_value if item.q_value is not None else item.p_value
    return strong(q, item.screen_delta, rule.min_effect_pct, rule.fdr_q,
                  revert=item.test == "revert")


def _reverts(segments: list[list[SeriesPoint]], last: list[_Confirmed | None], skip: set[int],
             flagged: list[set[int]], t: int, rule: SpeedRule) -> list[Pending]:
    """The service's revert candidates (changes/detection/screening._revert_candidates):
    the newest point steps back towards the level before a recent confirmed change."""
    out = []
    for s, change in enumerate(last):
        if change is None or s in skip or t in flagged[s]:
            continue
        seg = [p for p in segments[s] if p.commit >= change.commit]
        if not 2 <= len(seg) <= revert_rule.MAX_POINTS_SINCE or seg[0].commit != change.commit \
                or seg[-1].commit != t:
            continue
        since = [p.median for p in seg[1:-1]]
        cur = seg[-1]
        hit = revert_rule.step_back(change.base, change.new_level + since, cur.runs,
                                    rule.min_effect_pct, rule)
        if hit is None:
            continue
        reference = change.new_level + since
        lt = level_test(np.log(np.asarray([reference])), np.log(np.asarray([cur.runs])),
                        within_se([cur.samples]), rule.scale_floor)
        p = float(lt.p[0])
        if not math.isfinite(p) or p > rule.screen_q:
            continue
        out.append(Pending(s, seg, len(seg) - 1, reference, list(cur.runs), cur.samples,
                           float(lt.delta[0]), "revert", 1, p_value=p))
    return out


def plain_rule(world: World, cv: float, rng: np.random.Generator,
               threshold: float = 0.05) -> list[Alarm]:
    n_series, n_commits = world.level.shape
    alarms = []
    for s in range(n_series):
        prev = None
        for t in range(n_commits):
            median, _ = draw_run(world.level[s, t], cv, rng, world.outlier_size.get((s, t), 0.0))
            if prev is not None and abs(median / prev - 1) >= threshold:
                alarms.append(Alarm(s, t, t, median / prev - 1, "plain"))
            prev = median
    return alarms


def score(world: World, alarms: list[Alarm]) -> dict[str, Any]:
    n_series, n_commits = world.level.shape
    by_series: dict[int, list[Alarm]] = defaultdict(list)
    for a in alarms:
        by_series[a.series].append(a)
    matched: set[int] = set()
    hits: dict[float, list[int]] = defaultdict(list)
    delays: list[int] = []
    big_delays: list[int] = []  # steps of 3 % and more: the goal
    exact = 0
    for s, c, size in world.steps:
        found = None
        for a in by_series[s]:
            if id(a) in matched or abs(a.position - c) > 1:
                continue
            if np.sign(a.delta) != np.sign(size):
                continue
            found = a
            break
        hits[abs(size)].append(1 if found else 0)
        if found:
            matched.add(id(found))
            delays.append(found.detected_at - c)
            if abs(size) >= 3:
                big_delays.append(found.detected_at - c)
            exact += found.position == c
    drifts = [a for a in alarms if a.test == "drift"]
    false = [a for a in alarms if id(a) not in matched
             and not (a.test == "drift" and a.series in world.drift)]
    drift_false = [a for a in false if a.series in world.drift]
    cells = n_series * n_commits
    return {
        "recall": {f"{k:g}": round(float(np.mean(v)), 3) for k, v in sorted(hits.items())},
        "steps": {f"{k:g}": len(v) for k, v in sorted(hits.items())},
        "false_per_1000": round(1000 * len(false) / cells, 3),
        "false_on_drift_series": len(drift_false),
        "delay_median": float(np.median(delays)) if delays else None,
        "delay_p95": float(np.percentile(delays, 95)) if delays else None,
        "delay_3pct_up_median": float(np.median(big_delays)) if big_delays else None,
        "delay_3pct_up_p95": float(np.percentile(big_delays, 95)) if big_delays else None,
        "within_1_commit_3pct_up": (round(float(np.mean(np.asarray(big_delays) <= 1)), 3)
                                    if big_delays else None),
        "located_exactly": round(exact / max(1, len(delays)), 3),
        "alarms": len(alarms),
        "moved_earlier": sum(a.moves > 0 for a in alarms),
        "drift_series": len(world.drift),
        "drifts_found": len({a.series for a in drifts if a.series in world.drift}),
        "drift_alarms_elsewhere": sum(a.series not in world.drift for a in drifts),
    }


def planted(kind: str, series: int = 42, commits: int = 300) -> tuple[np.ndarray, int]:
    """The planted deployment histories on series 0 (the rest flat): ``noise`` (nothing),
    ``min_step`` (-2 % at commit 60, the minimum effect), ``drift`` (-0.05 % per commit,
    10 % over 200 commits), ``spike`` (-30 % at commit 40, back at 41). Returns the truth
    and the commit of interest (the step; for the drift, where it reaches 3 %)."""
    level = np.ones((series, commits))
    if kind == "min_step":
        level[0, 60:] *= 0.98
        return level, 60
    if kind == "drift":
        level[0, :] = (1 - 0.0005) ** np.arange(commits)
        return level, int(np.argmax(level[0] <= 0.97))
    if kind == "spike":
        level[0, 40] *= 0.70
        return level, 40
    if kind != "noise":
        raise ValueError(f"unknown scenario {kind!r}")
    return level, 0


def planted_scenarios(seed: int = 1, series: int = 42, cv: float = 0.01,
            run_share: float = 0.5) -> dict[str, Any]:
    """The simulator's figures for the planted deployment scenarios (1 % noise, half of its
    variance between runs)."""
    rule = SpeedRule()
    out: dict[str, Any] = {"cv_pct": cv * 100, "run_share": run_share, "series": series}
    level, _ = planted("noise", series, 300)
    trace = Trace()
    alarms, reruns = run_detector(_world(level), cv, rule, np.random.default_rng(seed),
                                  run_share, trace=trace)
    out["noise"] = {"commits": 300, "reruns_per_commit": round(reruns / 300, 3),
                    "reruns_per_50_commits": [sum(trace.reruns[i:i + 50])
                                              for i in range(0, 300, 50)],
                    "candidates_per_50_commits": [sum(trace.candidates[i:i + 50])
                                                  for i in range(0, 300, 50)],
                    "alarms": len(alarms)}
    level, at = planted("min_step", series, 200)
    trace = Trace()
    alarms, reruns = run_detector(_world(level), cv, rule, np.random.default_rng(seed),
                                  run_share, trace=trace)
    out["min_step"] = {"step_commit": at, "rounds_on_step_series": trace.rounds[0],
                       "below_minimum": [c for s, c in trace.below_minimum if s == 0],
                       "alarms_on_step_series": [(a.position, round(a.delta * 100, 2), a.test)
                                                 for a in alarms if a.series == 0],
                       "reruns": reruns}
    level, at = planted("drift", series, 200)
    alarms, reruns = run_detector(_world(level), cv, rule, np.random.default_rng(seed),
                                  run_share)
    found = [a for a in alarms if a.series == 0 and a.test == "drift"]
    out["drift"] = {"reaches_3pct_at": at,
                    "reported_at": found[0].detected_at if found else None,
                    "reported_shift_pct": round(found[0].delta * 100, 2) if found else None,
                    "delay_after_3pct": found[0].detected_at - at if found else None,
                    "other_alarms": [(a.series, a.position, a.test) for a in alarms
                                     if a not in found]}
    return out


def _world(level: np.ndarray) -> World:
    return World(level, [])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cv", default="0.5,1,2,5,8", help="noise CVs in %%")
    ap.add_argument("--series", type=int, default=200)
    ap.add_argument("--commits", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-effect", type=float, default=2.0)
    ap.add_argument("--screen-q", type=float, default=SpeedRule.screen_q)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--planted", action="store_true",
                    help="the simulator on the planted deployment scenarios")
    ap.add_argument("--service", choices=("noise", "min_step", "drift", "spike"),
                    help="one planted scenario through the service "
                         "(bench/detection_quality_service.py)")
    ap.add_argument("--run-share", type=float, default=0.5,
                    help="share of the noise variance between runs")
    ap.add_argument("--confirm-runs", type=int, default=2)
    ap.add_argument("--rerun-budget", type=float, default=1.0)
    args = ap.parse_args(argv)
    if args.planted or args.service:
        cv = float(args.cv.split(",")[0]) / 100
        if args.service:
            from bench.detection_quality_service import run_service

            level, at = planted(args.service, 42, args.commits)
            result = run_service(level, cv, args.run_share, args.seed,
                                 detection_confirm_runs=args.confirm_runs,
                                 detection_rerun_budget=args.rerun_budget,
                                 detection_default_min_effect=args.min_effect)
            row = {"scenario": args.service, "cv_pct": cv * 100, "run_share": args.run_share,
                   "confirm_runs": args.confirm_runs, "rerun_budget": args.rerun_budget,
                   "planted_at": at, **result.summary(),
                   "changes": [c for c in result.changes if c["state"] != "rejected"][:50]}
        else:
            row = planted_scenarios(args.seed, 42, cv, args.run_share)
        print(json.dumps(row), flush=True)
        if args.out:
            args.out.write_text(json.dumps(row, indent=1))
        return 0
    rows = []
    for cv_pct in (float(v) for v in args.cv.split(",")):
        rng = np.random.default_rng(args.seed)
        world = make_world(args.series, args.commits, rng)
        rule = SpeedRule(min_effect_pct=args.min_effect, screen_q=args.screen_q)
        start, cpu = time.perf_counter(), time.process_time()
        alarms, reruns = run_detector(world, cv_pct / 100, rule, rng)
        took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
        ours = score(world, alarms)
        plain = score(world, plain_rule(world, cv_pct / 100, np.random.default_rng(args.seed)))
        quiet_commits = max(50, args.commits // 4)
        quiet = make_world(args.series, quiet_commits, rng, events=False)
        quiet_alarms, quiet_reruns = run_detector(quiet, cv_pct / 100, rule, rng)
        row = {"cv_pct": cv_pct, "screen_q": args.screen_q, "series": args.series,
               "commits": args.commits,
               "ours": ours, "plain_5pct": plain,
               "reruns_per_commit": round(reruns / args.commits, 3),
               "noise_only": {"commits": quiet_commits,
                              "reruns_per_commit": round(quiet_reruns / quiet_commits, 3),
                              "false_per_1000": round(1000 * len(quiet_alarms)
                                                      / (args.series * quiet_commits), 3)},
               "seconds": round(took, 1), "cpu_seconds": round(took_cpu, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
