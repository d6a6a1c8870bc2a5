"""The evidence behind compare's speed rows (issue 32): no speed verdict without it.

Two runs measured at different times cannot tell a code change from the machine: on a
shared machine the load, the clock and the neighbours move absolute MB/s by far more than
the changes looked for (the demo's 6.38 vs 6.40 runs, measured at load 3 and 16, "differed"
by -83 %). So a speed row gets a verdict only from

- ``ab``: an interleaved A/B of these two builds on this machine (ab_runs / ab_effects,
  either direction): the median of the per-pair speed ratios head/base and its interval.
  A change when the interval excludes 1 and the effect passes the series' minimum effect;
- ``counts``: the instructions per MB of both sides (valgrind): exact for the same code on
  the same corpus, so a count that moved beyond the count threshold is a change of the
  code (more instructions: slower). Counts compare versions of the same code only, which
  a compare row is (one configuration, same codec);
- ``none``: neither. The numbers are shown, the row is not a change (``significant``
  false), and the rule says why.

Two machines (machines mode) are always ``none``: no A/B can interleave two machines, and
instruction counts measure the code, not the hardware it runs on.

One bounded query per comparison: the effects of the newest A/B run of the pair on the
machine (at most one row per dataset, configuration and speed metric)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson
from sqlalchemy import Text, and_, cast, func, or_, select
from sqlalchemy.orm import Session

from basketbench.core.config import Settings
from basketbench.models import AbEffect, AbRun
from basketbench.stats.deltas import MIN_EFFECT_PCT

Key = tuple[int, int]  # dataset id, configuration id

NONE_REASON = ("no verdict: the two sides were measured at different times (load, clock "
               "and neighbours differ between the runs), and neither an interleaved A/B of "
               "the two builds on this machine nor instruction counts of both sides exist")
MACHINES_REASON = ("no verdict: two machines differ by their hardware; an A/B cannot "
                   "interleave two machines and instruction counts measure the code, not "
                   "the machine, so no speed row of a machines comparison is a change")


@dataclass(frozen=True, slots=True)
class AbEffectRow:
    """One A/B effect as head over base (swapped when the A/B measured base as side B)."""

    ratio: float
    ci_low: float
    ci_high: float
    pairs: int
    disturbed_pairs: int


@dataclass(slots=True)
class AbEvidence:
    """The newest A/B of the pair on the machine: the run's context and its effects."""

    run: dict[str, Any] | None = None
    effects: dict[tuple[int, int, str], AbEffectRow] = field(default_factory=dict)

    def effect(self, key: Key, metric: str) -> AbEffectRow | None:
        return self.effects.get((key[0], key[1], metric))


def load_ab(session: Session, machine_id: int, base_commit_id: int, head_commit_id: int,
            dataset_id: int | None) -> AbEvidence:
    """The effects of the newest successful A/B of these two commits on this machine, in
    either direction, turned to head over base. One statement: the run is picked by a
    scalar subquery, its effects joined with it."""
    if base_commit_id == head_commit_id:
        return AbEvidence()
    pair = or_(and_(AbRun.commit_id == head_commit_id,
                    AbRun.reference_commit_id == base_commit_id),
               and_(AbRun.commit_id == base_commit_id,
                    AbRun.reference_commit_id == head_commit_id))
    newest = (select(func.max(AbRun.id))
              .where(AbRun.machine_id == machine_id, AbRun.error.is_(None), pair)
              .scalar_subquery())
    # The run's JSON comes as text on every row and is parsed once (first row): parsing it
    # per effect row cost most of the statement's time with an A/B of every row (864).
    stmt = (select(AbRun.id, AbRun.commit_id, AbRun.created_at, AbRun.disturbed_fraction,
                   cast(AbRun.load, Text), cast(AbRun.method, Text), AbRun.reference_kind,
                   AbRun.origin,
                   AbEffect.dataset_id, AbEffect.configuration_id, AbEffect.metric,
                   AbEffect.ratio, AbEffect.ci_low, AbEffect.ci_high, AbEffect.pairs,
                   AbEffect.disturbed_pairs)
            .join(AbEffect, AbEffect.ab_run_id == AbRun.id)
            .where(AbRun.id == newest))
    if dataset_id is not None:
        stmt = stmt.where(AbEffect.dataset_id == dataset_id)
    out = AbEvidence()
    for row in session.connection().execute(stmt).all():
        (run_id, b_commit, created, disturbed, load, method, ref_kind, origin,
         ds, conf, metric, ratio, low, high, pairs, dpairs) = tuple(row)
        swapped = b_commit != head_commit_id
        if out.run is None:
            out.run = _run_context(run_id, created, disturbed, _json(load), _json(method) or {},
                                   ref_kind, origin, swapped)
        if ratio is None or low is None or high is None or ratio <= 0 or low <= 0:
            continue  # no undisturbed pair left: no estimate, so no evidence for the row
        if swapped:  # the A/B measured base as B: head over base is the inverse
            ratio, low, high = 1.0 / ratio, 1.0 / high, 1.0 / low
        out.effects[(ds, conf, metric)] = AbEffectRow(ratio, low, high, pairs, dpairs)
    return out


def _json(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _run_context(run_id: int, created: Any, disturbed: float | None,
                 load: dict[str, Any] | None, method: dict[str, Any], reference_kind: str,
                 origin: str, swapped: bool) -> dict[str, Any]:
    """What the page shows once for every A/B row (CompareAb): when, how disturbed, how."""
    load = load or {}
    return {
        "ab_run_id": run_id,
        "measured_at": created.isoformat() if created is not None else None,
        "confidence": float(method.get("confidence", 0.95)),
        "interval": str(method.get("ci", "")) or None,
        "disturbed_fraction": disturbed,
        "disturbed_rule": str(method.get("disturbed_rule", "")) or None,
        "loadavg_start": load.get("loadavg_start"),
        "loadavg_end": load.get("loadavg_end"),
        "reference_kind": reference_kind,
        "origin": origin,
        "swapped": swapped,
    }


def ab_verdict(effect: AbEffectRow, min_effect_pct: float) -> tuple[bool, bool]:
    """(significant, regression) of an A/B effect head/base: a change when the interval
    excludes 1 and |ratio - 1| reaches the minimum effect; slower head is a regression."""
    excludes_one = effect.ci_high < 1.0 or effect.ci_low > 1.0
    big_enough = abs(effect.ratio - 1.0) * 100.0 >= min_effect_pct
    significant = excludes_one and big_enough
    return significant, significant and effect.ratio < 1.0


def ab_evidence(effect: AbEffectRow) -> dict[str, Any]:
    """The row's ``evidence`` (CompareEvidence, kind ab): small, the run's context is
    given once in the answer's ``ab``."""
    return {"kind": "ab", "ratio": effect.ratio, "ci_low": effect.ci_low,
            "ci_high": effect.ci_high, "pairs": effect.pairs,
            "disturbed_pairs": effect.disturbed_pairs}


def counts_evidence(base: float, head: float, delta_pct: float | None) -> dict[str, Any]:
    """The row's ``evidence`` (kind counts): instructions per MB of both sides."""
    return {"kind": "counts", "base_instructions_per_mb": base,
            "head_instructions_per_mb": head, "instructions_delta_pct": delta_pct}


NO_EVIDENCE: dict[str, Any] = {"kind": "none"}


def rule_text(count_threshold: float, machines: bool) -> dict[str, str]:
    """How the speed rows were decided, spelled out for CompareRule."""
    return {
        "speed_test": (
            "evidence first: an interleaved A/B of the two builds on this machine (ab: a "
            "change when the confidence interval of the median per-pair speed ratio "
            "head/base excludes 1 and the effect reaches the minimum effect), else "
            "instruction counts of both sides (counts: a change when instructions per MB "
            f"moved by more than {count_threshold:g} %; more instructions is a regression), "
            "else none: two runs measured at different times get no verdict"),
        "multiple_testing": (
            "none needed for counts (exact); A/B rows are judged one by one by their "
            "interval and the minimum effect, which keeps chance changes of a null A/B "
            "(intervals narrower than +-1 %) out"),
        "speed_without_evidence": MACHINES_REASON if machines else NONE_REASON,
    }


def min_effect_of(settings: Settings | None, tag: str) -> Callable[[str, str, str], float]:
    """The minimum effect of a series (dataset, configuration label, metric) on ``tag``:
    detection's (per series pattern), so an A/B verdict in compare and a change detected
    agree on what is too small to be one."""
    if settings is None:
        return lambda dataset, label, metric: MIN_EFFECT_PCT
    from basketbench.changes.detection.history import min_effect

    return lambda dataset, label, metric: min_effect(
        settings, f"{tag}/{dataset}/{label}", metric)
