"""Merging the SQL aggregates of one commit (history) or configuration (trade-off) measured
with several codec sets of one series: sums, minima and maxima that may each be missing
(NULL: no result had the column)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def combine(f: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """f(a, b) of two values either of which may be missing: then the other one."""
    return b if a is None else a if b is None else f(a, b)
