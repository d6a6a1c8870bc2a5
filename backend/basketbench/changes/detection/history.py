"""Loading a machine's recent history for detection: per series, the measured commits
in git order (with every run's median and samples), and the changes already recorded.

A series is grouped like analysis.history shows it: dataset x configuration x codec
series (results/codec_sets.series_keys), so a host codec upgrade starts a new series and is
never compared with the old versions' values."""

from __future__ import annotations

import fnmatch
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, case, or_, select
from sqlalchemy.orm import Session

from basketbench.catalog import dimensions
from basketbench.changes.detection.common import RERUN_TRIGGERS
from basketbench.core.config import Settings
from basketbench.models import Change, Commit, Machine, Result, Run
from basketbench.models.result import ResultDocument
from basketbench.results.codec_sets import series_keys
from basketbench.stats.engine import run_median

HISTORY_COMMITS = 61  # the newest commit and 60 before it: window + e-divisive
SeriesKey = tuple[int, int, str]  # dataset_id, configuration_id, codec series key


@dataclass(slots=True)
class CommitValues:
    """One commit of one series: exact values and every run's speed medians/samples."""

    commit_id: int
    order: int
    codec_set_id: int | None = None  # varies along a builtin series (the commit pins it)
    ratio: float | None = None
    compressed_bytes: float | None = None
    runs: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    samples: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    samples_loaded: bool = True  # False: left out by load_series(samples_of=...)
    # Instruction counts per uncompressed MB of each counted run (stats/counts.py)
    counts: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # Runs measured on a busy machine (the document's load.busy): the screen leaves their
    # speeds out, their sizes and counts stay (valgrind counts the same whatever runs beside).
    busy_runs: int = 0

    def median(self, metric: str) -> float:
        """The median of this commit's runs of a speed metric (runs must be non-empty),
        as the screen's points take it (np.median per point was half a pass's CPU)."""
        return run_median(self.runs[metric])

    def count_medians(self) -> dict[str, float | None]:
        return {m: float(np.median(v)) if v else None for m, v in self.counts.items()}


# A machine's series in a pass: each series' values, oldest first (a list, or the window's
# cells.SeriesCells, which make each CommitValues when read).
Series = Mapping[SeriesKey, Sequence[CommitValues]]


def regular_document() -> ColumnElement[bool]:
    """A document not of a rerun (confirmation or bisection): asked of the run by its key,
    so the runs table is not scanned for its reruns on every read (it grows with the
    history)."""
    rerun = select(Run.id).where(Run.id == ResultDocument.run_id,
                                 Run.trigger.in_(RERUN_TRIGGERS))
    return or_(ResultDocument.run_id.is_(None), ~rerun.exists())


def recent_commits(session: Session, machine_id: int, commit: Commit,
                   limit: int = HISTORY_COMMITS) -> list[tuple[int, int]]:
    """(commit id, order) of the commits measured on this machine version by regular
    runs up to ``commit`` in git order, oldest first: the repository's commits walked
    back from ``commit`` along the git-order index, each asked for a regular document of
    the machine, until ``limit`` are found. Its cost is the window's, not the history's
    (a join of all the machine's documents with all commits took 4-6 ms at 2 000 commits
    and grew with them)."""
    measured = (select(ResultDocument.id)
                .where(ResultDocument.commit_id == Commit.id,
                       ResultDocument.machine_id == machine_id, regular_document()))
    rows = session.execute(
        select(Commit.id, Commit.order)
        .where(Commit.repository_id == commit.repository_id, Commit.order <= commit.order,
               measured.exists())
        .order_by(Commit.order.desc(), Commit.id.desc()).limit(limit)).all()
    return [(int(r[0]), int(r[1])) for r in reversed(rows)]


def series_of_commit(session: Session, machine_id: int, commit_id: int) -> set[SeriesKey]:
    """The series this machine version measured at this commit."""
    rows = session.connection().execute(
        select(Result.dataset_id, Result.configuration_id, Result.codec_set_id).distinct()
        .where(Result.machine_id == machine_id, Result.commit_id == commit_id,
               Result.roundtrip_ok.is_(True))).all()
    codec_series = series_keys(session, {r[2] for r in rows})
    return {(ds, conf, codec_series[set_id]) for ds, conf, set_id in rows}


def load_series(session: Session, machine_id: int, commits: list[tuple[int, int]],
                keys: set[SeriesKey] | None = None,
                run_ids: set[int] | None = None,
                samples_of: set[int] | None = None,
                regular_only: bool = False,
                skip_busy: bool = True) -> dict[SeriesKey, list[CommitValues]]:
    """Per series, the given commits' values in the given order (commits without a
    result for the series are left out). ``run_ids`` restricts to those runs;
    ``samples_of``: the commits whose samples to load (default all; cells.fill_samples adds
    others later). The JSON sample arrays are most of what a detection pass reads.
    ``regular_only``: leave out the runs of confirmations and bisections (what a screen
    reads: merging reruns into a commit's point narrowed the reference's spread and fed
    more candidates, issue 27), and without the speeds of runs on a busy machine (their
    documents' ``busy``; sizes and instruction counts stay: issue 23) unless ``skip_busy``
    is off (settings.detection_skip_busy_runs)."""
    order = {cid: o for cid, o in commits}
    c_samples: Any = Result.c_samples
    d_samples: Any = Result.d_samples
    if samples_of is not None:
        of = Result.commit_id.in_(samples_of or {-1})
        c_samples, d_samples = case((of, c_samples)), case((of, d_samples))
    stmt = select(Result.dataset_id, Result.configuration_id, Result.codec_set_id,
                  Result.commit_id, Result.ratio,
                  Result.compressed_bytes, Result.c_median, Result.d_median, c_samples,
                  d_samples, Result.c_instructions_per_mb, Result.d_instructions_per_mb,
                  Result.document_id).where(Result.machine_id == machine_id,
                                   Result.commit_id.in_(order),
                                   Result.roundtrip_ok.is_(True))
    if run_ids is not None:
        stmt = stmt.where(Result.run_id.in_(run_ids))
    if regular_only:
        reruns = select(Run.id).where(Run.trigger.in_(RERUN_TRIGGERS))
        stmt = stmt.where(or_(Result.run_id.is_(None), Result.run_id.not_in(reruns)))
    skipping = regular_only and skip_busy
    if skipping:  # the document's busy flag with each row: no second statement
        stmt = stmt.add_columns(ResultDocument.busy).join(
            ResultDocument, ResultDocument.id == Result.document_id)
    if keys is not None and len(keys) < 500:
        stmt = stmt.where(Result.dataset_id.in_({k[0] for k in keys}),
                          Result.configuration_id.in_({k[1] for k in keys}))
    # Core execution: plain row tuples (tens of thousands per pass), no ORM row processing.
    # In document order: a commit's runs and samples in the order of their documents, as
    # points.load_window lists them (the bootstrap interval draws from the samples' order).
    rows = session.connection().execute(stmt.order_by(Result.document_id, Result.id)).all()
    codec_series = series_keys(session, {r[2] for r in rows})
    out: dict[SeriesKey, dict[int, CommitValues]] = defaultdict(dict)
    for ds, conf, set_id, cid, ratio, cbytes, cmed, dmed, csamp, dsamp, cic, dic, _doc, \
            *busy in rows:
        key = (ds, conf, codec_series[set_id])
        if keys is not None and key not in keys:
            continue
        cv = out[key].get(cid)
        if cv is None:
            cv = out[key][cid] = CommitValues(cid, order[cid], set_id)
            cv.samples_loaded = samples_of is None or cid in samples_of
        cv.ratio = ratio if ratio is not None else cv.ratio
        cv.compressed_bytes = float(cbytes) if cbytes is not None else cv.compressed_bytes
        for metric, count in (("compress_instructions_per_mb", cic),
                              ("decompress_instructions_per_mb", dic)):
            if count is not None and count > 0:
                cv.counts[metric].append(float(count))
        if skipping and busy[0]:
            cv.busy_runs += 1
            continue
        for metric, median, samples in (("compress_mbps", cmed, csamp),
                                        ("decompress_mbps", dmed, dsamp)):
            if median is not None and median > 0:
                cv.runs[metric].append(float(median))
                cv.samples[metric].extend(float(x) for x in (samples or []) if x and x > 0)
    return {k: sorted(v.values(), key=lambda c: (c.order, c.commit_id)) for k, v in out.items()}


def change_series(session: Session, changes: list[Change]) -> dict[int, SeriesKey]:
    """The series of each change, by change id."""
    codec_series = series_keys(session, {ch.codec_set_id for ch in changes})
    return {ch.id: (ch.dataset_id, ch.configuration_id, codec_series[ch.codec_set_id])
            for ch in changes}


def recorded_changes(session: Session, machine_id: int, keys: set[SeriesKey],
                     commit_ids: Collection[int] | None = None,
                     ) -> dict[tuple[int, int, str, str], list[Change]]:
    """Changes already recorded on these series of this machine version, per
    (dataset, configuration, codec series, metric); at these commits only, when given.

    A pass gives its window's commits: every rule reads the records of the commits it
    loaded (segment starts, flags, flukes, the confirmed change a revert steps back over),
    and a record of an older commit changes none of its answers (a segment start before
    the window is the window's start). Without that, a pass read every change ever
    recorded on the machine's series: a cost that grew with the history."""
    out: dict[tuple[int, int, str, str], list[Change]] = defaultdict(list)
    if not keys:
        return out
    where = [Change.machine_id == machine_id,
             Change.dataset_id.in_({k[0] for k in keys}),
             Change.configuration_id.in_({k[1] for k in keys})]
    if commit_ids is not None:
        where.append(Change.commit_id.in_(list(commit_ids)))
    changes = list(session.scalars(select(Change).where(*where)))
    of = change_series(session, changes)
    for ch in changes:
        out[(*of[ch.id], ch.metric)].append(ch)
    return out


def series_names(session: Session, machine: Machine, keys: set[SeriesKey]
                 ) -> dict[SeriesKey, str]:
    """``tag/dataset/label`` per series, for the min-effect patterns and messages. Names
    and labels come from the process's cache of rows that never change (a pass names
    ~900 series: loading their configurations as ORM objects was ~5 % of it)."""
    ds = dimensions.dataset_names(session, {k[0] for k in keys})
    labels = {i: c.label for i, c in dimensions.configurations(
        session, {k[1] for k in keys}).items()}
    return {k: f"{machine.tag}/{ds.get(k[0], k[0])}/{labels.get(k[1], k[1])}" for k in keys}


def min_effect(settings: Settings, name: str, metric: str) -> float:
    if not settings.detection_min_effect:  # (the default: asked of every series of a pass)
        return settings.detection_default_min_effect
    full = f"{name}/{metric}"
    for pattern, pct in settings.detection_min_effect.items():
        if fnmatch.fnmatchcase(full, pattern):
            return float(pct)
    return settings.detection_default_min_effect
