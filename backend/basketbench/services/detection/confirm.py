"""Confirmation reruns: before a speed change is raised, its parent and the suspect
commit are measured again on the same machine, interleaved (parent, suspect, parent,
suspect, ...: a drift of the machine hits both sides alike), and the test is repeated
with them (engine.confirm_one / engine.decide)."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, Run
from basketbench.models.base import utcnow
from basketbench.services.detection import history
from basketbench.services.detection.engine import confirm_one, decide
from basketbench.services.detection.service import Outcome, rule_for

DONE = ("succeeded", "failed", "cancelled")


def start(session: Session, settings: Settings, group: list[Change], suspect_id: int,
          parent_id: int, machine: Machine, suite: str | None) -> list[Run]:
    k = settings.detection_confirm_runs
    if k <= 0:
        return []
    runs = []
    for _ in range(k):
        for commit_id in (parent_id, suspect_id):
            runs.append(Run(commit_id=commit_id, tag=machine.tag,
                            suite=suite or settings.default_suite, trigger="confirm",
                            status="queued"))
    session.add_all(runs)
    session.flush()
    info = {"run_ids": [r.id for r in runs],
            "parent_run_ids": [r.id for r in runs if r.commit_id == parent_id],
            "suspect_run_ids": [r.id for r in runs if r.commit_id == suspect_id],
            "interleaved": [session.get(Commit, r.commit_id).sha[:12]  # type: ignore[union-attr]
                            for r in runs]}
    for ch in group:
        ch.confirmation = dict(info)
    return runs


def pending_for_run(session: Session, run: Run) -> list[Change]:
    return [ch for ch in session.scalars(select(Change).where(Change.state == "confirming"))
            if run.id in (ch.confirmation or {}).get("run_ids", [])]


def on_run_progress(session: Session, settings: Settings, run: Run) -> Outcome:
    """A confirmation run uploaded or ended: evaluate its group once all its runs are in."""
    out = Outcome()
    changes = pending_for_run(session, run)
    groups: dict[tuple[int, int], list[Change]] = {}
    for ch in changes:
        groups.setdefault((ch.commit_id, ch.machine_id), []).append(ch)
    for group in groups.values():
        ids = group[0].confirmation.get("run_ids", [])
        runs = list(session.scalars(select(Run).where(Run.id.in_(ids))))
        if all(r.result_count > 0 or r.status in DONE for r in runs):
            res = evaluate(session, settings, group)
            out.confirmed += res.confirmed
            out.rejected += res.rejected
    session.commit()
    return out


def evaluate(session: Session, settings: Settings, group: list[Change]) -> Outcome:
    out = Outcome()
    rule = rule_for(settings)
    info = group[0].confirmation or {}
    machine_id = group[0].machine_id
    suspect_id, parent_id = group[0].commit_id, group[0].parent_commit_id
    series_of = history.change_series(session, group)
    keys = set(series_of.values())
    # Only reruns measured on this machine version count (the tag's queue may have others).
    parents = history.load_series(session, machine_id, [(parent_id or 0, 0)], keys,
                                  set(info.get("parent_run_ids", [])))
    suspects = history.load_series(session, machine_id, [(suspect_id, 1)], keys,
                                   set(info.get("suspect_run_ids", [])))
    confs, usable = [], []
    for ch in group:
        key = series_of[ch.id]
        pr = [r for v in parents.get(key, []) for r in v.runs.get(ch.metric, [])]
        sr = [r for v in suspects.get(key, []) for r in v.runs.get(ch.metric, [])]
        ev = ch.evidence or {}
        if rule.confirm_runs > 0 and (not pr or not sr):
            ch.state = "rejected"
            ch.confirmation = {**info, "result": {
                "reason": "the confirmation runs brought no results for this series on this "
                          "machine (failed, or measured elsewhere)"}}
            out.rejected.append(ch.id)
            continue
        confs.append(confirm_one(ev.get("reference", []), ev.get("suspect_runs", []), pr, sr,
                                 ev.get("suspect_samples", []), rule))
        usable.append((ch, pr, sr))
    if confs:
        family = max(int((ch.evidence or {}).get("family_size", 1)) for ch, _, _ in usable)
        if rule.confirm_runs <= 0:  # no reruns: the screen's agreement is all there is
            for c, (ch, _, _) in zip(confs, usable, strict=True):
                c.rerun_delta = (ch.evidence or {}).get("screen_delta", c.delta)
        decide(confs, [(ch.evidence or {}).get("screen_delta", ch.delta_pct / 100)
                       for ch, _, _ in usable],
               [ch.min_effect_pct or rule.min_effect_pct for ch, _, _ in usable], family, rule)
    now = utcnow()
    for c, (ch, pr, sr) in zip(confs, usable, strict=True):
        ch.confirmation = {**info, "result": {
            "delta_pct": c.delta * 100, "p_value": c.p_value, "q_value": c.q_value,
            "rerun_delta_pct": c.rerun_delta * 100, "parent_reruns": pr, "suspect_reruns": sr,
            "confirmed": c.confirmed}}
        if c.confirmed:
            ch.state, ch.confirmed_at = "confirmed", now
            ch.delta_pct, ch.p_value, ch.q_value = c.delta * 100, c.p_value, c.q_value
            out.confirmed.append(ch.id)
        else:
            ch.state = "rejected"
            out.rejected.append(ch.id)
    session.flush()
    return out


def on_run_final(session: Session, settings: Settings, run_id: int) -> Outcome:
    """A confirmation or bisection run ended without results (failed, cancelled)."""
    run = session.get(Run, run_id)
    if run is None or run.status not in ("failed", "cancelled"):
        return Outcome()
    if run.trigger == "confirm":
        return on_run_progress(session, settings, run)
    if run.trigger == "bisect":
        from basketbench.services.detection import bisect

        return bisect.on_run_progress(session, settings, run)
    return Outcome()
