"""The orchestrator of change detection: what happens after an ingest, after a rerun
ended without results, and after a pass's transaction. It dispatches to the parts
(screening, confirm, bisect, pending, rescreen), which never import it.

Imports go one way: common <- confirm, bisect <- screening <- service <- queue."""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from basketbench.changes import notify
from basketbench.changes.detection import ab, bisect, confirm
from basketbench.changes.detection.common import (
    DETECTION_LOCK,
    Outcome,
    direction,
    lock_machine,
    rule_for,
)
from basketbench.changes.detection.rescreen import rescreen_newer
from basketbench.changes.detection.screening import detect_ab, detect_commit
from basketbench.core.config import Settings
from basketbench.models import ResultDocument, Run
from basketbench.models.ab import AbRun
from basketbench.runs import dispatch

log = logging.getLogger(__name__)

__all__ = ["DETECTION_LOCK", "Outcome", "after_ab_run", "after_ingest", "detect_commit",
           "run_after_ab",
           "direction", "follow_up", "lock_machine", "on_run_final", "rule_for", "run_after_final"]


def after_ingest(session: Session, settings: Settings, document_id: int) -> Outcome:
    """Entry point after a document is stored (committed)."""
    doc = session.get(ResultDocument, document_id)
    if doc is None:
        return Outcome()
    lock_machine(session, doc.machine_id)
    run = session.get(Run, doc.run_id) if doc.run_id is not None else None
    if run is not None and run.trigger == "confirm":
        return confirm.on_run_progress(session, settings, run)
    if run is not None and run.trigger == "bisect":
        return bisect.on_run_progress(session, settings, run)
    return detect_commit(session, settings, doc.commit_id, doc.machine_id,
                         run.id if run else None, run.suite if run else None)


def after_ab_run(session: Session, settings: Settings, ab_run_id: int) -> Outcome:
    """Entry point after an A/B run (ab_runs + ab_effects) is stored and committed: it
    decides the changes waiting for a confirming A/B of its commit and reference, and
    screens the commit by the series no earlier A/B run of it measured
    (changes/detection/ab.py). The caller runs ``follow_up`` after."""
    run = session.get(AbRun, ab_run_id)
    if run is None:
        return Outcome()
    lock_machine(session, run.machine_id)
    if run.error is not None or run.reference_kind not in ab.REFERENCE_KINDS:
        return Outcome()
    out = Outcome()
    effects = ab.estimates(session, run.id)
    group = ab.awaiting(session, run, effects)
    if group:
        out = ab.evaluate(session, settings, group, run, effects)
        notify.enqueue(session, settings, out.confirmed)  # the outbox: with the verdicts
        session.commit()
        lock_machine(session, run.machine_id)  # the commit ended the lock's transaction
    out.candidates.extend(detect_ab(session, settings, run).candidates)
    return out


def on_run_final(session: Session, settings: Settings, run_id: int) -> Outcome:
    """A confirmation or bisection run ended without results (failed, cancelled)."""
    run = session.get(Run, run_id)
    if run is None or run.status not in ("failed", "cancelled"):
        return Outcome()
    if run.machine_id is not None:
        lock_machine(session, run.machine_id)
    if run.trigger == "confirm":
        return confirm.on_run_progress(session, settings, run)
    if run.trigger == "bisect":
        return bisect.on_run_progress(session, settings, run)
    return Outcome()


def follow_up(session: Session, settings: Settings, out: Outcome) -> None:
    """After the transaction: start bisections, and wake this process's dispatchers for
    the runs and notifications the transaction wrote to their outboxes."""
    if out.confirmed:
        bisect.start_for(session, settings, out.confirmed)
    dispatch.wake()
    notify.wake()


def run_after_ab(sessionmaker: Any, settings: Settings, ab_run_id: int) -> None:
    """Background entry after an A/B upload (POST /ab-runs): never raises."""
    try:
        with sessionmaker() as session:
            out = after_ab_run(session, settings, ab_run_id)
            follow_up(session, settings, out)
    except Exception:
        log.exception("change detection after A/B run %s failed", ab_run_id)


def run_after_final(sessionmaker: Any, settings: Settings, run_id: int) -> None:
    """Background entry when a confirmation or bisection run failed: never raises."""
    try:
        with sessionmaker() as session:
            out = on_run_final(session, settings, run_id)
            follow_up(session, settings, out)
            if out.confirmed or out.rejected:  # the sweeper screens them
                rescreen_newer(session, out.confirmed + out.rejected)
    except Exception:
        log.exception("change detection after run %s failed", run_id)
