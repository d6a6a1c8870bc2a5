"""Which ROOT settings `advise` ranks: algorithm*100+level with algorithm zlib (1), lzma (2),
lz4 (4) or zstd (5) and level 0..9. Setting 0 stores baskets uncompressed and algorithm 3
is ROOT's old, read-only zlib: neither is a choice to recommend. The CLI (`advise
--settings`) and the API (POST /recommend, PUT /advise/{id}) check with this one rule."""

from __future__ import annotations

ADVISE_ALGORITHMS = (1, 2, 4, 5)


def is_advise_setting(value: int) -> bool:
    return 0 <= value <= 599 and value // 100 in ADVISE_ALGORITHMS and value % 100 <= 9


def check_advise_setting(value: int) -> int:
    """``value``, or ValueError naming the rule (a pydantic AfterValidator)."""
    if not is_advise_setting(value):
        raise ValueError(f"{value} is not algorithm*100+level with algorithm 1, 2, 4 or 5 "
                         "and level 0..9")
    return value
