"""Dialect-neutral helpers (PostgreSQL and SQLite)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from sqlalchemy import Select, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

# Queries with differing column tuples pass through the same pagination helpers.
AnySelect = Select[*tuple[Any, ...]]
T = TypeVar("T")

# `column.in_(values)` sends one bind parameter per value; drivers refuse a statement with
# more than 65 535 (psycopg, PostgreSQL's protocol) or 32 766 (SQLite's default): a list
# of ids a request may carry (up to 100 000) goes in pieces of this many, each piece well
# under both limits with room for the statement's other parameters.
IN_CHUNK = 10_000


def chunked(values: Sequence[T], size: int = IN_CHUNK) -> Iterator[Sequence[T]]:
    """``values`` in consecutive pieces of at most ``size`` (for IN lists)."""
    for start in range(0, len(values), size):
        yield values[start:start + size]


def insert_ignore(session: Session, table: Table, rows: Sequence[dict[str, Any]],
                  conflict: Sequence[str]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING: concurrent ingests may race on the same row."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    module: Any = postgresql if dialect == "postgresql" else sqlite
    stmt = module.insert(table).on_conflict_do_nothing(index_elements=list(conflict))
    session.execute(stmt, list(rows))


def plain_rows(session: Session, stmt: Any, params: dict[str, Any] | None = None
               ) -> list[tuple[Any, ...]]:
    """All rows of a Core statement as the driver's tuples. SQLAlchemy executes (events,
    error handling, the statement guard); the rows come from its DBAPI cursor rather than
    wrapped in Row objects one by one: ~0.6 us a row, which thousands of rows per request
    (history points, compare sides) paid for nothing. Only for columns without result
    processing (ints, floats, text): what the driver gives is what the type gives."""
    result = session.connection().execute(stmt, params or {})
    try:
        return list(result.cursor.fetchall())
    finally:
        result.close()
