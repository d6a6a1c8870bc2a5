"""Speeds left out of detection, said where people look (issue 32): a run whose
documents were measured on a busy machine has its speeds left out of the screen
(settings.detection_skip_busy_runs); sizes and instruction counts are still checked.
When that happened, /health (per tag), the changes page (from /health) and the runs
page (per run) say so and why, instead of detection going quiet without a word."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from pydantic import BaseModel, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Machine, ResultDocument

RECENT_DOCUMENTS = 200  # the newest documents over every machine: one bounded read
SETTING = "detection_skip_busy_runs"


class SpeedExclusion(BaseModel):
    tag: str
    excluded_documents: int = Field(description="of the tag's documents among the newest "
                                    f"{RECENT_DOCUMENTS}, those whose speeds detection "
                                    "left out")
    recent_documents: int
    reasons: list[str] = Field(description="why, as the documents' load said (most "
                               "frequent first, at most 3)")
    note: str = Field(description="one line saying all of it")


def _reasons(load: dict[str, Any] | None) -> list[str]:
    out = (load or {}).get("busy_reasons") or []
    return [str(r) for r in out] if isinstance(out, list) else []


def run_note(load: dict[str, Any] | None) -> str:
    reasons = _reasons(load)
    return ("speeds left out of change detection: measured on a busy machine"
            + (f" ({'; '.join(reasons)})" if reasons else "")
            + f"; sizes and instruction counts were checked ({SETTING})")


def by_tag(session: Session, settings: Settings) -> list[SpeedExclusion]:
    """Per tag with such documents among the newest RECENT_DOCUMENTS: how many, and why."""
    if not settings.detection_skip_busy_runs:
        return []
    rows = session.execute(
        select(Machine.tag, ResultDocument.busy, ResultDocument.load)
        .join(Machine, Machine.id == ResultDocument.machine_id)
        .order_by(ResultDocument.id.desc()).limit(RECENT_DOCUMENTS)).all()
    counts: Counter[str] = Counter()
    busy: Counter[str] = Counter()
    reasons: dict[str, Counter[str]] = defaultdict(Counter)
    for tag, is_busy, load in rows:
        counts[tag] += 1
        if is_busy:
            busy[tag] += 1
            reasons[tag].update(_reasons(load)[:2])
    out = []
    for tag in sorted(busy):
        top = [r for r, _ in reasons[tag].most_common(3)]
        out.append(SpeedExclusion(
            tag=tag, excluded_documents=busy[tag], recent_documents=counts[tag], reasons=top,
            note=(f"tag {tag}: speeds of {busy[tag]} of its {counts[tag]} newest documents "
                  "left out of change detection, measured on a busy machine"
                  + (f" (e.g. {top[0]})" if top else "")
                  + f"; sizes and instruction counts were checked ({SETTING})")))
    return out


def of_runs(session: Session, settings: Settings, run_ids: list[int]) -> dict[int, str]:
    """Per run among ``run_ids`` with a document whose speeds detection left out: why."""
    if not settings.detection_skip_busy_runs or not run_ids:
        return {}
    rows = session.execute(select(ResultDocument.run_id, ResultDocument.load).where(
        ResultDocument.run_id.in_(run_ids), ResultDocument.busy.is_(True))
        .order_by(ResultDocument.id))
    return {int(run_id): run_note(load) for run_id, load in rows if run_id is not None}
