"""Detection benchmark: synthetic histories through the same rule the service runs.

    .venv/bin/python -m bench.changes_bench --out /tmp/changes.json

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
service (services/detection/confirm.py).
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

from basketbench.services.detection.engine import (  # noqa: E402
    SeriesInput,
    SeriesPoint,
    confirm_one,
    decide,
    screen,
)
from basketbench.services.detection.speed import SpeedRule  # noqa: E402

STEP_SIZES = (1.0, 2.0, 3.0, 5.0, 10.0)
SAMPLES = 9
SEGMENT_KEEP = 60
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
             outlier: float = 0.0) -> tuple[float, list[float]]:
    half = cv / math.sqrt(2)
    run_level = true * (1 + rng.normal(0, half)) * (1 + outlier)
    samples = run_level * (1 + rng.normal(0, half, SAMPLES))
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

    @property
    def commit(self) -> int:
        return self.points[self.position].commit


def run_detector(world: World, cv: float, rule: SpeedRule, rng: np.random.Generator
                 ) -> tuple[list[Alarm], int]:
    """Every commit through the service's screen; every candidate through rounds of
    interleaved reruns (drawn from the truth) and the service's decide, moving earlier
    as the service does. Returns the alarms and the reruns spent."""
    n_series, n_commits = world.level.shape
    segments: list[list[SeriesPoint]] = [[] for _ in range(n_series)]
    states: list[dict[int, str]] = [{} for _ in range(n_series)]  # the change records
    flagged: list[set[int]] = [set() for _ in range(n_series)]
    alarms: list[Alarm] = []
    reruns = 0
    for t in range(n_commits):
        for s in range(n_series):
            median, samples = draw_run(world.level[s, t], cv, rng,
                                       world.outlier_size.get((s, t), 0.0))
            segments[s].append(SeriesPoint(t, [median], samples))
            del segments[s][:-SEGMENT_KEEP]
        family = [SeriesInput(s, segments[s], rule.min_effect_pct, flagged[s])
                  for s in range(n_series)]
        candidates = screen(family, rule)
        pending = []
        for c in candidates:
            pts = family[c.series].points
            pending.append(Pending(c.series, pts, c.position,
                                   [p.median for p in pts[:c.position]],
                                   list(pts[c.position].runs), pts[c.position].samples,
                                   c.delta, c.test, c.family_size))
        while pending:  # rounds of reruns: the screened candidates, then moved ones
            by_commit: dict[int, list[Pending]] = defaultdict(list)
            for item in pending:
                by_commit[item.commit].append(item)
            pending = []
            for commit, group in by_commit.items():
                reruns += 2 * rule.confirm_runs
                confs, parent_reruns = [], []
                for item in group:
                    parent = item.points[item.position - 1]
                    pr = [draw_run(world.level[item.series, parent.commit], cv, rng)[0]
                          for _ in range(rule.confirm_runs)]
                    sr = [draw_run(world.level[item.series, commit], cv, rng)[0]
                          for _ in range(rule.confirm_runs)]
                    parent_reruns.append(pr)
                    confs.append(confirm_one(item.reference, item.suspect_runs, pr, sr,
                                             item.samples, rule))
                may_move = [item.moves < rule.max_moves and item.position >= 2
                            and states[item.series].get(item.points[item.position - 1].commit)
                            != "confirmed" for item in group]
                decide(confs, [item.screen_delta for item in group],
                       [rule.min_effect_pct] * len(group), group[0].family_size, rule,
                       candidates=len(candidates), may_move=may_move)
                for item, conf, pr in zip(group, confs, parent_reruns, strict=True):
                    s = item.series
                    flagged[s].add(commit)
                    states[s][commit] = "confirmed" if conf.confirmed else "rejected"
                    if conf.confirmed:
                        alarms.append(Alarm(s, commit, t, conf.delta, item.test, item.moves))
                        # a new segment starts at the change
                        segments[s] = [p for p in segments[s] if p.commit >= commit]
                    elif conf.verdict == "earlier":
                        parent = item.points[item.position - 1]
                        pending.append(Pending(
                            s, item.points, item.position - 1, item.reference[:-1],
                            list(parent.runs) + pr, parent.samples, item.screen_delta,
                            item.test, item.family_size, item.moves + 1))
    return alarms, reruns


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
    false = [a for a in alarms if id(a) not in matched]
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
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cv", default="0.5,1,2,5,8", help="noise CVs in %%")
    ap.add_argument("--series", type=int, default=200)
    ap.add_argument("--commits", type=int, default=400)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-effect", type=float, default=2.0)
    ap.add_argument("--screen-q", type=float, default=SpeedRule.screen_q)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
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
