"""Confirmation reruns: before a speed change is raised, its parent and the suspect
commit are measured again on the same machine, interleaved (parent, suspect, parent,
suspect, ...: a drift of the machine hits both sides alike), and the test is repeated
with them (engine.confirm_one / engine.decide).

When the reruns show the parent already at the suspect's new level (a step whose first
run fell inside the noise, so that the screen found it one commit late), the candidate
moves to the parent: its record is rejected with the reason, and a record at the parent
(a new one, or the parent's own rejected one, reopened) gets reruns of the parent and its
own parent. At most ``SpeedRule.max_moves`` commits back."""

from __future__ import annotations

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.changes import notify
from basketbench.changes.detection import budget, history, revert
from basketbench.changes.detection.common import Outcome, direction, rule_for
from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, Run
from basketbench.models.base import utcnow
from basketbench.runs import dispatch
from basketbench.stats.counts import DEFAULT_THRESHOLD_PERCENT, attribute_speed_change
from basketbench.stats.engine import Confirmation, confirm_one, decide
from basketbench.stats.speed import SpeedRule, bootstrap_shift_ci

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
    dispatch.add_dispatches(session, runs)  # the run outbox: sent whatever happens next
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
            out.candidates += res.candidates
            out.runs += res.runs
    notify.enqueue(session, settings, out.confirmed)  # the outbox: with the verdicts
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
        evs = [ch.evidence or {} for ch, _, _ in usable]
        family = max(int(ev.get("family_size", 1)) for ev in evs)
        screened = max(int(ev.get("screen_candidates", 0)) for ev in evs)
        if rule.confirm_runs <= 0:  # no reruns: the screen's agreement is all there is
            for c, ev in zip(confs, evs, strict=True):
                c.rerun_delta = ev.get("screen_delta", c.delta)
        decide(confs, [ev.get("screen_delta", ch.delta_pct / 100)
                       for ev, (ch, _, _) in zip(evs, usable, strict=True)],
               [ch.min_effect_pct or rule.min_effect_pct for ch, _, _ in usable], family, rule,
               candidates=screened,
               may_move=[int(ev.get("moves", 0)) < rule.max_moves
                         and len(ev.get("reference_commits", [])) >= 3 for ev in evs])
    now = utcnow()
    moving: list[tuple[Change, Confirmation]] = []
    for c, (ch, pr, sr) in zip(confs, usable, strict=True):
        ch.confirmation = {**info, "result": {
            "delta_pct": c.delta * 100, "p_value": c.p_value, "q_value": c.q_value,
            "rerun_delta_pct": c.rerun_delta * 100, "parent_reruns": pr, "suspect_reruns": sr,
            "parent_share": _finite(c.parent_share),
            "earlier_delta_pct": _finite(c.earlier_delta * 100),
            "earlier_p_value": _finite(c.earlier_p), "verdict": c.verdict,
            "interval_pct": [_finite(c.interval[0] * 100), _finite(c.interval[1] * 100)],
            "confirmed": c.confirmed}}
        if c.confirmed:
            ch.state, ch.confirmed_at = "confirmed", now
            # The listed effect AND its interval from the confirming evidence (every run
            # of the suspect against the reference and the parent's reruns): the screen's
            # interval, of one run, stays in the evidence (issue 32: 7 of 37 confirmed
            # changes showed an effect outside their own interval).
            ch.evidence = {**(ch.evidence or {}), "screen_ci_pct": [ch.ci_low_pct,
                                                                    ch.ci_high_pct]}
            ch.delta_pct, ch.p_value, ch.q_value = c.delta * 100, c.p_value, c.q_value
            ch.ci_low_pct = _finite(c.interval[0] * 100)
            ch.ci_high_pct = _finite(c.interval[1] * 100)
            # head and base as the effect saw them (medians of log runs): base x (1 +
            # delta) = head exactly, so the listed numbers agree with each other.
            ch.head_value = float(np.exp(np.median(np.log(
                [*(ch.evidence or {}).get("suspect_runs", []), *sr]))))
            ch.base_value = ch.head_value / (1 + c.delta)
            out.confirmed.append(ch.id)
        else:
            ch.state = "rejected"
            out.rejected.append(ch.id)
            if c.verdict == "earlier":
                moving.append((ch, c))
            elif c.verdict == "below_minimum":
                ch.state_reason = (f"a real shift of {c.delta * 100:+.2f} % (q {c.q_value:.2g}),"
                                   f" below the minimum effect of "
                                   f"{ch.min_effect_pct or rule.min_effect_pct:g} %: the "
                                   "series' reference restarts here")
    session.flush()
    revert.link(session, [ch for _, (ch, _, _) in zip(confs, usable, strict=True)
                          if ch.state == "confirmed"])
    if moving:
        suite = _suite(session, info, settings)
        machine = session.get(Machine, machine_id)
        assert machine is not None
        for (suspect, parent), targets in move_earlier(session, rule, moving).items():
            earlier = {t.id: t.confirmation for t in targets}
            if not budget.grants(session, settings, machine.tag, targets):
                for t in targets:
                    t.state, t.state_reason = "unconfirmed", budget.reason(settings, machine.tag)
                continue
            out.runs += start(session, settings, targets, suspect, parent, machine, suite)
            out.candidates += [t.id for t in targets]
            for t in targets:  # a reopened record keeps its first round
                if earlier[t.id]:
                    t.confirmation = {**t.confirmation, "previous": earlier[t.id]}
    session.flush()
    return out


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def _suite(session: Session, info: dict[str, object], settings: Settings) -> str | None:
    ids = info.get("run_ids") or []
    run = session.get(Run, ids[0]) if isinstance(ids, list) and ids else None
    return run.suite if run is not None else settings.default_suite


def move_earlier(session: Session, rule: SpeedRule, moving: list[tuple[Change, Confirmation]]
                 ) -> dict[tuple[int, int], list[Change]]:
    """Records at the parents of changes whose reruns put the step one commit earlier,
    ready for their own reruns; per (new suspect, its parent)."""
    out: dict[tuple[int, int], list[Change]] = {}
    series_of = history.change_series(session, [ch for ch, _ in moving])
    for ch, conf in moving:
        ev = ch.evidence or {}
        suspect_id, parent_id = ch.parent_commit_id, int(ev["reference_commits"][-2])
        assert suspect_id is not None
        key = series_of[ch.id]
        # The parent's runs now: its first run and the reruns just measured (stored as
        # results of the parent commit like any other run).
        values = history.load_series(session, ch.machine_id, [(suspect_id, 0)], {key})
        point = next((v for v in values.get(key, []) if v.runs.get(ch.metric)), None)
        if point is None:
            continue
        target = session.scalar(select(Change).where(
            Change.machine_id == ch.machine_id, Change.dataset_id == ch.dataset_id,
            Change.configuration_id == ch.configuration_id, Change.metric == ch.metric,
            Change.commit_id == suspect_id, Change.codec_set_id == point.codec_set_id))
        if target is not None and (target.state != "rejected" or (
                (target.confirmation or {}).get("result") or {}).get("verdict")
                == "below_minimum"):
            continue  # being confirmed, confirmed, or judged below the minimum once
        reference = list(ev["reference"])[:-1]
        runs, samples = list(point.runs[ch.metric]), list(point.samples[ch.metric])
        head = float(np.median(runs))
        ci = bootstrap_shift_ci(np.asarray(reference, dtype=float),
                                np.asarray(samples, dtype=float), rule.bootstrap, seed=ch.id)
        suspect = session.get(Commit, ch.commit_id)
        evidence = {**ev, "reference": reference,
                    "reference_commits": list(ev["reference_commits"])[:-1],
                    "suspect_runs": runs, "suspect_samples": samples,
                    "parent_samples": None, "mann_whitney_p": None,
                    "moves": int(ev.get("moves", 0)) + 1,
                    "moved_from": {"change_id": ch.id,
                                   "commit": suspect.sha if suspect else None,
                                   "rerun_delta_pct": conf.rerun_delta * 100,
                                   "earlier_delta_pct": conf.earlier_delta * 100,
                                   "earlier_p_value": conf.earlier_p}}
        pair = history.load_series(session, ch.machine_id, [(parent_id, 0), (suspect_id, 1)],
                                   {key}).get(key, []) if "attribution" in ev else []
        if len(pair) == 2:  # the counts judged again for the new pair of commits
            verdict = attribute_speed_change(
                ch.metric, pair[0].count_medians(), pair[1].count_medians(),
                threshold_percent=float(
                    ev.get("count_threshold_pct", DEFAULT_THRESHOLD_PERCENT)))
            evidence.update(attribution=verdict.attribution, attribution_reason=verdict.reason)
        elif "attribution" in ev:
            evidence.update(attribution=None, attribution_reason="the moved pair was not loaded")
        if target is None:
            target = Change(machine_id=ch.machine_id, dataset_id=ch.dataset_id,
                            configuration_id=ch.configuration_id, metric=ch.metric,
                            codec_set_id=point.codec_set_id, commit_id=suspect_id, kind="speed",
                            test=ch.test, detected_run_id=ch.detected_run_id)
            session.add(target)
        target.parent_commit_id = parent_id
        target.state, target.confirmed_at = "confirming", None
        target.direction = direction(ch.metric, conf.earlier_delta * 100)
        target.base_value = float(np.median(reference)) if reference else None
        target.head_value = head
        target.delta_pct = conf.earlier_delta * 100
        target.ci_low_pct = _finite(ci[0] * 100)
        target.ci_high_pct = _finite(ci[1] * 100)
        target.p_value, target.q_value = conf.earlier_p, None
        target.min_effect_pct = ch.min_effect_pct
        target.evidence = evidence
        session.flush()
        ch.confirmation = {**ch.confirmation, "result": {
            **ch.confirmation["result"], "moved_to": target.id}}
        out.setdefault((suspect_id, parent_id), []).append(target)
    session.flush()
    return out
