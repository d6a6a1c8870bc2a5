"""What every part of detection shares: the pass's outcome, the machine lock, the
rule from the settings. Depends on nothing else in the package."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Run
from basketbench.stats.speed import SpeedRule

# Runs that are evidence for one decision (a candidate's reruns, a bisection step), never
# points of the history a screen reads.
RERUN_TRIGGERS = ("confirm", "bisect")


def rule_for(settings: Settings) -> SpeedRule:
    return SpeedRule(min_effect_pct=settings.detection_default_min_effect,
                     fdr_q=settings.detection_fdr, confirm_runs=settings.detection_confirm_runs)


def direction(metric: str, delta_pct: float) -> str:
    # more bytes or more instructions per MB is worse; less ratio or speed is worse
    worse = delta_pct > 0 if metric == "compressed_bytes" or "instructions" in metric \
        else delta_pct < 0
    return "regression" if worse else "improvement"


@dataclass
class Outcome:
    """What one detection pass did, for the caller (notifications, bisection, tests)."""

    confirmed: list[int] = field(default_factory=list)  # change ids raised now
    candidates: list[int] = field(default_factory=list)  # change ids sent to confirmation
    rejected: list[int] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)  # confirmation / bisection runs to enqueue
    bisect: list[int] = field(default_factory=list)  # lead change ids needing a bisection


# First key of the detection advisory lock ("bb" + 2; commits.py holds "bb" + 1).
DETECTION_LOCK = 0x62620002


def lock_machine(session: Session, machine_id: int) -> None:
    """Serialise detection passes of one machine until this transaction ends: two
    documents of one commit arrive together, and each pass must see the changes the
    other recorded (else both insert the same change and one pass is lost)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k, :m)"),
                        {"k": DETECTION_LOCK, "m": machine_id})
