"""Was a run disturbed? Judged from interference measured by the run itself (issue 32), not from
the load average.

rzbench measures, per timed repetition, its thread's CPU time against wall time, its involuntary
context switches and the machine's CPU steal, and counts a repetition as disturbed beyond the
limits of docs/perf/ab.md; it reports a summary with `disturbed_fraction` (the `interference`
object of `rzbench bench` and `rzbench ab` documents; an A/B document carries its pairs'
`disturbed_fraction` at its top). `bench` times wall clock, so a sample is disturbed once its
thread lost the CPU for a tenth of it: a dedicated worker running jobs back to back (load ~1
on two cores) keeps its core and is not, a machine shared with busy neighbours is. `ab` times
the thread's CPU clock, so neighbours that merely share the cores do not disturb it. A run is
disturbed when most of its repetitions were.

The load-average rule of noise.py (`busy`) stays for documents without such a record.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# A run whose repetitions were disturbed more often than this is itself disturbed: its median
# rests on a minority of the pairs it meant to measure.
MAX_DISTURBED_FRACTION = 0.5


@dataclass(frozen=True)
class InterferenceVerdict:
    disturbed: bool  # leave the run's speeds out of detection and verdicts
    disturbed_fraction: float | None  # None: the run carries no interference record
    reasons: list[str] = field(default_factory=list)

    @property
    def judged(self) -> bool:
        """False for documents measured before interference was recorded (use `busy`)."""
        return self.disturbed_fraction is not None


def judge(record: Mapping[str, Any] | None,
          max_fraction: float = MAX_DISTURBED_FRACTION) -> InterferenceVerdict:
    """Judge a run from its interference record: rzbench's `interference` summary or an A/B
    document (both hold `disturbed_fraction`). None or a record without it is not judged."""
    if not record or record.get("disturbed_fraction") is None:
        return InterferenceVerdict(False, None, ["no interference record (older document)"])
    fraction = float(record["disturbed_fraction"])
    if fraction > max_fraction:
        return InterferenceVerdict(True, fraction, [
            f"{fraction:.0%} of the repetitions were disturbed (> {max_fraction:.0%}): the "
            "measuring thread lacked the CPU, was switched out or the machine had steal"])
    return InterferenceVerdict(False, fraction, [])


def judge_document(doc: Mapping[str, Any]) -> InterferenceVerdict:
    """Judge a harness result document (or an A/B document): from its own interference record
    when it has one (`interference` of `rzbench bench`, `disturbed_fraction` of an A/B
    document), else by the load-average rule of older documents (`load.busy`, noise.py)."""
    if doc.get("disturbed_fraction") is not None:
        return judge(doc)
    if doc.get("interference"):
        return judge(doc["interference"])
    load = doc.get("load") or {}
    if load.get("busy"):
        return InterferenceVerdict(True, None, list(load.get("busy_reasons") or ["busy"]))
    return InterferenceVerdict(False, None, ["no interference record (older document)"])
