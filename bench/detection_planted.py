"""Issue 32's planted histories through the simulator (bench/detection_quality.py's
``run_detector``, the service's rules): 1 % noise, steps of 2 % and 3 % in the first 20
commits and mid-history, steps 3 commits apart (on one series and on two), reverts 3 and
5 commits after their change, two slow drifts; with and without per-commit A/B effects.

    .venv/bin/python -m bench.detection_planted --seeds 5 --out /tmp/planted.json

Reported per mode: recall per group of planted events (an alarm on the event's series,
same sign, at its commit or next to it; ``exact``: at its commit), false changes per 1 000
commits (alarms matching no event, on the 42 series of a commit; alarms on the drifting
series count as the drift's), reruns and A/B runs per commit."""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

from basketbench.stats.budget import BudgetRule
from basketbench.stats.speed import SpeedRule

from bench.detection_quality import AbModel, Alarm, Trace, World, run_detector

SERIES = 42


@dataclass(frozen=True)
class Event:
    group: str
    series: int
    commit: int
    size_pct: float


def planted(commits: int = 300) -> tuple[np.ndarray, list[Event], set[int]]:
    """The truth (series x commits), the planted step events and the drifting series."""
    events = [
        Event("early 3 %", 0, 8, -3.0), Event("early 3 %", 1, 14, 3.0),
        Event("early 2 %", 2, 11, -2.0), Event("early 2 %", 3, 17, 2.0),
        # steps 3 commits apart: twice on one series, and on two series
        Event("3 apart 3 %", 4, 100, -3.0), Event("3 apart 3 %", 4, 103, -3.0),
        Event("3 apart 3 %", 5, 103, 3.0),
        Event("3 apart 2 %", 6, 150, -2.0), Event("3 apart 2 %", 7, 153, 2.0),
        Event("mid 3 %", 8, 60, -3.0), Event("mid 3 %", 9, 200, 3.0),
        Event("mid 2 %", 10, 230, -2.0), Event("mid 2 %", 11, 250, 2.0),
        # a change and its revert 3 commits later, 5 commits later
        Event("reverted 3 %", 12, 80, -3.0), Event("revert 3 later", 12, 83, 3.0),
        Event("reverted 3 %", 13, 120, 3.0), Event("revert 3 later", 13, 123, -3.0),
        Event("reverted 3 %", 14, 170, -3.0), Event("revert 5 later", 14, 175, 3.0),
        Event("reverted 3 %", 15, 270, 3.0), Event("revert 5 later", 15, 275, -3.0),
    ]
    level = np.ones((SERIES, commits))
    for e in events:
        if e.commit < commits:
            level[e.series, e.commit:] *= 1 + e.size_pct / 100
    # reverts go back exactly to the level before their change
    for s in (12, 13, 14, 15):
        first = next(e for e in events if e.series == s and e.group == "reverted 3 %")
        back = next(e for e in events if e.series == s and e.group != "reverted 3 %")
        if back.commit < commits:
            level[s, back.commit:] = level[s, first.commit - 1]
    drifts = {16, 17}
    level[16, :] *= (1 - 0.0005) ** np.arange(commits)  # 3 % at commit ~61
    level[17, 100:] *= (1 + 0.0004) ** np.arange(commits - 100)  # 3 % at commit ~174
    return level, [e for e in events if e.commit < commits], drifts


def score(events: list[Event], drifts: set[int], alarms: list[Alarm], commits: int
          ) -> dict[str, Any]:
    used: set[int] = set()
    hits: dict[str, list[int]] = defaultdict(list)
    exact: dict[str, list[int]] = defaultdict(list)
    for e in events:
        found = next((a for a in alarms if id(a) not in used and a.series == e.series
                      and abs(a.position - e.commit) <= 1 and a.test != "drift"
                      and np.sign(a.delta) == np.sign(e.size_pct)), None)
        hits[e.group].append(found is not None)
        if found is not None:
            used.add(id(found))
            exact[e.group].append(found.position == e.commit)
    drift_found = [any(a.series == s for a in alarms) for s in sorted(drifts)]
    false = [a for a in alarms if id(a) not in used and a.series not in drifts]
    return {"found": {g: int(sum(v)) for g, v in hits.items()},
            "planted": {g: len(v) for g, v in hits.items()},
            "exact": {g: int(sum(v)) for g, v in exact.items()},
            "drifts_found": int(sum(drift_found)), "drifts": len(drifts),
            "false": len(false), "false_tests": sorted({a.test for a in false})}


MODES: dict[str, dict[str, Any]] = {
    # the history screen alone (no reference builds), with the service's budget and reverts
    "history": {},
    # per-commit A/B effects on every commit (the parent's build always cached)
    "ab": {"ab": AbModel(share=1.0)},
    # A/B on 80 % of the commits, the history screen for the others
    "ab 80 %": {"ab": AbModel(share=0.8)},
    # the history screen without a rerun budget: what the budget costs
    "history without budget": {"budget": None},
    # the e-divisive choices, history screen alone
    "history e-divisive off": {"rule": {"edivisive": "off"}},
    "history e-divisive 199 permutations": {"rule": {"edivisive": "fixed"}},
}


def run_mode(name: str, seeds: int, commits: int, cv: float) -> dict[str, Any]:
    spec = MODES[name]
    rule = replace(SpeedRule(), **spec.get("rule", {}))
    level, events, drifts = planted(commits)
    total: dict[str, Any] = {"found": defaultdict(int), "planted": defaultdict(int),
                             "exact": defaultdict(int)}
    false = reruns = ab_runs = drift_found = drift_total = 0
    false_tests: set[str] = set()
    start, cpu = time.perf_counter(), time.process_time()
    for seed in range(1, seeds + 1):
        trace = Trace()
        ab = spec.get("ab")
        if ab is not None:
            ab = replace(ab, noise=cv)
        alarms, spent = run_detector(World(level.copy(), []), cv, rule,
                                     np.random.default_rng(seed), 0.5, trace=trace,
                                     budget=spec.get("budget", BudgetRule()), reverts=True,
                                     ab=ab)
        got = score(events, drifts, alarms, commits)
        for key in ("found", "planted", "exact"):
            for g, v in got[key].items():
                total[key][g] += v
        false += got["false"]
        false_tests |= set(got["false_tests"])
        reruns += spent
        ab_runs += sum(trace.ab_runs)
        drift_found += got["drifts_found"]
        drift_total += got["drifts"]
    n = seeds * commits
    return {"mode": name, "seeds": seeds, "commits": commits, "series": SERIES,
            "cv_pct": cv * 100,
            "recall": {g: f"{total['found'][g]}/{total['planted'][g]}"
                       for g in total["planted"]},
            "exact": {g: f"{total['exact'][g]}/{total['found'][g]}"
                      for g in total["planted"] if total["found"][g]},
            "drifts": f"{drift_found}/{drift_total}",
            "false_per_1000_commits": round(1000 * false / n, 2),
            "false_tests": sorted(false_tests),
            "reruns_per_commit": round(reruns / n, 3),
            "ab_runs_per_commit": round(ab_runs / n, 3),
            "seconds": round(time.perf_counter() - start, 1),
            "cpu_seconds": round(time.process_time() - cpu, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--commits", type=int, default=300)
    ap.add_argument("--cv", type=float, default=1.0, help="noise CV in %%")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated: " + ", ".join(MODES))
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for name in args.modes.split(","):
        row = run_mode(name, args.seeds, args.commits, args.cv / 100)
        row["loadavg_end"] = os.getloadavg()
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
