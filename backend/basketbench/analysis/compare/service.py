"""Compare: per-series deltas between two commits on one machine, or two machines at one
commit, in one codec series; sizes are exact, speeds are judged only by their evidence
(evidence.py: an interleaved A/B of the two builds, instruction counts, or no verdict)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from basketbench.analysis.compare import evidence, view
from basketbench.analysis.compare.request import CompareRequest
from basketbench.analysis.compare.result import CompareResult, Mode
from basketbench.analysis.compare.rows import compare_rows
from basketbench.analysis.compare.sides import load_side
from basketbench.analysis.schemas import CompareSide
from basketbench.analysis.series import CodecChoice, commit_series_index
from basketbench.catalog import dimensions as dimcache
from basketbench.catalog.lookup import CommitRef, get_commit_ref, get_dataset_ref, get_machine_ref
from basketbench.core.config import Settings
from basketbench.core.errors import BadRequest
from basketbench.models.result import SPEED_METRICS
from basketbench.results import provenance
from basketbench.schemas.refs import MachineRef
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
    ds_id = get_dataset_ref(session, request.dataset)[0] if request.dataset else None
    base_choice, head_choice, in_both = _codec_series(session, request.codecs, cb, mb, ch, mh)
    base = load_side(session, cb.id, mb.id, ds_id, metrics, base_choice.ids)
    head = load_side(session, ch.id, mh.id, ds_id, metrics, head_choice.ids)
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
    # Builds and busy flags of both sides in one query (a side's pair may be the other's).
    known = provenance.sides_provenance(session, {(mb.id, cb.id): base_choice.ids,
                                                  (mh.id, ch.id): head_choice.ids})
    return CompareResult(
        total=total, offset=offset, counts=counted, rule=applied,
        base=_compare_side(cb, mb, base_choice, *known[(mb.id, cb.id)]),
        head=_compare_side(ch, mh, head_choice, *known[(mh.id, ch.id)]),
        rows=rows, mode=mode, codec_series=in_both, ab=ab.run)


def _pair(session: Session, request: CompareRequest
          ) -> tuple[Mode, MachineRef, MachineRef, CommitRef, CommitRef]:
    """The mode, then the base and head machines and commits (looked up in this order),
    their identity columns only."""
    r = request
    if r.base_commit and r.head_commit and r.machine:
        m = get_machine_ref(session, r.machine)
        return ("commits", m, m, get_commit_ref(session, r.base_commit),
                get_commit_ref(session, r.head_commit))
    if r.base_machine and r.head_machine and r.commit:
        mb = get_machine_ref(session, r.base_machine)
        mh = get_machine_ref(session, r.head_machine)
        c = get_commit_ref(session, r.commit)
        return "machines", mb, mh, c, c
    raise BadRequest("give base_commit+head_commit+machine or "
                     "base_machine+head_machine+commit")


def _codec_series(session: Session, codecs: str | None, cb: CommitRef, mb: MachineRef,
                  ch: CommitRef, mh: MachineRef,
                  ) -> tuple[CodecChoice, CodecChoice, list[dict[str, Any]]]:
    """Both sides in one codec series (builtin: whatever versions each commit pins): the
    requested one, else the newest both have. With none in common each side shows its own
    newest series, and the series in both (the third value) is empty, which the dashboard
    names. Returns (base's choice, head's choice, series in both)."""
    head_series = commit_series_index(session, ch.id, ch.order, mh.id)
    base_series = commit_series_index(session, cb.id, cb.order, mb.id)
    common = [k for k in head_series.keys_newest_first() if k in base_series.ids]
    wanted = codecs if codecs is not None else (common[0] if common else None)
    head_choice = head_series.pick(wanted)
    base_choice = base_series.pick(wanted)
    in_both = [{**s, "commits": len({cb.id, ch.id})}
               for s in head_series.available(first=base_series)
               if s["series_key"] in base_series.ids]
    return base_choice, head_choice, in_both


def _compare_side(commit: CommitRef, machine: MachineRef, choice: CodecChoice,
                  builds: list[dict[str, Any]], busy: bool | None) -> CompareSide:
    return CompareSide(commit=commit.sha, machine=machine, codecs=choice.shown,
                       builds=builds, busy=busy)
