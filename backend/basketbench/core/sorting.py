"""Server-side sorting of list endpoints: `sort=key` ascending, `sort=-key` descending.

Lists are sorted over every matching row before the page is cut, so page 1 of a sorted
list really holds the first rows (nulls last in both directions)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from sqlalchemy import nulls_last

from basketbench.core.errors import Invalid
from basketbench.core.sqlutil import AnySelect

T = TypeVar("T")


def parse_sort(sort: str | None, allowed: Sequence[str], default: str) -> tuple[str, bool]:
    """(key, descending) of `sort`; an unknown key is a 422 naming the allowed ones."""
    raw = (sort or default).strip()
    descending = raw.startswith("-")
    key = raw.lstrip("-+")
    if key not in allowed:
        raise Invalid(f"unknown sort key {key!r}; use one of: {', '.join(allowed)} "
                      "(prefix '-' for descending)")
    return key, descending


def sort_rows(rows: Sequence[T], sort: str | None, keys: Mapping[str, Callable[[T], Any]],
              default: str) -> list[T]:
    """`rows` sorted in memory by one of `keys` (stable, nulls last either way)."""
    key, descending = parse_sort(sort, list(keys), default)
    get = keys[key]
    present = [r for r in rows if get(r) is not None]
    missing = [r for r in rows if get(r) is None]
    return sorted(present, key=get, reverse=descending) + missing


def order_select(stmt: AnySelect, sort: str | None, columns: Mapping[str, Any], default: str,
                 tiebreak: Any) -> AnySelect:
    """`stmt` ordered by one of `columns` (nulls last), then by `tiebreak` for a stable page."""
    key, descending = parse_sort(sort, list(columns), default)
    column = columns[key]
    return stmt.order_by(None).order_by(
        nulls_last(column.desc() if descending else column.asc()),
        tiebreak.desc() if descending else tiebreak.asc())
