"""Per-engine cache of what a history point shows of its commit: sha, date, author and
the message's first line.

Commits are not immutable (a webhook fills in the author of a commit first seen by
ingest, a late parent moves it), so every entry is checked against the row's version as
PostgreSQL gives it with each query: the system column ``xmin``, the transaction that
wrote the row's current version. Any update writes a new row version with a new
``xmin``, so an entry whose ``xmin`` still matches is the row as stored. History fetches
ids, orders and versions with its aggregates and reads the text columns only for the
commits it has not seen (or that changed): decoding 2 000 shas, dates, authors and
messages was about 40 % of a history request's database round trip.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import ColumnElement, bindparam, literal_column, null, select
from sqlalchemy.orm import Session

from basketbench.core.db import engine_of
from basketbench.core.engine_cache import PerEngine, VersionedLru
from basketbench.models import Commit

# Commits kept per engine (those used longest ago dropped first, core/engine_cache.py): about
# 500 bytes each (tracemalloc), so at most ~50 MB per API process.
MAX_ENTRIES = 100_000


def version_column(dialect: str) -> ColumnElement[Any]:
    """The row version to select with commits: PostgreSQL's xmin (4 bytes, compared as it
    comes); SQLite has none (NULL: nothing is cached there)."""
    return literal_column("commits.xmin") if dialect == "postgresql" else null()


class CommitHead(NamedTuple):
    sha: str
    date: datetime | None
    author: str | None
    message: str | None  # the first line, at most 200 characters


def first_line(message: str | None) -> str | None:
    if not message:
        return None
    if len(message) <= 200 and "\n" not in message:
        return message
    return message.split("\n", 1)[0][:200] or None


def head_of(sha: str, date: datetime | None, author: str | None,
            message: str | None) -> CommitHead:
    return CommitHead(sha, date, author, first_line(message))


caches: PerEngine[VersionedLru[int, CommitHead]] = PerEngine(
    lambda: VersionedLru(MAX_ENTRIES))
_READ = {dialect: select(Commit.id, version_column(dialect), Commit.sha, Commit.date,
                         Commit.author, Commit.message)
         .where(Commit.id.in_(bindparam("ids", expanding=True)))
         for dialect in ("postgresql", "sqlite")}
# Rows read per query when filling the cache (bounded statements).
CHUNK = 5_000


def heads(session: Session, versions: Iterable[tuple[int, object]]) -> dict[int, CommitHead]:
    """The heads of commits given as (id, row version) pairs, read from the database for
    those not cached at that version. A commit deleted meanwhile is left out."""
    engine = engine_of(session)
    dialect = engine.dialect.name
    # SQLite has no row versions: nothing is cached there and every head is read.
    cache = caches.of(engine) if dialect == "postgresql" else None
    if cache is not None:
        out, stale = cache.get_many(versions)
    else:
        out, stale = {}, [commit_id for commit_id, _version in versions]
    for start in range(0, len(stale), CHUNK):
        rows = session.connection().execute(_READ[dialect], {"ids": stale[start:start + CHUNK]})
        fresh = [(cid, version, head_of(sha, date, author, message))
                 for cid, version, sha, date, author, message in rows]
        out.update((cid, head) for cid, _version, head in fresh)
        if cache is not None:
            cache.put_many(fresh)
    return out
