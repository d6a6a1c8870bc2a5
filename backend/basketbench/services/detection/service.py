"""Detection after an ingest: exact metrics at once, speeds screened as one family per
commit and sent to confirmation reruns; confirmation and bisection runs feed their own
evaluations instead."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, ResultDocument, Run
from basketbench.models.base import utcnow
from basketbench.models.result import EXACT_METRICS, SPEED_METRICS
from basketbench.services import dispatch, notify
from basketbench.services.detection import history
from basketbench.services.detection.engine import SeriesInput, SeriesPoint, screen
from basketbench.services.detection.speed import SpeedRule

log = logging.getLogger(__name__)


def rule_for(settings: Settings) -> SpeedRule:
    return SpeedRule(min_effect_pct=settings.detection_default_min_effect,
                     fdr_q=settings.detection_fdr, confirm_runs=settings.detection_confirm_runs)


def direction(metric: str, delta_pct: float) -> str:
    worse = delta_pct > 0 if metric == "compressed_bytes" else delta_pct < 0
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


def after_ingest(session: Session, settings: Settings, document_id: int) -> Outcome:
    """Entry point after a document is stored (committed)."""
    doc = session.get(ResultDocument, document_id)
    if doc is None:
        return Outcome()
    lock_machine(session, doc.machine_id)
    run = session.get(Run, doc.run_id) if doc.run_id is not None else None
    if run is not None and run.trigger == "confirm":
        from basketbench.services.detection import confirm

        return confirm.on_run_progress(session, settings, run)
    if run is not None and run.trigger == "bisect":
        from basketbench.services.detection import bisect

        return bisect.on_run_progress(session, settings, run)
    return detect_commit(session, settings, doc.commit_id, doc.machine_id,
                         run.id if run else None, run.suite if run else None)


def detect_commit(session: Session, settings: Settings, commit_id: int, machine_id: int,
                  run_id: int | None = None, suite: str | None = None) -> Outcome:
    commit = session.get(Commit, commit_id)
    machine = session.get(Machine, machine_id)
    assert commit is not None and machine is not None
    commits = history.recent_commits(session, machine_id, commit)
    keys = history.series_of_commit(session, machine_id, commit.id)
    # Samples serve the newest points' tests and the candidates' Mann-Whitney tests and
    # intervals; the rest of the window needs only its medians (fill_samples below).
    series = history.load_series(session, machine_id, commits, keys,
                                 samples_of={cid for cid, _ in commits[-3:]})
    recorded = history.recorded_changes(session, machine_id, keys)
    names = history.series_names(session, machine, keys)
    orders = dict(commits)
    out = Outcome()
    now = utcnow()

    def segment_start(key: tuple[int, int, str, str]) -> int:
        # A change being confirmed already splits the series: the commits after it are
        # not tested again against the old level while its reruns are pending.
        starts = [orders.get(ch.commit_id, -1) for ch in recorded.get(key, [])
                  if ch.state in ("confirmed", "confirming")]
        return max(starts, default=-(2**31))

    def flagged(key: tuple[int, int, str, str]) -> set[int]:
        return {ch.commit_id for ch in recorded.get(key, [])}

    # Exact metrics: any difference to the previous measured commit of the same codec
    # series is a change (another series' values are never compared).
    for (ds, conf, cs), values in series.items():
        if len(values) < 2 or values[-1].commit_id != commit.id:
            continue
        prev, cur = values[-2], values[-1]
        for metric in EXACT_METRICS:
            a, b = getattr(prev, metric), getattr(cur, metric)
            if a is None or b is None or a == b or commit.id in flagged((ds, conf, cs, metric)):
                continue
            if metric == "ratio" and math.isclose(a, b, rel_tol=1e-12):
                continue  # float noise of the same sizes
            delta = (b - a) / abs(a) * 100 if a else math.inf
            ch = Change(commit_id=commit.id, parent_commit_id=prev.commit_id,
                        machine_id=machine_id, dataset_id=ds, configuration_id=conf,
                        codec_set_id=cur.codec_set_id, metric=metric, kind="exact", test="exact",
                        direction=direction(metric, delta), base_value=a, head_value=b,
                        delta_pct=delta if math.isfinite(delta) else 1e9, state="confirmed",
                        confirmed_at=now, detected_run_id=run_id,
                        evidence={"rule": "exact: sizes are deterministic, any change is real"})
            session.add(ch)
            recorded[(ds, conf, cs, metric)].append(ch)

    # Speeds: one family over every series and speed metric of this commit.
    rule = rule_for(settings)
    meta: list[tuple[int, int, str, list[history.CommitValues]]] = []
    series_of: list[tuple[int, int, str, str]] = []  # dataset, configuration, codec series, metric
    for (ds, conf, cs), values in series.items():
        if values[-1].commit_id != commit.id:
            continue
        for metric in SPEED_METRICS:
            start = segment_start((ds, conf, cs, metric))
            seg = [v for v in values if v.order >= start and v.runs.get(metric)]
            if len(seg) >= 3:
                meta.append((ds, conf, metric, seg))
                series_of.append((ds, conf, cs, metric))

    def family_of() -> list[SeriesInput]:
        return [SeriesInput(key, [SeriesPoint(v.commit_id, list(v.runs[key[3]]),
                                              list(v.samples[key[3]])) for v in seg],
                            history.min_effect(settings, names[key[:3]], key[3]), flagged(key))
                for key, (_ds, _conf, _metric, seg) in zip(series_of, meta, strict=True)]

    # The single and pair tests use the samples of each segment's newest three points
    # (usually the window's newest three commits, loaded above).
    history.fill_samples(session, machine_id, series,
                         {v.commit_id for *_, seg in meta for v in seg[-3:]})
    session.flush()
    family = family_of()
    candidates = screen(family, rule) if family else []
    # An e-divisive candidate further back needs samples the window left out: load them
    # and screen again (the same candidates: only their Mann-Whitney tests and intervals
    # use them).
    missing = {meta[c.series][3][i].commit_id for c in candidates
               for i in (c.position - 1, c.position) if not meta[c.series][3][i].samples_loaded}
    if missing:
        history.fill_samples(session, machine_id, series, missing)
        family = family_of()
        candidates = screen(family, rule)
    groups: dict[int, list[Change]] = {}
    for c in candidates:
        ds, conf, metric, seg = meta[c.series]
        pts = family[c.series].points
        suspect, parent = pts[c.position], pts[c.position - 1]
        codec_set_id = next(v.codec_set_id for v in seg if v.commit_id == suspect.commit)
        reference = [p.median for p in pts[max(0, c.position - rule.window):c.position]]
        ch = Change(
            commit_id=suspect.commit, parent_commit_id=parent.commit, machine_id=machine_id,
            dataset_id=ds, configuration_id=conf, codec_set_id=codec_set_id, metric=metric,
            kind="speed", test=c.test,
            direction=direction(metric, c.delta * 100), base_value=float(np.median(reference)),
            head_value=suspect.median, delta_pct=c.delta * 100,
            ci_low_pct=_pct(c.ci[0]), ci_high_pct=_pct(c.ci[1]), p_value=c.p_value,
            q_value=c.q_value, min_effect_pct=family[c.series].min_effect_pct,
            state="confirming", detected_run_id=run_id,
            evidence={"family_size": c.family_size, "screen_candidates": len(candidates),
                      "screen_delta": c.delta,
                      "screen_p": c.p_value, "screen_q": c.q_value, "mann_whitney_p": c.mw_p,
                      "reference": reference,
                      "reference_commits": [p.commit for p in pts[max(0, c.position - rule.window):
                                                                   c.position]],
                      "suspect_runs": list(suspect.runs), "suspect_samples": suspect.samples,
                      "parent_samples": parent.samples})
        session.add(ch)
        groups.setdefault(suspect.commit, []).append(ch)
    session.flush()
    from basketbench.services.detection import confirm

    for suspect_id, group in groups.items():
        parent_id = group[0].parent_commit_id
        assert parent_id is not None
        runs = confirm.start(session, settings, group, suspect_id, parent_id, machine, suite)
        out.runs.extend(runs)
        out.candidates.extend(ch.id for ch in group)
        if not runs:  # no reruns configured: decide on the screen alone
            res = confirm.evaluate(session, settings, group)
            out.confirmed.extend(res.confirmed)
            out.rejected.extend(res.rejected)
    exact_new = [ch for chs in recorded.values() for ch in chs
                 if ch.kind == "exact" and ch.commit_id == commit.id and ch.confirmed_at == now]
    session.flush()
    out.confirmed.extend(ch.id for ch in exact_new)
    notify.enqueue(session, settings, out.confirmed)  # the outbox: with the changes
    session.commit()
    return out


def _pct(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else x * 100


def changes_of(session: Session, ids: list[int]) -> list[Change]:
    if not ids:
        return []
    return list(session.scalars(select(Change).where(Change.id.in_(ids)).order_by(Change.id)))


def follow_up(session: Session, settings: Settings, out: Outcome) -> None:
    """After the transaction: start bisections, and wake this process's dispatchers for
    the runs and notifications the transaction wrote to their outboxes."""
    if out.confirmed:
        from basketbench.services.detection import bisect

        bisect.start_for(session, settings, out.confirmed)
    dispatch.wake()
    notify.wake()


def run_after_final(sessionmaker: Any, settings: Settings, run_id: int) -> None:
    """Background entry when a confirmation or bisection run failed: never raises."""
    try:
        from basketbench.services.detection.confirm import on_run_final
        from basketbench.services.detection.queue import rescreen_newer

        with sessionmaker() as session:
            out = on_run_final(session, settings, run_id)
            follow_up(session, settings, out)
            if out.confirmed or out.rejected:  # the sweeper screens them
                rescreen_newer(session, out.confirmed + out.rejected)
    except Exception:
        log.exception("change detection after run %s failed", run_id)
