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
"5 % versus the previous commit".
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
    for s in rng.choice(series, size=max(1, series // 10), replace=False):
        world.drift.add(int(s))
        level[s, :] *= 1 + 0.03 * np.arange(commits) / 200
    for s in range(series):
        for c in np.nonzero(rng.random(commits) < OUTLIER_RATE)[0]:
            size = float(rng.uniform(0.05, 0.15)) * float(rng.choice([-1, 1]))
            world.outliers.add((s, int(c)))
            world.outlier_size[(s, int(c))] = size
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


def run_detector(world: World, cv: float, rule: SpeedRule, rng: np.random.Generator
                 ) -> tuple[list[Alarm], int]:
    n_series, n_commits = world.level.shape
    segments: list[list[SeriesPoint]] = [[] for _ in range(n_series)]
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
        by_commit: dict[int, list[Any]] = defaultdict(list)
        for c in candidates:
            by_commit[family[c.series].points[c.position].commit].append(c)
        for commit, group in by_commit.items():
            reruns += 2 * rule.confirm_runs
            confs = []
            for c in group:
                pts = family[c.series].points
                parent, suspect = pts[c.position - 1], pts[c.position]
                pr = [draw_run(world.level[c.series, parent.commit], cv, rng)[0]
                      for _ in range(rule.confirm_runs)]
                sr = [draw_run(world.level[c.series, suspect.commit], cv, rng)[0]
                      for _ in range(rule.confirm_runs)]
                reference = [p.median for p in pts[:c.position]]
                confs.append(confirm_one(reference, suspect.runs, pr, sr, suspect.samples, rule))
            decide(confs, [c.delta for c in group], [rule.min_effect_pct] * len(group),
                   group[0].family_size, rule)
            for c, conf in zip(group, confs, strict=True):
                flagged[c.series].add(commit)
                if conf.confirmed:
                    alarms.append(Alarm(c.series, commit, t, conf.delta, c.test))
                    # a new segment starts at the change
                    seg = segments[c.series]
                    segments[c.series] = [p for p in seg if p.commit >= commit]
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
        "located_exactly": round(exact / max(1, len(delays)), 3),
        "alarms": len(alarms),
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
        start = time.perf_counter()
        alarms, reruns = run_detector(world, cv_pct / 100, rule, rng)
        took = time.perf_counter() - start
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
               "seconds": round(took, 1)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
