"""Codec series: which series some results were measured in, how far each reaches in git
order, and which one an answer shows (history, tradeoff, compare, GET /codec-series).
Series never mix: a host upgrade or another named set is another series, not a change of
ROOT."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_machine
from basketbench.core.errors import NotFound
from basketbench.core.sqlutil import plain_rows
from basketbench.models import Commit, Result, ResultDocument
from basketbench.results import codec_sets as codec_service


@dataclass
class CodecChoice:
    """The codec series a history / comparison shows, and the ones it could show."""

    ids: list[int | None]
    shown: dict[str, Any] | None
    available: list[dict[str, Any]]


@dataclass
class SeriesIndex:
    """The codec series among some results: their set ids, and where each reaches in git
    order (newest and oldest set, commits measured)."""

    ids: dict[str, list[int | None]]
    newest: dict[str, tuple[int, int | None]]  # (git order, set id) of the newest commit
    oldest: dict[str, tuple[int, int | None]]
    commits: dict[str, int]
    described: dict[int, dict[str, Any]]

    def newest_set(self, key: str) -> dict[str, Any] | None:
        set_id = self.newest[key][1]
        return None if set_id is None else self.described[set_id]

    def keys_newest_first(self) -> list[str]:
        return sorted(self.ids, key=lambda k: -self.newest[k][0])

    def pick(self, requested: str | None) -> CodecChoice:
        """The requested series (a series key or a set name), else the newest commit's."""
        if not self.ids:
            return CodecChoice([], None, [])
        if requested is None:
            key = max(self.ids, key=lambda k: self.newest[k][0])
        else:
            keys = [k for k in self.ids if k == requested
                    or (self.newest_set(k) or {}).get("set") == requested]
            if not keys:
                raise NotFound(f"no results measured with codec set {requested!r} here; "
                               f"available: {sorted(self.ids)}")
            key = max(keys, key=lambda k: self.newest[k][0])
        return CodecChoice(self.ids[key], self.newest_set(key), self.available())

    def available(self, first: SeriesIndex | None = None) -> list[dict[str, Any]]:
        """Every series with a codec set, newest first (CodecSeriesOut); `first` names whose
        oldest versions to show (compare: the base side's), default this index's own."""
        out = []
        for key in self.keys_newest_first():
            shown = self.newest_set(key)
            if shown is None:
                continue
            src = first if first is not None and key in first.ids else self
            oldest_id = src.oldest[key][1]
            oldest = src.described.get(oldest_id) if oldest_id is not None else None
            out.append({**shown, "commits": self.commits[key],
                        "first_libraries": (oldest or shown)["libraries"],
                        "first_root_version": (oldest or shown)["root_version"],
                        "latest_commits": []})
        return out


def series_index(session: Session, where: list[Any]) -> SeriesIndex:
    """Group the results matching `where` by codec series."""
    rows = session.execute(
        select(Result.codec_set_id, func.max(Commit.order), func.min(Commit.order),
               func.count(func.distinct(Result.commit_id)))
        .join(Commit, Commit.id == Result.commit_id).where(*where)
        .group_by(Result.codec_set_id)).all()
    return index_of(session, [tuple(r) for r in rows])


def index_of(session: Session, rows: list[tuple[Any, ...]]) -> SeriesIndex:
    """rows: (codec set id, newest git order, oldest git order, commits)."""
    described = codec_service.describe(session, {r[0] for r in rows if r[0] is not None})
    keys_of = codec_service.series_keys(session, [r[0] for r in rows])
    index = SeriesIndex(defaultdict(list), {}, {}, defaultdict(int), described)
    for set_id, hi, lo, commits in rows:
        key = keys_of[set_id]
        index.ids[key].append(set_id)
        index.commits[key] += int(commits)
        if key not in index.newest or (hi or 0) > index.newest[key][0]:
            index.newest[key] = (hi or 0, set_id)
        if key not in index.oldest or (lo or 0) < index.oldest[key][0]:
            index.oldest[key] = (lo or 0, set_id)
    return index


@lru_cache(maxsize=1)
def _commit_sets_statement() -> Any:
    return (select(Result.codec_set_id).distinct()
            .where(Result.commit_id == bindparam("commit_id"),
                   Result.machine_id == bindparam("machine_id")))


def commit_series_index(session: Session, commit_id: int, order: int, machine_id: int
                        ) -> SeriesIndex:
    """series_index of one commit's results on one machine: each of its codec sets
    reaches from the commit's git order to itself (no join with commits), in set order."""
    found = {row[0] for row in plain_rows(session, _commit_sets_statement(),
                                          {"commit_id": commit_id, "machine_id": machine_id})}
    return index_of(session, commit_set_rows(found, order))


def commit_set_rows(set_ids: Iterable[int | None], order: int
                    ) -> list[tuple[int | None, int, int, int]]:
    """index_of's rows for the codec sets of one commit at git order ``order``: legacy
    (None) first, then by id."""
    return [(s, order, order, 1)
            for s in sorted(set(set_ids), key=lambda s: (s is not None, s or 0))]


def machine_codec_series(session: Session, machine: str, latest: int = 2) -> list[dict[str, Any]]:
    """Every codec series a machine measured, newest first, each with its newest commits
    (CodecSeriesOut): compare's default pair is the two newest of one series. From the
    small documents table, not the results."""
    m = get_machine(session, machine)
    rows = session.execute(
        select(ResultDocument.codec_set_id, func.max(Commit.order), func.min(Commit.order),
               func.count(func.distinct(ResultDocument.commit_id)))
        .join(Commit, Commit.id == ResultDocument.commit_id)
        .where(ResultDocument.machine_id == m.id)
        .group_by(ResultDocument.codec_set_id)).all()
    index = index_of(session, [tuple(r) for r in rows])
    out = index.available()
    for series in out:
        ids = [i for i in index.ids[series["series_key"]] if i is not None]
        shas = session.execute(
            select(Commit.sha, func.max(Commit.order))
            .join(ResultDocument, ResultDocument.commit_id == Commit.id)
            .where(ResultDocument.machine_id == m.id, ResultDocument.codec_set_id.in_(ids))
            .group_by(Commit.sha).order_by(func.max(Commit.order).desc()).limit(latest))
        series["latest_commits"] = [sha for sha, _ in shas]
    return out
