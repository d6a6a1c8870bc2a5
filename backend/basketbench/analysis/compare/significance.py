"""Which speed rows of a comparison are changes, by detection's rule: a row is tested when
its effect passes the minimum (per series pattern); its Mann-Whitney p-value must then
survive Benjamini-Hochberg over every speed row with samples on both sides."""

from __future__ import annotations

from dataclasses import dataclass

from basketbench.analysis.compare.sides import Side, has_samples, sample_count, samples
from basketbench.core.config import Settings
from basketbench.models.result import SPEED_METRICS
from basketbench.schemas.refs import ConfigurationOut
from basketbench.stats.deltas import MIN_EFFECT_PCT, mann_whitney_batch, speed_delta
from basketbench.stats.fdr import bh_adjust_partial

PQ = tuple[float | None, float | None]
"""(p-value, q-value) of one tested speed row."""


@dataclass(slots=True)
class SpeedTests:
    """The speed rows tested, and the figures of the rule applied (CompareRule)."""

    tested: dict[tuple[int, int], dict[str, PQ]]  # per (dataset, configuration), metric
    family: int  # speed rows with samples on both sides: the Benjamini-Hochberg family
    shapes: set[tuple[int, int]]  # their sample counts (base, head)


def run_speed_tests(base: dict[tuple[int, int], Side], head: dict[tuple[int, int], Side],
                    keys: list[tuple[int, int]], metrics: list[str], names: dict[int, str],
                    configurations: dict[int, ConfigurationOut], settings: Settings | None,
                    tag: str) -> SpeedTests:
    """Speed rows whose effect passes the minimum are tested together, in one batch; every
    speed row with samples on both sides counts in the BH family."""
    tests: list[tuple[tuple[int, int], str]] = []
    family = 0
    shapes: set[tuple[int, int]] = set()
    speed_metrics = [met for met in metrics if met in SPEED_METRICS]
    for key in keys:
        b, h = base[key], head[key]
        for met in speed_metrics:
            c = met == "compress_mbps"
            if (has_samples(b.c_samples if c else b.d_samples)
                    and has_samples(h.c_samples if c else h.d_samples)):
                family += 1
                shapes.add((sample_count(b.c_samples if c else b.d_samples),
                            sample_count(h.c_samples if c else h.d_samples)))
            effect = _min_effect(settings, tag, names[key[0]], configurations[key[1]].label,
                                 met)
            if speed_delta((b.c_median if c else b.d_median),
                           (h.c_median if c else h.d_median), effect) is not None:
                tests.append((key, met))
    pairs = []
    for key, met in tests:
        c = met == "compress_mbps"
        b, h = base[key], head[key]
        pairs.append((samples(b.c_samples if c else b.d_samples),
                      samples(h.c_samples if c else h.d_samples)))
    raw = mann_whitney_batch(pairs)
    qvalues = bh_adjust_partial(raw, family)
    tested: dict[tuple[int, int], dict[str, PQ]] = {}
    for (key, met), p, q in zip(tests, raw, qvalues, strict=True):
        tested.setdefault(key, {})[met] = (p, q)
    return SpeedTests(tested, family, shapes)


def _min_effect(settings: Settings | None, tag: str, dataset: str, label: str,
                metric: str) -> float:
    if settings is None:
        return MIN_EFFECT_PCT
    from basketbench.changes.detection.history import min_effect

    return min_effect(settings, f"{tag}/{dataset}/{label}", metric)
