"""Dialect-neutral helpers (PostgreSQL and SQLite)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Select, Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

# Queries with differing column tuples pass through the same pagination helpers.
AnySelect = Select[*tuple[Any, ...]]


def insert_ignore(session: Session, table: Table, rows: Sequence[dict[str, Any]],
                  conflict: Sequence[str]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING: concurrent ingests may race on the same row."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    module: Any = postgresql if dialect == "postgresql" else sqlite
    stmt = module.insert(table).on_conflict_do_nothing(index_elements=list(conflict))
    session.execute(stmt, list(rows))
