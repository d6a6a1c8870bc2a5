"""Interleaved A/B of two compression layers in one rzbench process (issue 32).

`run_ab(a, b, corpus, settings)` measures build B against build A on the same machine, in the
same process, in alternating short repetitions, and returns the A/B JSON document
(schema basketbench-ab-v1, docs/perf/ab.md). A BUILD is `host` (the layer compiled into rzbench),
`release:X.YY.ZZ` (the PyPI wheel's lib/libCore.so) or a build directory holding
`layer/libbbzip.so` (+ `layer/layer.json`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

SCHEMA = "basketbench-ab-v1"
DEFAULT_SETTINGS = (101, 207, 404, 505)
DEFAULT_PAIRS = 31
DEFAULT_TARGET_MS = 40.0

Say = Callable[[str], None]


class ABInputError(ValueError):
    """Bad input (unknown release, missing layer, empty corpus, bad settings): CLI exit 2."""


class ABError(RuntimeError):
    """The measurement itself failed (rzbench crashed, a round trip was not byte-exact)."""


def _quiet(_message: str) -> None:
    return None


def run_ab(
    a: str,
    b: str,
    corpus: Path,
    settings: Sequence[int] = DEFAULT_SETTINGS,
    *,
    pairs: int = DEFAULT_PAIRS,
    target_ms: float = DEFAULT_TARGET_MS,
    rzbench: Path | None = None,
    say: Say = _quiet,
) -> dict[str, Any]:
    """The A/B document of build `b` against build `a` over `corpus` (a .bbc file or a folder
    of them) at `settings`. Raises ABInputError for bad input, ABError for a failed run."""
    raise NotImplementedError("being implemented on branch ab-harness")
