"""The screen of one measured commit: exact metrics and instruction counts at once (a
count beyond Settings.detection_count_threshold is a change from one run), speeds as one
family per commit (regular runs only: reruns are evidence for their candidate's decision,
never points of the reference; runs on a busy machine are left out), each candidate judged
by its commits' counts (code / probably the machine), candidates sent to confirmation reruns
within the tag's budget; slow drifts and reverts of recorded changes."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy.orm import Session

from basketbench.changes import notify
from basketbench.changes.detection import ab, budget, confirm, history, points, revert
from basketbench.changes.detection.cells import (
    NO_START,
    SegmentPoints,
    SeriesCells,
    fill_samples,
)
from basketbench.changes.detection.common import Outcome, direction, rule_for
from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine
from basketbench.models.ab import AbRun
from basketbench.models.base import utcnow
from basketbench.models.result import EXACT_METRICS, SPEED_METRICS
from basketbench.stats import drift
from basketbench.stats.counts import attribute_speed_change, count_changes
from basketbench.stats.engine import (
    SeriesInput,
    points_needed,
    tested_candidates,
    with_evidence,
)
from basketbench.stats.speed import SpeedRule, level_test, within_se

log = logging.getLogger(__name__)
BUSY_NOTE = ("not screened: this commit's runs were measured on a busy machine (their "
             "documents' load.busy); its sizes and instruction counts were")


def detect_commit(session: Session, settings: Settings, commit_id: int, machine_id: int,
                  run_id: int | None = None, suite: str | None = None) -> Outcome:
    commit = session.get(Commit, commit_id)
    machine = session.get(Machine, machine_id)
    assert commit is not None and machine is not None
    # The step tests read the newest HISTORY_COMMITS, the drift rule its longer window.
    commits = history.recent_commits(session, machine_id, commit, max(
        history.HISTORY_COMMITS, settings.detection_drift_window + 1))
    keys = history.series_of_commit(session, machine_id, commit.id)
    # Samples serve the newest points' tests and the candidates' Mann-Whitney tests and
    # intervals; the rest of the window needs only its medians (cells.fill_samples below).
    series: dict[history.SeriesKey, SeriesCells]
    if settings.detection_screen_points:  # the packed points of the window's documents
        series = points.load_window(session, machine_id, commits, keys,
                                    skip_busy=settings.detection_skip_busy_runs)
    else:
        series = {key: SeriesCells.of(values) for key, values in history.load_series(
            session, machine_id, commits, keys, samples_of={cid for cid, _ in commits[-1:]},
            regular_only=True, skip_busy=settings.detection_skip_busy_runs).items()}
    orders = dict(commits)
    recorded = history.recorded_changes(session, machine_id, keys, orders)
    names = history.series_names(session, machine, keys)
    out = Outcome()
    now = utcnow()

    def segment_start(key: tuple[int, int, str, str]) -> int:
        # A change being confirmed already splits the series: the commits after it are
        # not tested again against the old level while its reruns are pending.
        # A shift judged real but below the minimum restarts the reference too: else
        # every later commit tests the same shift again (issue 27's cascade).
        # (These three are asked of every series and metric, ~7 000 times a pass; most
        # series have no recorded change.)
        changes = recorded.get(key)
        if not changes:
            return NO_START
        starts = [orders.get(ch.commit_id, -1) for ch in changes
                  if ch.state in ("confirmed", "confirming") or _below_minimum(ch)]
        return max(starts, default=NO_START)

    def flagged(key: tuple[int, int, str, str]) -> set[int]:
        changes = recorded.get(key)
        return {ch.commit_id for ch in changes} if changes else set()

    def outliers(key: tuple[int, int, str, str]) -> set[int]:
        # Commits whose screened run the reruns contradicted (a fluke): that run is left
        # out of the series, and nothing takes its place (reruns are never points).
        changes = recorded.get(key)
        return {ch.commit_id for ch in changes if _fluke(ch)} if changes else set()

    # Exact metrics: any difference to the previous measured commit of the same codec
    # series is a change (another series' values are never compared).
    # (Read through the cells' arrays: a cell's CommitValues is made for a change only.)
    for (ds, conf, cs), values in series.items():
        n = len(values)
        if n < 2 or values.commit_ids[-1] != commit.id:
            continue
        for metric in EXACT_METRICS:
            a, b = values.exact(metric, n - 2), values.exact(metric, n - 1)
            if a is None or b is None or a == b or commit.id in flagged((ds, conf, cs, metric)):
                continue
            if metric == "ratio" and math.isclose(a, b, rel_tol=1e-12):
                continue  # float noise of the same sizes
            prev, cur = values[-2], values[-1]
            delta = (b - a) / abs(a) * 100 if a else math.inf
            ch = Change(commit_id=commit.id, parent_commit_id=prev.commit_id,
                        machine_id=machine_id, dataset_id=ds, configuration_id=conf,
                        codec_set_id=cur.codec_set_id, metric=metric, kind="exact", test="exact",
                        direction=direction(metric, delta), base_value=a, head_value=b,
                        delta_pct=delta if math.isfinite(delta) else 1e9, state="confirmed",
                        confirmed_at=now, detected_run_id=run_id,
                        evidence={"rule": "exact: sizes are deterministic, any change is real"})
            earlier = _last_confirmed(recorded.get((ds, conf, cs, metric), []), orders, "exact")
            if earlier is not None and revert.is_back(earlier, b, 0):
                ch.evidence = {**ch.evidence, "reverts": earlier.id}
            session.add(ch)
            recorded[(ds, conf, cs, metric)].append(ch)

    # Instruction counts: near-exact, a move beyond the threshold is a change from one run.
    for key, ch in _count_changes(settings, machine_id, commit.id, series, flagged, run_id, now):
        earlier = _last_confirmed(recorded.get(key, []), orders, "exact")
        if earlier is not None and revert.is_back(earlier, ch.head_value,
                                                  settings.detection_count_threshold):
            ch.evidence = {**ch.evidence, "reverts": earlier.id}
        session.add(ch)
        recorded[key].append(ch)
    # Per-commit A/B effects first: the series they cover are not screened on the history
    # at this commit (their candidates wait for one more A/B, not for reruns).
    abruns = ab.usable_runs(session, machine_id, commit.id, ab.reference_ids(
        session, commit, commits[-2][0] if len(commits) >= 2 else None))
    covered: set[Key] = set()
    if abruns:
        ab_group, covered = _ab_first(session, settings, machine, commit,
                                      ab.first_covered(session, abruns), series, names,
                                      recorded, orders, run_id)
        out.candidates.extend(ch.id for ch in ab_group)
    busy = _busy_only(series, commit.id)
    if busy:  # the commit's speeds were all measured on a busy machine: not tested
        log.info("commit %s on machine %s: speeds not screened (busy machine)",
                 commit.sha, machine_id)

    # Speeds: one family over every series and speed metric of this commit.
    rule = rule_for(settings)
    # The screen reads no further back than its e-divisive span and a reference window
    # before it: older points of a segment (loaded for the drift rule's longer window)
    # are left out of the family, and positions in the family are positions in
    # ``segments``. The screen reads a segment through its median array; each point it
    # reads is made then, sharing its runs and samples with the cell (cells.py).
    span = points_needed(rule)
    segments: list[SegmentPoints] = []  # each series' segment: its cells, newest ``span``
    series_of: list[tuple[int, int, str, str]] = []  # dataset, configuration, codec series, metric
    for (ds, conf, cs), values in series.items():
        if values.commit_ids[-1] != commit.id:
            continue
        for metric in SPEED_METRICS:
            if (ds, conf, cs, metric) in covered:
                continue
            start = segment_start((ds, conf, cs, metric))
            drop = outliers((ds, conf, cs, metric)) - {commit.id}
            # the cells with runs, from the segment's start, without flukes (never the
            # commit's own): array masks, no cell read
            index = values.with_runs(metric, start)
            if drop:
                index = index[~np.isin(values.commit_ids[index], list(drop))]
            # the commit's own speeds are missing when its runs were busy: nothing to test
            if index.size >= 3 and values.commit_ids[index[-1]] == commit.id:
                segments.append(SegmentPoints(values, index[-span:], metric))
                series_of.append((ds, conf, cs, metric))

    # The screen's tests read the within-run standard error of each segment's newest point
    # (usually the window's newest commit): a point measured once has it in the packed
    # points, the others' samples are read here. The candidates' evidence reads the samples
    # of their commits and parents, loaded for them alone (the family's points are made
    # when read: they see them).
    known = [seg.cells.known_se(key[3], int(seg.at[-1]))
             for key, seg in zip(series_of, segments, strict=True)]
    unknown = [(key, seg) for key, seg, se in zip(series_of, segments, known, strict=True)
               if se is None]
    fill_samples(session, machine_id, series,
                 {c for _key, seg in unknown for c in seg.commits(-1, len(seg))},
                 {key[:3] for key, _seg in unknown})
    session.flush()
    # A newest point whose standard error is known is a cell of one run: its run is its
    # median, and the single test reads it without making the point.
    family = []
    for key, seg, se in zip(series_of, segments, known, strict=True):
        levels = seg.cells.medians(key[3])[seg.at]
        family.append(SeriesInput(key, seg, history.min_effect(settings, names[key[:3]], key[3]),
                                  flagged(key), levels, se,
                                  None if se is None else [float(levels[-1])]))
    candidates = tested_candidates(family, rule) if family else []
    missing = {v.commit_id for c in candidates for i in (c.position - 1, c.position)
               if not (v := segments[c.series].cell(i)).samples_loaded}
    if missing:
        fill_samples(session, machine_id, series, missing,
                     {series_of[c.series][:3] for c in candidates})
    candidates = with_evidence(family, candidates, rule)
    groups: dict[int, list[Change]] = {}
    screened: set[tuple[int, int, str, str]] = set()
    for c in candidates:
        ds, conf, _cs, metric = series_of[c.series]
        seg = segments[c.series]
        screened.add(series_of[c.series])
        pts = family[c.series].points
        suspect, parent = pts[c.position], pts[c.position - 1]
        codec_set_id = seg.cell(c.position).codec_set_id
        verdict = attribution(settings, metric, seg.cell(c.position - 1), seg.cell(c.position))
        first = max(0, c.position - rule.window)
        reference: list[float] = family[c.series].levels[first:c.position].tolist()
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
                      "reference_commits": seg.commits(first, c.position),
                      "suspect_runs": list(suspect.runs), "suspect_samples": suspect.samples,
                      "parent_samples": parent.samples, **verdict})
        earlier = _last_confirmed(recorded.get(series_of[c.series], []), orders, "speed")
        if earlier is not None and earlier.commit_id != suspect.commit and \
                np.sign(earlier.delta_pct) == -np.sign(c.delta) and revert.is_back(
                    earlier, suspect.median, family[c.series].min_effect_pct):
            ch.evidence = {**ch.evidence, "reverts": earlier.id}
        session.add(ch)
        groups.setdefault(suspect.commit, []).append(ch)
    for ch in _revert_candidates(session, settings, machine_id, commit.id, series, recorded,
                                 orders, names, screened | covered, run_id):
        groups.setdefault(ch.commit_id, []).append(ch)
    drifts = _drifts(settings, machine_id, commit.id, series, segment_start, flagged,
                     screened, run_id, now)
    session.add_all(drifts)
    session.flush()
    # The strongest evidence first: when the tag's rerun budget runs out, the weakest
    # candidates are the ones left unconfirmed (and weak ones never spend the reserve).
    ordered = sorted(groups.items(), key=lambda g: (not budget.is_strong(settings, g[1]),
                                                    min(ch.p_value or 1.0 for ch in g[1])))
    used = budget.spent(session, settings, machine.tag) if rule.confirm_runs > 0 else 0
    for suspect_id, group in ordered:
        parent_id = group[0].parent_commit_id
        assert parent_id is not None
        if rule.confirm_runs > 0 and not budget.grants(session, settings, machine.tag, group,
                                                       used):
            for ch in group:
                ch.state, ch.state_reason = "unconfirmed", budget.reason(settings, machine.tag)
            out.candidates.extend(ch.id for ch in group)
            continue
        runs = confirm.start(session, settings, group, suspect_id, parent_id, machine, suite)
        used += len(runs)
        out.runs.extend(runs)
        out.candidates.extend(ch.id for ch in group)
        if not runs:  # no reruns configured: decide on the screen alone
            res = confirm.evaluate(session, settings, group)
            out.confirmed.extend(res.confirmed)
            out.rejected.extend(res.rejected)
    exact_new = [ch for chs in recorded.values() for ch in chs
                 if ch.kind == "exact" and ch.commit_id == commit.id and ch.confirmed_at == now]
    if busy:
        for ch in exact_new:
            ch.evidence = {**ch.evidence, "speed": BUSY_NOTE}
    session.flush()
    revert.link(session, exact_new)
    out.confirmed.extend(ch.id for ch in exact_new)
    out.confirmed.extend(ch.id for ch in drifts)
    notify.enqueue(session, settings, out.confirmed)  # the outbox: with the changes
    session.commit()
    return out


def _ab_first(session: Session, settings: Settings, machine: Machine, commit: Commit,
              screens: list[tuple[AbRun, ab.Effects]], series: history.Series,
              names: dict[history.SeriesKey, str], recorded: dict[Key, list[Change]],
              orders: dict[int, int], run_id: int | None) -> tuple[list[Change], set[Key]]:
    """The commit's A/B candidates, each A/B run screening the effects it first measured
    (marked as reverts where they step back over a recent confirmed change), one confirming
    A/B requested per run that raised any; and the keys the A/B runs cover."""
    flagged = {key: {ch.commit_id for ch in chs} for key, chs in recorded.items()}
    candidates: list[Change] = []
    covered: set[Key] = set()
    for abrun, effects in screens:
        found, keys = ab.screen_commit(session, settings, machine, commit, abrun, effects,
                                       series, names, flagged, run_id)
        covered |= keys
        group = [ch for _, ch in found]
        for key, ch in found:
            earlier = _last_confirmed(recorded.get(key, []), orders, "speed")
            if earlier is not None and earlier.commit_id != ch.commit_id and \
                    np.sign(earlier.delta_pct) == -np.sign(ch.delta_pct) and revert.is_back(
                        earlier, ch.head_value, ch.min_effect_pct or 0):
                ch.evidence = {**ch.evidence, "reverts": earlier.id}
            recorded.setdefault(key, []).append(ch)
            flagged.setdefault(key, set()).add(ch.commit_id)
        if group:
            ab.request_confirmation(session, settings, group, machine, abrun)
        candidates += group
    return candidates, covered


def detect_ab(session: Session, settings: Settings, abrun: AbRun) -> Outcome:
    """An A/B run landed: screen its commit by the effects no earlier A/B run of the
    commit measured, when the commit's regular results are in (else detect_commit does it
    when they land)."""
    out = Outcome()
    commit = session.get(Commit, abrun.commit_id)
    machine = session.get(Machine, abrun.machine_id)
    assert commit is not None and machine is not None
    commits = history.recent_commits(session, machine.id, commit, 2)
    if not commits or commits[-1][0] != commit.id:
        return out
    earlier = [r for r in ab.usable_runs(session, machine.id, commit.id, ab.reference_ids(
        session, commit, commits[-2][0] if len(commits) >= 2 else None)) if r.id < abrun.id]
    screens = ab.first_covered(session, [*earlier, abrun])[-1:]
    if not screens[0][1]:  # everything it measured was screened by an earlier A/B run
        return out
    keys = history.series_of_commit(session, machine.id, commit.id)
    series = history.load_series(session, machine.id, commits, keys, regular_only=True,
                                 skip_busy=settings.detection_skip_busy_runs)
    recorded = history.recorded_changes(session, machine.id, keys)
    names = history.series_names(session, machine, keys)
    group, _ = _ab_first(session, settings, machine, commit, screens, series, names, recorded,
                         dict(commits), None)
    out.candidates.extend(ch.id for ch in group)
    session.commit()
    return out


def _pct(x: float) -> float | None:
    return None if x is None or not math.isfinite(x) else x * 100


def _below_minimum(ch: Change) -> bool:
    return ch.state == "rejected" and \
        ((ch.confirmation or {}).get("result") or {}).get("verdict") == "below_minimum"


Key = tuple[int, int, str, str]  # dataset, configuration, codec series, metric


def _last_confirmed(changes: list[Change], orders: dict[int, int], kind: str) -> Change | None:
    """The series' newest confirmed change of this kind inside the loaded history, if it
    was not reverted yet."""
    mine = [ch for ch in changes if ch.kind == kind and ch.state == "confirmed"
            and ch.commit_id in orders]
    last = max(mine, key=lambda ch: (orders[ch.commit_id], ch.id), default=None)
    return last if last is not None and last.reverted_by_id is None else None


def _revert_candidates(session: Session, settings: Settings, machine_id: int, commit_id: int,
                       series: dict[history.SeriesKey, SeriesCells],
                       recorded: dict[Key, list[Change]], orders: dict[int, int],
                       names: dict[history.SeriesKey, str], screened: set[Key],
                       run_id: int | None) -> list[Change]:
    """Candidates stepping back to the level before a recent confirmed speed change (too
    few points since it for the step tests), sent to reruns like any other."""
    rule = rule_for(settings)
    out = []
    for (ds, conf, cs), values in series.items():
        for metric in SPEED_METRICS:
            key = (ds, conf, cs, metric)
            changes = recorded.get(key)
            # (most series have no recorded change: nothing to step back over)
            if not changes or key in screened or any(ch.commit_id == commit_id
                                                     for ch in changes):
                continue
            last = _last_confirmed(changes, orders, "speed")
            if last is None:
                continue
            # the cells with runs since the change, read as arrays
            medians = values.medians(metric)
            seg = np.flatnonzero((values.orders >= orders[last.commit_id]) & ~np.isnan(medians))
            if not 2 <= seg.size <= revert.MAX_POINTS_SINCE \
                    or values.commit_ids[seg[0]] != last.commit_id \
                    or values.commit_ids[seg[-1]] != commit_id:
                continue
            since: list[float] = medians[seg[1:-1]].tolist()
            cur, parent = values[int(seg[-1])], values[int(seg[-2])]
            min_effect = history.min_effect(settings, names[(ds, conf, cs)], metric)
            hit = revert.candidate(last, since, cur.runs[metric], min_effect, rule)
            if hit is None:
                continue
            reference = revert.new_level_runs(last) + since
            fill_samples(session, machine_id, series, {cur.commit_id, parent.commit_id},
                         {(ds, conf, cs)})
            delta, p = _level(reference, cur.runs[metric], cur.samples[metric], rule)
            if not math.isfinite(p) or p > rule.screen_q:
                continue
            ch = Change(
                commit_id=commit_id, parent_commit_id=parent.commit_id, machine_id=machine_id,
                dataset_id=ds, configuration_id=conf, codec_set_id=cur.codec_set_id,
                metric=metric, kind="speed", test="revert",
                direction=direction(metric, delta * 100),
                base_value=float(np.median(reference)),
                head_value=float(np.median(cur.runs[metric])), delta_pct=delta * 100,
                p_value=p, min_effect_pct=min_effect, state="confirming",
                detected_run_id=run_id,
                evidence={"family_size": 1, "screen_candidates": 1, "screen_delta": delta,
                          "screen_p": p, "reverts": last.id, "old_level_delta_pct": hit[1] * 100,
                          "reference": reference,
                          "reference_commits": values.commit_ids[seg[:-1]].tolist(),
                          "suspect_runs": list(cur.runs[metric]),
                          "suspect_samples": list(cur.samples[metric]),
                          "parent_samples": list(parent.samples[metric]),
                          **attribution(settings, metric, parent, cur)})
            session.add(ch)
            recorded[key].append(ch)
            out.append(ch)
    return out


def _drifts(settings: Settings, machine_id: int, commit_id: int,
            series: dict[history.SeriesKey, SeriesCells],
            segment_start: Callable[[Key], int], flagged: Callable[[Key], set[int]],
            screened: set[Key], run_id: int | None, now: datetime) -> list[Change]:
    """Slow drifts over each series' current segment (drift.find_drift), confirmed at
    once: a hundred commits are their own evidence, no rerun would add to it."""
    todo: list[tuple[Key, SeriesCells, Any]] = []  # series, its cells, its segment
    for (ds, conf, cs), values in series.items():
        if values.commit_ids[-1] != commit_id:
            continue
        for metric in SPEED_METRICS:
            key = (ds, conf, cs, metric)
            if key in screened or commit_id in flagged(key):
                continue
            medians = values.medians(metric)
            if np.isnan(medians[-1]):  # the commit's own speeds are missing
                continue
            # the segment: the cells with runs from its start (read as arrays; the cells
            # themselves only when a drift is found)
            seg = values.with_runs(metric, segment_start(key))
            if seg.size >= drift.MIN_POINTS:
                todo.append((key, values, seg))
    window, min_pct = settings.detection_drift_window, settings.detection_drift_min_pct
    # Nearly every series stops at the first cut (the line's shift below the minimum):
    # that cut for all of them at once, find_drift only for the others.
    first_cut = drift.shifts([values.medians(key[3])[seg] for key, values, seg in todo], window)
    out = []
    for (key, values, seg), shift in zip(todo, first_cut.tolist(), strict=True):
        if not drift.may_pass(shift, min_pct):
            continue
        found = drift.find_drift(values.medians(key[3])[seg], min_pct, window)
        if found is None:
            continue
        ds, conf, _cs, metric = key
        out.append(Change(
            commit_id=commit_id, parent_commit_id=int(values.commit_ids[seg[found.start]]),
            machine_id=machine_id, dataset_id=ds, configuration_id=conf,
            codec_set_id=values[int(seg[-1])].codec_set_id,
            metric=metric, kind="drift", test="drift",
            direction=direction(metric, found.shift * 100), base_value=found.first,
            head_value=found.last, delta_pct=found.shift * 100, p_value=found.p_value,
            min_effect_pct=min_pct, state="confirmed",
            confirmed_at=now, detected_run_id=run_id,
            evidence={"rule": "drift: a line through the segment's run medians fits at "
                              "least as well as its best single step, its shift passes "
                              "the drift minimum and its slope is significant",
                      "commits": int(seg.size) - found.start,
                      "slope_pct_per_commit": math.expm1(found.slope) * 100}))
    return out


def _level(reference: list[float], runs: list[float], samples: list[float],
           rule: SpeedRule) -> tuple[float, float]:
    lt = level_test(np.log(np.asarray([reference], dtype=float)),
                    np.log(np.asarray([runs], dtype=float)), within_se([samples]),
                    rule.scale_floor, successive=False)
    return float(lt.delta[0]), float(lt.p[0])


def _fluke(ch: Change) -> bool:
    return ch.kind == "speed" and ch.state == "rejected" and \
        ((ch.confirmation or {}).get("result") or {}).get("verdict") == "rejected"


def _busy_only(series: dict[history.SeriesKey, SeriesCells], commit_id: int) -> bool:
    """The commit was measured, but only by runs on a busy machine (no speeds kept)."""
    mine = [values for values in series.values() if values.commit_ids[-1] == commit_id]
    # a newest cell with a speed run answers it without making any cell
    if not mine or any(values.has_runs(len(values) - 1) for values in mine):
        return False
    return all(v.busy_runs and not v.runs for v in (values[-1] for values in mine))


def attribution(settings: Settings, metric: str, parent: history.CommitValues,
                suspect: history.CommitValues) -> dict[str, str | float | None]:
    """What a speed candidate is, by the counts of the same operation at its two commits:
    code when they moved, probably the machine when they did not (evidence keys)."""
    verdict = attribute_speed_change(metric, parent.count_medians(), suspect.count_medians(),
                                     threshold_percent=settings.detection_count_threshold)
    return {"attribution": verdict.attribution, "attribution_reason": verdict.reason,
            "count_threshold_pct": settings.detection_count_threshold}


def _count_changes(settings: Settings, machine_id: int, commit_id: int,
                   series: dict[history.SeriesKey, SeriesCells],
                   flagged: Callable[[Key], set[int]], run_id: int | None,
                   now: datetime) -> list[tuple[Key, Change]]:
    """Count metrics of this commit that moved beyond the threshold against the newest
    earlier commit counted on the same series: confirmed at once, no reruns (valgrind counts
    the same code on the same corpus to the instruction, whatever the machine does)."""
    out = []
    threshold = settings.detection_count_threshold
    for (ds, conf, cs), values in series.items():
        if values.commit_ids[-1] != commit_id or not values.counted(len(values) - 1):
            continue
        cur = values[-1]
        after = cur.count_medians()
        for metric in after:
            if commit_id in flagged((ds, conf, cs, metric)):
                continue
            # the newest earlier commit counted (read backwards: usually the one before)
            prev = next((values[j] for j in range(len(values) - 2, -1, -1)
                         if values[j].counts.get(metric)), None)
            if prev is None:
                continue
            for found in count_changes({metric: prev.count_medians()[metric]},
                                       {metric: after[metric]}, threshold):
                delta = found.percent
                out.append(((ds, conf, cs, metric), Change(
                    commit_id=commit_id, parent_commit_id=prev.commit_id, machine_id=machine_id,
                    dataset_id=ds, configuration_id=conf, codec_set_id=cur.codec_set_id,
                    metric=metric, kind="exact", test="count",
                    direction=direction(metric, delta), base_value=found.before,
                    head_value=found.after, delta_pct=delta if math.isfinite(delta) else 1e9,
                    state="confirmed", confirmed_at=now, detected_run_id=run_id,
                    min_effect_pct=threshold,
                    evidence={"rule": f"count: instructions counted under valgrind are "
                                      f"deterministic, a move beyond {threshold:g} % is a "
                                      f"change of the code, from one run",
                              "threshold_pct": threshold})))
    return out
