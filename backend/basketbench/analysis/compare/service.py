"""Compare: per-series deltas between two commits on one machine, or two machines at one
commit, in one codec series; sizes are exact, speeds are judged only by their evidence
(evidence.py: an interleaved A/B of the two builds, instruction counts, or no verdict)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Integer, cast, func, select
from sqlalchemy.orm import Session

from basketbench.analysis.compare import evidence, view
from basketbench.analysis.compare.request import CompareRequest
from basketbench.analysis.compare.result import CompareResult, Mode
from basketbench.analysis.compare.rows import compare_rows
from basketbench.analysis.compare.sides import load_side
from basketbench.analysis.schemas import CompareSide
from basketbench.analysis.series import CodecChoice, series_index
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import get_commit, get_dataset, get_machine
from basketbench.catalog.service import machine_ref
from basketbench.core.config import Settings
from basketbench.core.errors import BadRequest
from basketbench.models import Commit, Machine, Result, ResultDocument
from basketbench.models.result import SPEED_METRICS
from basketbench.results import provenance
from basketbench.stats.counts import DEFAULT_THRESHOLD_PERCENT
from basketbench.stats.deltas import MIN_EFFECT_PCT


def compare(session: Session, request: CompareRequest,
            settings: Settings | None = None) -> CompareResult:
    """The comparison ``request`` asks for (shaped like schemas.analysis.CompareOut).

    ``merged``, ``order``, ``limit`` and ``offset`` shape what is shown (view.py);
    ``total`` and ``counts`` are over every row, not the page.

    Speed rows get a verdict only from evidence (evidence.py): an interleaved A/B of the two
    commits on this machine (its interval excludes 1 and the effect reaches the series'
    minimum effect), else the instruction counts of both sides; two runs measured at
    different times alone get none (``significant`` false)."""
    metrics = request.metrics()
    mode, mb, mh, cb, ch = _pair(session, request)
    ds_id = get_dataset(session, request.dataset).id if request.dataset else None
    base_choice, head_choice, in_both = _codec_series(session, request.codecs, cb, mb, ch, mh)
    base = load_side(session, cb.id, mb.id, ds_id, metrics, base_choice.clause())
    head = load_side(session, ch.id, mh.id, ds_id, metrics, head_choice.clause())
    keys = sorted(base.keys() & head.keys())
    conf_outs = dimcache.configurations(session, {k[1] for k in keys})
    names = dimcache.dataset_names(session, {k[0] for k in keys})
    count_threshold = (settings.detection_count_threshold if settings
                       else DEFAULT_THRESHOLD_PERCENT)
    commits_mode = mode == "commits"
    wants_speed = any(met in SPEED_METRICS for met in metrics)
    ab = (evidence.load_ab(session, mb.id, cb.id, ch.id, ds_id)
          if commits_mode and wants_speed and keys else evidence.AbEvidence())
    rows = compare_rows(
        base, head, keys, metrics, names,
        {cid: c.model_dump() for cid, c in conf_outs.items()}, ab,
        evidence.min_effect_of(settings, mb.tag), counts_apply=commits_mode,
        count_threshold=count_threshold, setting=request.setting,
        only_significant=request.only_significant)
    if request.merged:
        rows = view.merge_sizes(rows)
    if request.order is not None:
        rows = view.arrange(rows, request.order)
    total = len(rows)
    counted = view.counts(rows)
    evidenced = view.evidence_counts(rows)
    limit, offset = request.limit, request.offset
    if limit is not None or offset:
        rows = rows[offset:offset + limit if limit is not None else None]
    applied = view.rule(
        settings.detection_default_min_effect if settings else MIN_EFFECT_PCT,
        settings.detection_min_effect if settings else {}, count_threshold,
        machines=not commits_mode, evidence=evidenced)
    return CompareResult(
        total=total, offset=offset, counts=counted, rule=applied,
        base=_compare_side(session, cb, mb, base_choice),
        head=_compare_side(session, ch, mh, head_choice),
        rows=rows, mode=mode, codec_series=in_both, ab=ab.run)


def _pair(session: Session, request: CompareRequest
          ) -> tuple[Mode, Machine, Machine, Commit, Commit]:
    """The mode, then the base and head machines and commits (looked up in this order)."""
    r = request
    if r.base_commit and r.head_commit and r.machine:
        m = get_machine(session, r.machine)
        return ("commits", m, m, get_commit(session, r.base_commit),
                get_commit(session, r.head_commit))
    if r.base_machine and r.head_machine and r.commit:
        mb, mh = get_machine(session, r.base_machine), get_machine(session, r.head_machine)
        c = get_commit(session, r.commit)
        return "machines", mb, mh, c, c
    raise BadRequest("give base_commit+head_commit+machine or "
                     "base_machine+head_machine+commit")


def _codec_series(session: Session, codecs: str | None, cb: Commit, mb: Machine, ch: Commit,
                  mh: Machine) -> tuple[CodecChoice, CodecChoice, list[dict[str, Any]]]:
    """Both sides in one codec series (builtin: whatever versions each commit pins): the
    requested one, else the newest both have. With none in common each side shows its own
    newest series, and the series in both (the third value) is empty, which the dashboard
    names. Returns (base's choice, head's choice, series in both)."""
    head_series = series_index(session, [Result.commit_id == ch.id, Result.machine_id == mh.id])
    base_series = series_index(session, [Result.commit_id == cb.id, Result.machine_id == mb.id])
    common = [k for k in head_series.keys_newest_first() if k in base_series.ids]
    wanted = codecs if codecs is not None else (common[0] if common else None)
    head_choice = head_series.pick(wanted)
    base_choice = base_series.pick(wanted)
    in_both = [{**s, "commits": len({cb.id, ch.id})}
               for s in head_series.available(first=base_series)
               if s["series_key"] in base_series.ids]
    return base_choice, head_choice, in_both


def _compare_side(session: Session, commit: Commit, machine: Machine,
                  choice: CodecChoice) -> CompareSide:
    return CompareSide(
        commit=commit.sha, machine=machine_ref(machine), codecs=choice.shown,
        builds=provenance.builds_of_side(session, machine.id, commit.id, choice.ids),
        busy=_busy(session, commit.id, machine.id))


def _busy(session: Session, commit_id: int, machine_id: int) -> bool | None:
    """Whether any document of this commit and machine was measured on a busy machine."""
    flag = session.scalar(select(func.max(cast(ResultDocument.busy, Integer))).where(
        ResultDocument.commit_id == commit_id, ResultDocument.machine_id == machine_id))
    return None if flag is None else bool(flag)
