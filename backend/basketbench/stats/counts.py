"""Instruction counts in detection: near-exact numbers, judged from one run.

Counted under valgrind (measure/rzbench/counting.py), the same code on the same corpus
gives the same instructions whatever the machine does beside it, so a count that moved by
more than a small threshold (Settings.detection_count_threshold, default 0.5 %) is a
change of the code, found from one run without reruns. Counts also say what a speed change
is: one whose counts did not move is probably the machine, one confirmed by a count change
is code. And a speed measured on a busy machine (the document's `load.busy`,
measure/rzbench/noise.py) is not tested at all.

Pure functions with two hooks for the detection service: `count_changes` for the count metrics
of a commit against its parent, `attribute_speed_change` for a speed candidate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

DEFAULT_THRESHOLD_PERCENT = 0.5
# Count metric -> the speed metric it explains (same operation).
COUNT_METRICS = {
    "compress_instructions_per_mb": "compress_mbps",
    "decompress_instructions_per_mb": "decompress_mbps",
}
Attribution = Literal["code", "probably the machine", "busy machine: not tested"]


@dataclass(frozen=True)
class CountChange:
    metric: str
    before: float
    after: float
    threshold_percent: float

    @property
    def percent(self) -> float:
        return (self.after - self.before) / self.before * 100 if self.before else float("inf")

    @property
    def changed(self) -> bool:
        """More than the threshold: a change of the code (no noise to test away)."""
        return abs(self.percent) > self.threshold_percent


def count_change(
    metric: str, before: float, after: float, threshold_percent: float = DEFAULT_THRESHOLD_PERCENT
) -> CountChange:
    if threshold_percent < 0:
        raise ValueError(f"count threshold must be >= 0 %, got {threshold_percent}")
    return CountChange(metric, float(before), float(after), threshold_percent)


def count_changes(
    before: Mapping[str, float | None],
    after: Mapping[str, float | None],
    threshold_percent: float = DEFAULT_THRESHOLD_PERCENT,
) -> list[CountChange]:
    """The count metrics present on both sides that moved beyond the threshold."""
    found = []
    for metric in COUNT_METRICS:
        a, b = before.get(metric), after.get(metric)
        if a is None or b is None:
            continue
        change = count_change(metric, a, b, threshold_percent)
        if change.changed:
            found.append(change)
    return found


@dataclass(frozen=True)
class SpeedVerdict:
    attribution: Attribution | None  # None: no counts on both sides to say anything
    reason: str


def attribute_speed_change(
    speed_metric: str,
    counts_before: Mapping[str, float | None],
    counts_after: Mapping[str, float | None],
    *,
    busy: bool = False,
    threshold_percent: float = DEFAULT_THRESHOLD_PERCENT,
) -> SpeedVerdict:
    """What a speed change of `speed_metric` between two commits is, judged by the counts of the
    same operation: code when the counts moved, probably the machine when they did not."""
    if busy:
        return SpeedVerdict("busy machine: not tested", "a side was measured on a busy machine")
    count_metric = next((c for c, s in COUNT_METRICS.items() if s == speed_metric), None)
    if count_metric is None:
        return SpeedVerdict(None, f"no count metric for {speed_metric}")
    a, b = counts_before.get(count_metric), counts_after.get(count_metric)
    if a is None or b is None:
        return SpeedVerdict(None, f"{count_metric} not counted on both sides")
    change = count_change(count_metric, a, b, threshold_percent)
    if change.changed:
        return SpeedVerdict("code", f"{count_metric} moved {change.percent:+.2f} %")
    return SpeedVerdict(
        "probably the machine",
        f"{count_metric} moved {change.percent:+.3f} % (within {threshold_percent:g} %)",
    )
