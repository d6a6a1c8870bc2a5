"""Interleaved A/B of two builds' compression layers in one rzbench process (issue 32):
`run_ab(a, b, corpus, settings, ...)` returns the basketbench-ab-v1 document (docs/perf/ab.md).

It sits above rzbench/ and realroot/ (it resolves `release:X.YY.ZZ` to a wheel's libCore);
the pair statistics and the interference judgement live in rzbench/ab_stats.py and
rzbench/interference.py."""

from basketbench.measure.ab.run import (
    DEFAULT_PAIRS,
    DEFAULT_SETTINGS,
    DEFAULT_TARGET_MS,
    SCHEMA,
    ABError,
    ABInputError,
    resolve_build,
    run_ab,
)

__all__ = ["DEFAULT_PAIRS", "DEFAULT_SETTINGS", "DEFAULT_TARGET_MS", "SCHEMA", "ABError",
           "ABInputError", "resolve_build", "run_ab"]
