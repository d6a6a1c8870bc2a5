"""Speed detection from per-commit interleaved A/B effects first (issue 32).

When the worker measured a commit interleaved against its reference build on the same
machine (``ab_runs`` with reference_kind parent or previous and the reference being the
commit's first parent or the previous measured commit of the machine), the A/B effects
(``ab_effects``, one per dataset x configuration x metric) are the direct evidence:
``stats.abeffect.screen_ab`` raises candidates from them, and those series are not
screened on the history at this commit (the history screen stays for drifts and for
commits without a reference build).

Confirmation is ONE more interleaved A/B of the commit against the same reference, not a
rerun of the commit alone: ``request_confirmation`` records the request on the changes and
hands it to ``enqueue`` (the worker stage that executes it belongs to the A/B pipeline);
when an A/B run of that (machine, commit, reference) lands, ``evaluate`` decides
(``stats.abeffect.decide_ab``) and the confirmed change lists the confirming A/B's effect
and interval. An A/B run of a commit nobody asked to confirm is screened like the first.

A commit may have several A/B runs, of different suites (a push's run of the default
suite, a trigger's own suite, detection's confirming A/B): each series is screened by the
first of them that measured it, and each run's newly covered series form its own family.
A series the first A/B did not measure is screened when a later one brings it, even when
that later one also confirms earlier candidates (it once went unscreened: a confirming A/B
decided the first run's candidates and its other series were never looked at)."""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import select
from sqlalchemy.orm import Session

from basketbench.changes.detection import history, revert
from basketbench.changes.detection.common import Outcome, direction, rule_for
from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, Run
from basketbench.models.ab import AB_METRICS, AbEffect, AbRun
from basketbench.models.base import utcnow
from basketbench.runs import ab_requests
from basketbench.stats.abeffect import AbEstimate, decide_ab, screen_ab

log = logging.getLogger(__name__)
REFERENCE_KINDS = ("parent", "previous")
Key = tuple[int, int, str, str]  # dataset, configuration, codec series, metric
REQUESTER = "detection"  # who asks for the confirming A/Bs (their runs' trigger names it)


@dataclass
class AbRequest:
    """One more interleaved A/B of ``commit`` against ``reference_commit`` on the machine
    (its tag's worker), to confirm the changes ``change_ids`` raised from ``screened_ab_run``."""

    machine_id: int
    tag: str
    commit_id: int
    commit_sha: str
    reference_commit_id: int
    reference_sha: str
    reference_kind: str
    screened_ab_run_id: int
    change_ids: list[int] = field(default_factory=list)
    requested_at: str = ""


def enqueue(session: Session, settings: Settings, request: AbRequest) -> None:
    """The hand-off to the worker stage: queue the confirming A/B. The request is already
    recorded on its changes (confirmation.ab_request) in this transaction; the A/B
    pipeline's stage executes it (origin "pipeline", the same reference kind and commit)
    and stores an ab_runs row, whose arrival calls ``service.after_ab_run``. Until it does, the
    changes wait as ``confirming`` and expire like candidates awaiting reruns
    (pending.expire: no live worker on the tag, or the pending timeout)."""
    commit = session.get(Commit, request.commit_id)
    reference = session.get(Commit, request.reference_commit_id)
    if commit is None or reference is None:
        log.warning("A/B confirmation of changes %s: commit or reference gone", request.change_ids)
        return
    run = ab_requests.queue(session, request.tag, session.get(Machine, request.machine_id),
                            commit, reference, request.reference_kind, "pipeline", REQUESTER)
    log.info("A/B confirmation queued as run %s: %s against %s on machine %s (%d changes)",
             run.id, request.commit_sha[:12], request.reference_sha[:12], request.machine_id,
             len(request.change_ids))


def reference_ids(session: Session, commit: Commit, previous_id: int | None) -> set[int]:
    """The builds a commit's A/B may be judged against: its first parent, the previous
    measured commit of the machine."""
    out = {previous_id} if previous_id is not None else set()
    if commit.parents:
        parent = session.scalar(select(Commit.id).where(
            Commit.repository_id == commit.repository_id, Commit.sha == commit.parents[0]))
        if parent is not None:
            out.add(int(parent))
    return out


def usable_runs(session: Session, machine_id: int, commit_id: int,
                references: set[int]) -> list[AbRun]:
    """The commit's usable A/B runs against one of its references, oldest first."""
    if not references:
        return []
    return list(session.scalars(select(AbRun).where(
        AbRun.machine_id == machine_id, AbRun.commit_id == commit_id,
        AbRun.reference_kind.in_(REFERENCE_KINDS), AbRun.reference_commit_id.in_(references),
        AbRun.error.is_(None)).order_by(AbRun.id)))


Effects = dict[tuple[int, int, str], AbEstimate]  # dataset, configuration, metric


def estimates(session: Session, ab_run_id: int) -> Effects:
    rows = session.scalars(select(AbEffect).where(AbEffect.ab_run_id == ab_run_id,
                                                  AbEffect.metric.in_(AB_METRICS)))
    return {(e.dataset_id, e.configuration_id, e.metric): AbEstimate(
        e.ratio, e.ci_low, e.ci_high, e.pairs, [float(x) for x in e.samples or []])
        for e in rows if e.ratio is not None and e.ci_low is not None and e.ci_high is not None}


def first_covered(session: Session, runs: list[AbRun]) -> list[tuple[AbRun, Effects]]:
    """Each run (oldest first) with the effects no earlier run of the list measured: the
    ones it screens."""
    seen: set[tuple[int, int, str]] = set()
    out = []
    for run in runs:
        effects = {k: e for k, e in estimates(session, run.id).items() if k not in seen}
        seen.update(effects)
        out.append((run, effects))
    return out


def screen_commit(session: Session, settings: Settings, machine: Machine, commit: Commit,
                  ab: AbRun, effects: Effects, series: history.Series,
                  names: dict[history.SeriesKey, str], flagged: dict[Key, set[int]],
                  run_id: int | None) -> tuple[list[tuple[Key, Change]], set[Key]]:
    """Candidates of ``commit`` from the A/B effects ``ab`` screens (with their series
    keys); also the series keys those effects cover (the history screen leaves them alone
    at this commit)."""
    rule = rule_for(settings)
    keys: list[Key] = []
    family: list[AbEstimate] = []
    for (ds, conf, cs), values in series.items():
        if not values or values[-1].commit_id != commit.id:
            continue
        for metric in AB_METRICS:
            est = effects.get((ds, conf, metric))
            if est is not None:
                keys.append((ds, conf, cs, metric))
                family.append(est)
    covered = set(keys)
    if not keys:
        return [], covered
    found = screen_ab(family, [history.min_effect(settings, names[k[:3]], k[3]) for k in keys],
                      rule)
    out = []
    for c in found:
        key = keys[c.index]
        if commit.id in flagged.get(key, set()):
            continue
        est = family[c.index]
        ds, conf, cs, metric = key
        values = series[(ds, conf, cs)]
        ref = next((v for v in values if v.commit_id == ab.reference_commit_id), None)
        base = float(np.median(ref.runs[metric])) if ref is not None and ref.runs.get(metric) \
            else None
        ch = Change(
            commit_id=commit.id, parent_commit_id=ab.reference_commit_id, machine_id=machine.id,
            dataset_id=ds, configuration_id=conf, codec_set_id=values[-1].codec_set_id,
            metric=metric, kind="speed", test="ab", direction=direction(metric, c.delta * 100),
            base_value=base, head_value=base * est.ratio if base is not None else None,
            delta_pct=c.delta * 100, ci_low_pct=(est.ci_low - 1) * 100,
            ci_high_pct=(est.ci_high - 1) * 100, p_value=c.p_value, q_value=c.q_value,
            min_effect_pct=history.min_effect(settings, names[(ds, conf, cs)], metric),
            state="confirming", detected_run_id=run_id,
            evidence={"rule": "ab: the commit measured interleaved against its reference "
                              "build in one process; Wilcoxon signed-rank of the per-pair "
                              "log ratios, BH over the commit's A/B effects",
                      "family_size": c.family_size, "screen_candidates": len(found),
                      "screen_delta": c.delta, "screen_p": c.p_value, "screen_q": c.q_value,
                      "ab_run_id": ab.id, "reference_kind": ab.reference_kind,
                      "ab_ratio": est.ratio, "ab_ci": [est.ci_low, est.ci_high],
                      "ab_pairs": est.pairs, "ab_samples": est.samples,
                      "disturbed_fraction": ab.disturbed_fraction,
                      "note": "head_value is the reference's measured median times the A/B "
                              "ratio" if base is not None else None})
        session.add(ch)
        out.append((key, ch))
    session.flush()
    return out, covered


def request_confirmation(session: Session, settings: Settings, group: list[Change],
                         machine: Machine, ab: AbRun) -> AbRequest:
    """Record and hand off one more interleaved A/B for a commit's A/B candidates."""
    commit = session.get(Commit, ab.commit_id)
    reference = session.get(Commit, ab.reference_commit_id)
    assert commit is not None and reference is not None
    request = AbRequest(machine.id, machine.tag, commit.id, commit.sha, reference.id,
                        reference.sha, ab.reference_kind, ab.id, [ch.id for ch in group],
                        utcnow().isoformat())
    info: dict[str, Any] = {"kind": "ab", "ab_request": asdict(request),
                            "interleaved": [reference.sha[:12], commit.sha[:12]]}
    for ch in group:
        ch.confirmation = dict(info)
    enqueue(session, settings, request)
    return request


def awaiting(session: Session, ab: AbRun, effects: Effects) -> list[Change]:
    """Changes confirming by an A/B of this (machine, commit, reference) other than the
    one that raised them, that this A/B decides: all of them when it is the confirming A/B
    detection asked for (a series it did not measure is rejected as missing); else only
    those it measured, the others waiting on (a run of another suite, e.g. a push's
    default-suite run or a history rerun's A/B, measures other settings: its silence on a
    series is no evidence)."""
    rows = session.scalars(select(Change).where(
        Change.state == "confirming", Change.machine_id == ab.machine_id,
        Change.commit_id == ab.commit_id, Change.test == "ab"))
    out = []
    for ch in rows:
        req = (ch.confirmation or {}).get("ab_request") or {}
        if req.get("reference_commit_id") == ab.reference_commit_id and \
                req.get("screened_ab_run_id") != ab.id:
            out.append(ch)
    if not out or _requested(session, ab):
        return out
    return [ch for ch in out if (ch.dataset_id, ch.configuration_id, ch.metric) in effects]


def _requested(session: Session, ab: AbRun) -> bool:
    """Whether this A/B is the run of a confirming A/B detection asked for."""
    if ab.run_id is None:
        return False
    return session.scalar(select(Run.trigger).where(Run.id == ab.run_id)) == \
        ab_requests.trigger_of(REQUESTER)


def evaluate(session: Session, settings: Settings, group: list[Change], ab: AbRun,
             effects: Effects) -> Outcome:
    """The verdicts of a commit's A/B candidates from the confirming A/B (its ``effects``)."""
    out = Outcome()
    rule = rule_for(settings)
    confirming = [effects.get((ch.dataset_id, ch.configuration_id, ch.metric)) for ch in group]
    evs = [ch.evidence or {} for ch in group]
    verdicts = decide_ab(confirming, [float(ev.get("screen_delta", (ch.delta_pct or 0) / 100))
                                      for ev, ch in zip(evs, group, strict=True)],
                         [ch.min_effect_pct or rule.min_effect_pct for ch in group], rule,
                         candidates=max(int(ev.get("screen_candidates", 0)) for ev in evs))
    now = utcnow()
    for ch, v, est in zip(group, verdicts, confirming, strict=True):
        result: dict[str, Any] = {"ab_run_id": ab.id, "verdict": v.verdict,
                                  "confirmed": v.confirmed,
                                  "disturbed_fraction": ab.disturbed_fraction}
        if est is not None:
            result.update(delta_pct=v.delta * 100, p_value=v.p_value,
                          q_value=_finite(v.q_value), ab_ratio=est.ratio,
                          ab_ci=[est.ci_low, est.ci_high], ab_pairs=est.pairs,
                          ab_samples=est.samples,
                          interval_pct=[v.interval[0] * 100, v.interval[1] * 100])
        ch.confirmation = {**(ch.confirmation or {}), "result": result}
        if v.confirmed:
            assert est is not None
            ch.evidence = {**(ch.evidence or {}),
                           "screen_ci_pct": [ch.ci_low_pct, ch.ci_high_pct]}
            ch.state, ch.confirmed_at = "confirmed", now
            # the listed effect and its interval: the confirming A/B's
            ch.delta_pct, ch.p_value, ch.q_value = v.delta * 100, v.p_value, _finite(v.q_value)
            ch.ci_low_pct, ch.ci_high_pct = v.interval[0] * 100, v.interval[1] * 100
            ch.direction = direction(ch.metric, ch.delta_pct)
            if ch.base_value is not None:
                ch.head_value = ch.base_value * est.ratio
            out.confirmed.append(ch.id)
            continue
        ch.state = "rejected"
        if v.verdict == "missing":
            ch.state_reason = "the confirming A/B brought no result for this series"
        elif v.verdict == "below_minimum":
            ch.state_reason = (f"the confirming A/B measured {v.delta * 100:+.2f} % (interval "
                               f"excluding 1), below the minimum effect of "
                               f"{ch.min_effect_pct or rule.min_effect_pct:g} %")
        else:
            ch.state_reason = (f"the confirming A/B did not repeat it: {v.delta * 100:+.2f} %, "
                               f"interval {v.interval[0] * 100:+.2f} to "
                               f"{v.interval[1] * 100:+.2f} %, q {v.q_value:.2g}")
        out.rejected.append(ch.id)
    session.flush()
    revert.link(session, [ch for ch in group if ch.state == "confirmed"])
    return out


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None
