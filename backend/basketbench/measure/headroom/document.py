"""The headroom document (pure: no I/O): what ROOT's framing costs against the bare codec
library, per setting (docs/perf/headroom.md).

`rzbench headroom` times three paths over the same buffers, interleaved: `framed` (the linked
RZip.h), `bare_fresh` (the library with a fresh context per buffer) and `bare_reused` (one
context for all). Its `--count` mode gives each path's instructions for one pass under
callgrind. `build_document` turns the two outputs into a basketbench-headroom-v1 document,
recomputing every ratio and interval from the repetitions (measure/rzbench/ab_stats.py) and
refusing output where rzbench's own summary disagrees; `parse_document` validates a stored one.

Ratios are time(a) / time(b) for the same work (> 1: b is faster):
    headroom = framed / bare_reused    what ROOT's framing leaves on the table
    framing  = framed / bare_fresh     the frame itself (header, dispatch, checksum, copies)
    context  = bare_fresh / bare_reused  a fresh codec context per buffer
The instructions split the gap framed - bare_reused the same way: context = bare_fresh -
bare_reused, framing = framed - bare_fresh (of which, for LZ4, the XXH64 of the payload).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from basketbench.measure.rzbench import ab_stats

SCHEMA = "basketbench-headroom-v1"
RAW_SCHEMA = "rzbench-headroom-v1"
PATHS = ("framed", "bare_fresh", "bare_reused")
COMPARISONS = {"headroom": ("framed", "bare_reused"), "framing": ("framed", "bare_fresh"),
               "context": ("bare_fresh", "bare_reused")}
DIRECTIONS = ("compress", "decompress")
_LABEL = re.compile(r"^rzbench-headroom:(\d+):(framed|bare_fresh|bare_reused|xxh64):"
                    r"(compress|decompress|checksum)$")


class HeadroomDocumentError(ValueError):
    """A document (rzbench's or ours) that does not hold what it must; one-line message."""


# ---- the validated document ---------------------------------------------------------------

class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Effect(_Model):
    ratio: float | None
    ci_low: float | None
    ci_high: float | None
    pairs: int = Field(ge=0)
    disturbed_pairs: int = Field(ge=0)
    samples: list[float]


class Instructions(_Model):
    framed: int = Field(ge=0)
    bare_fresh: int = Field(ge=0)
    bare_reused: int = Field(ge=0)


class Cause(_Model):
    gap: int  # framed - bare_reused
    context: int  # bare_fresh - bare_reused
    framing: int  # framed - bare_fresh
    checksum: int | None  # XXH64 of the payloads (LZ4), part of framing
    summary: str


class BufferTimes(_Model):
    """Median CPU time per buffer of each path over the undisturbed slots, microseconds, and
    the gaps: what a fresh context adds, what the frame adds."""

    framed: float
    bare_fresh: float
    bare_reused: float
    context: float  # bare_fresh - bare_reused
    framing: float  # framed - bare_fresh
    context_in_cpuid: float | None  # context / one cpuid's cost on this machine


class Direction(_Model):
    headroom: Effect
    framing: Effect
    context: Effect
    instructions: Instructions | None
    cause: Cause | None
    per_buffer_us: BufferTimes | None
    minor_faults_per_pass: dict[str, int] | None


class PayloadCheck(_Model):
    units: int = Field(ge=0)
    identical: int = Field(ge=0)
    stored_disagree: int = Field(ge=0)


class Result(_Model):
    dataset: str
    setting: int = Field(ge=101, le=599)
    codec: str
    roundtrip_ok: bool
    error: str | None
    same_work: bool
    same_payload: dict[Literal["bare_fresh", "bare_reused"], PayloadCheck]
    calls: dict[str, dict[str, str]]
    units: int = Field(ge=0)
    uncompressed_bytes: int = Field(ge=0)
    compressed_bytes: dict[str, int]
    compress: Direction
    decompress: Direction


class Load(_Model):
    loadavg_start: list[float | None]
    loadavg_end: list[float | None]


class MachineCosts(_Model):
    cpuid_us: float | None  # one cpuid on the measuring thread's CPU clock (None off x86)


class HeadroomDocument(_Model):
    schema_: Literal["basketbench-headroom-v1"] = Field(alias="schema")
    framed: dict[str, Any]
    bare: dict[str, Any]
    same_versions: bool
    machine: dict[str, Any]
    method: dict[str, Any]
    load: Load
    machine_costs: MachineCosts
    disturbed_fraction: float = Field(ge=0, le=1)
    instructions_counted: bool
    valgrind: str | None
    datasets: list[dict[str, Any]]
    results: list[Result]


def parse_document(data: Any) -> HeadroomDocument:
    """A basketbench-headroom-v1 document, validated; HeadroomDocumentError otherwise."""
    if not isinstance(data, Mapping) or data.get("schema") != SCHEMA:
        got = data.get("schema") if isinstance(data, Mapping) else type(data).__name__
        raise HeadroomDocumentError(f"not a {SCHEMA} document (schema {got!r})")
    try:
        doc = HeadroomDocument.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise HeadroomDocumentError(
            f"invalid headroom document at {where}: {first['msg']}") from exc
    for r in doc.results:
        if r.roundtrip_ok and r.error is not None:
            raise HeadroomDocumentError(f"{r.dataset} {r.setting}: round trip ok with an error")
        for name in DIRECTIONS:
            d: Direction = getattr(r, name)
            for effect in (d.headroom, d.framing, d.context):
                if effect.ratio is not None and not (
                        effect.ci_low is not None and effect.ci_high is not None
                        and effect.ci_low <= effect.ratio <= effect.ci_high):
                    raise HeadroomDocumentError(
                        f"{r.dataset} {r.setting} {name}: ratio outside its interval")
                if len(effect.samples) != effect.pairs:
                    raise HeadroomDocumentError(
                        f"{r.dataset} {r.setting} {name}: {effect.pairs} pairs but "
                        f"{len(effect.samples)} samples")
    return doc


# ---- from rzbench's output ----------------------------------------------------------------

def _pairs(slots: list[Mapping[str, Any]], a: str, b: str) -> list[dict[str, Any]]:
    """A comparison's pairs ({"a": rep, "b": rep}) from the timed slots of three paths."""
    return [{"a": s["repetitions"][a], "b": s["repetitions"][b]} for s in slots]


def _close(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _effects(direction: Mapping[str, Any], clock: str, limits: ab_stats.Limits,
             confidence: float, where: str) -> tuple[dict[str, ab_stats.RatioSummary], int, int]:
    out: dict[str, ab_stats.RatioSummary] = {}
    for name, (a, b) in COMPARISONS.items():
        ours = ab_stats.summarize(_pairs(direction["slots"], a, b), clock, limits, confidence)
        theirs = direction["comparisons"][name]
        same = all(_close(getattr(ours, k), theirs[k]) for k in ("ratio", "ci_low", "ci_high"))
        if not same or (ours.pairs, ours.disturbed_pairs) != (theirs["pairs"],
                                                              theirs["disturbed_pairs"]):
            raise HeadroomDocumentError(
                f"{where} {name}: rzbench's summary differs from its repetitions' own "
                f"(ratio {theirs['ratio']} against {ours.ratio})")
        out[name] = ours
    # every repetition of a slot counts once for the disturbed fraction
    reps = [rep for s in direction["slots"] for rep in s["repetitions"].values()]
    disturbed = sum(1 for rep in reps if ab_stats.repetition_reasons(rep, limits))
    return out, len(reps) - disturbed, disturbed


def buffer_times(direction: Mapping[str, Any], buffers: int, limits: ab_stats.Limits,
                 clock: str, cpuid_us: float | None) -> BufferTimes | None:
    """Median time per buffer of each path over the slots where no path was disturbed."""
    key = "cpu_s" if clock == "cpu" else "wall_s"
    loops = int(direction["loops"])
    kept = [s["repetitions"] for s in direction["slots"]
            if not any(ab_stats.repetition_reasons(rep, limits)
                       for rep in s["repetitions"].values())]
    if not kept or buffers <= 0 or loops <= 0:
        return None
    t = {p: 1e6 * ab_stats.median([float(reps[p][key]) for reps in kept]) / (loops * buffers)
         for p in PATHS}
    context = t["bare_fresh"] - t["bare_reused"]
    return BufferTimes(framed=t["framed"], bare_fresh=t["bare_fresh"],
                       bare_reused=t["bare_reused"], context=context,
                       framing=t["framed"] - t["bare_fresh"],
                       context_in_cpuid=context / cpuid_us if cpuid_us else None)


def parse_callgrind_dump(text: str) -> tuple[int, str, str, int] | None:
    """(result index, path, operation, instructions) of one of `rzbench headroom --count`'s
    callgrind dumps; None for any other dump (the one at exit)."""
    label: tuple[int, str, str] | None = None
    names: list[str] = []
    for line in text.splitlines():
        if line.startswith("desc: Trigger: Client Request: "):
            match = _LABEL.match(line.removeprefix("desc: Trigger: Client Request: "))
            label = (int(match.group(1)), match.group(2), match.group(3)) if match else None
        elif line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:") and label is not None:
            values = dict(zip(names, (int(v) for v in line.split()[1:]), strict=False))
            if "Ir" not in values:
                raise HeadroomDocumentError("callgrind dump without the Ir event")
            return label[0], label[1], label[2], values["Ir"]
    return None


Counts = dict[tuple[int, str, str], int]


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f} %" if whole else "-"


def cause_of(instructions: Instructions, checksum: int | None) -> Cause:
    """The gap framed - bare_reused split into context set-up and the frame itself."""
    gap = instructions.framed - instructions.bare_reused
    context = instructions.bare_fresh - instructions.bare_reused
    framing = instructions.framed - instructions.bare_fresh
    if gap <= 0:
        summary = "no gap: the framed path runs no more instructions than the reused library"
    else:
        parts = [f"context set-up {_percent(context, gap)}", f"framing {_percent(framing, gap)}"]
        if checksum is not None:
            parts[-1] += f" (XXH64 {_percent(checksum, gap)})"
        main = "context set-up" if context >= framing else "framing"
        summary = f"{main} dominates: " + ", ".join(parts) + " of the extra instructions"
    return Cause(gap=gap, context=context, framing=framing, checksum=checksum, summary=summary)


def _direction(effects: dict[str, ab_stats.RatioSummary], counts: Counts | None, index: int,
               name: str, checksum: int | None, where: str, times: BufferTimes | None,
               faults: dict[str, int] | None) -> dict[str, Any]:
    instructions: Instructions | None = None
    if counts is not None:
        try:
            instructions = Instructions(**{p: counts[(index, p, name)] for p in PATHS})
        except KeyError as exc:
            raise HeadroomDocumentError(f"{where} {name}: no instruction count for "
                                        f"{exc.args[0][1]}") from exc
    return {
        **{k: v.as_effect() for k, v in effects.items()},
        "instructions": instructions.model_dump() if instructions else None,
        "cause": cause_of(instructions, checksum).model_dump() if instructions else None,
        "per_buffer_us": times.model_dump() if times else None,
        "minor_faults_per_pass": faults,
    }


def _method(params: Mapping[str, Any], limits: ab_stats.Limits) -> dict[str, Any]:
    return {
        "order": f"one process; per (dataset, setting, direction) {params['pairs']} slots, each "
                 f"one repetition (~{params['target_ms']:g} ms, the same passes) of framed, "
                 "bare_fresh and bare_reused in an order drawn at random (xoshiro256**, seed "
                 f"{params['seed']}); compress and decompress slots alternate",
        "ratio": "median over the undisturbed slots of time(a) / time(b) on the thread's "
                 f"{params['clock']} clock; > 1: b faster. headroom = framed / bare_reused, "
                 "framing = framed / bare_fresh, context = bare_fresh / bare_reused",
        "ci": "distribution-free order-statistic interval of the median (binomial ranks)",
        "same_work": "the bare output must be byte-identical to the payload inside ROOT's "
                     "block for every unit; same_work false means it is not",
        "instructions": "one pass per path under valgrind --tool=callgrind, instrumentation "
                        "only around the pass (client requests)",
        "disturbed_rule": limits.describe(),
        "confidence": float(params["confidence"]),
        "pairs": int(params["pairs"]),
        "target_ms": float(params["target_ms"]),
        "seed": int(params["seed"]),
        "clock": params["clock"],
    }


def _check_raw(raw: Any, mode: str) -> None:
    if not isinstance(raw, Mapping) or raw.get("schema") != RAW_SCHEMA:
        raise HeadroomDocumentError(f"not an {RAW_SCHEMA} document")
    if raw.get("mode") != mode:
        raise HeadroomDocumentError(f"expected rzbench headroom's {mode} mode, got "
                                    f"{raw.get('mode')!r}")
    for key in ("framed", "bare", "params", "machine", "datasets", "results"):
        if key not in raw:
            raise HeadroomDocumentError(f"rzbench headroom output without {key!r}")


def build_document(timed: Mapping[str, Any], counts: Counts | None, *,
                   load_start: list[float | None], load_end: list[float | None],
                   valgrind: str | None = None) -> dict[str, Any]:
    """The basketbench-headroom-v1 document from `rzbench headroom`'s timed output and the
    instruction counts of its --count run (None: not counted), statistics recomputed."""
    _check_raw(timed, "time")
    params = timed["params"]
    limits = ab_stats.Limits.from_json(params["limits"])
    confidence = float(params["confidence"])
    cpuid = (timed.get("machine_costs") or {}).get("cpuid_us")
    cpuid_us = float(cpuid) if cpuid is not None else None
    results, kept, dropped = [], 0, 0
    for index, r in enumerate(timed["results"]):
        where = f"{r['dataset']} {r['setting']}"
        same = r.get("same_payload") or {}
        entry: dict[str, Any] = {
            "dataset": r["dataset"], "setting": int(r["setting"]), "codec": r["codec"],
            "roundtrip_ok": r["error"] is None and all(r["roundtrip"].values()),
            "error": r["error"],
            "same_work": bool(same) and all(
                s["identical"] == s["units"] and s["stored_disagree"] == 0 for s in same.values()),
            "same_payload": same or {p: {"units": 0, "identical": 0, "stored_disagree": 0}
                                     for p in ("bare_fresh", "bare_reused")},
            "calls": r.get("calls") or {},
            "units": int(r.get("units") or 0),
            "uncompressed_bytes": int(r.get("uncompressed_bytes") or 0),
            "compressed_bytes": r.get("compressed_bytes") or {},
        }
        checksum = counts.get((index, "xxh64", "checksum")) if counts is not None else None
        for name in DIRECTIONS:
            if name not in r:  # failed before timing
                empty = ab_stats.RatioSummary(None, None, None, None, 0, 0)
                entry[name] = {**{k: empty.as_effect() for k in COMPARISONS},
                               "instructions": None, "cause": None, "per_buffer_us": None,
                               "minor_faults_per_pass": None}
                continue
            effects, k, d = _effects(r[name], params["clock"], limits, confidence,
                                     f"{where} {name}")
            kept, dropped = kept + k, dropped + d
            ok = counts is not None and entry["roundtrip_ok"]
            # compress passes run every buffer, decompress passes those ROOT compressed
            buffers = int(r.get("units" if name == "compress" else "compressed_units") or 0)
            times = buffer_times(r[name], buffers, limits, params["clock"], cpuid_us)
            faults = (r.get("minor_faults_per_pass") or {}).get(name)
            entry[name] = _direction(effects, counts if ok else None, index, name, checksum,
                                     where, times, faults)
        results.append(entry)
    framed_libs = (timed["framed"].get("codecs") or {}).get("libraries") or {}
    bare_libs = timed["bare"].get("libraries") or {}
    doc = {
        "schema": SCHEMA,
        "framed": dict(timed["framed"]),
        "bare": dict(timed["bare"]),
        "same_versions": bool(framed_libs) and framed_libs == bare_libs,
        "machine": dict(timed["machine"]),
        "method": _method(params, limits),
        "load": {"loadavg_start": load_start, "loadavg_end": load_end},
        "machine_costs": {"cpuid_us": cpuid_us},
        "disturbed_fraction": dropped / (kept + dropped) if kept + dropped else 0.0,
        "instructions_counted": counts is not None,
        "valgrind": valgrind,
        "datasets": list(timed["datasets"]),
        "results": results,
    }
    parse_document(doc)  # what we write is what we accept
    return doc


def counts_matching(counted: Mapping[str, Any], timed: Mapping[str, Any]) -> None:
    """The --count run measured the same datasets and settings as the timed one, and its own
    validation passed (same payloads, round trips)."""
    _check_raw(counted, "count")
    key = [(r["dataset"], r["setting"]) for r in counted["results"]]
    if key != [(r["dataset"], r["setting"]) for r in timed["results"]]:
        raise HeadroomDocumentError("the counted run measured other datasets or settings")
    for r in counted["results"]:
        if r["error"] is not None:
            raise HeadroomDocumentError(f"counted run, {r['dataset']} {r['setting']}: "
                                        f"{r['error']}")


# ---- as an A/B document, for the history (POST /ab-runs, reference kind "bare") -------------

AB_SCHEMA = "basketbench-ab-v1"
# comparison -> (label of side B, the bare path); side A is always ROOT's framed path
AB_SIDES = {"headroom": ("bare library, reused context", "bare_reused"),
            "framing": ("bare library, fresh context", "bare_fresh")}


def to_ab_document(doc: Mapping[str, Any], comparison: str = "headroom") -> dict[str, Any]:
    """One comparison of a headroom document as a basketbench-ab-v1 document: side A ROOT's
    framed path, side B the bare library (reused context for "headroom", fresh for "framing"),
    so that its effects B/A (time framed / time bare) are stored and plotted like any A/B of a
    commit. Only results whose bare output was ROOT's payload (same work) are kept."""
    if comparison not in AB_SIDES:
        raise HeadroomDocumentError(f"unknown comparison {comparison!r}: "
                                    f"choose from {', '.join(AB_SIDES)}")
    parsed = parse_document(doc)
    label, path = AB_SIDES[comparison]
    results = []
    for r in parsed.results:
        if not r.same_work:
            continue
        results.append({
            "dataset": r.dataset, "setting": r.setting,
            "compressed_bytes": {"a": r.compressed_bytes.get("framed", 0),
                                 "b": r.compressed_bytes.get(path, 0)},
            "roundtrip_ok": r.roundtrip_ok,
            **({"error": r.error} if r.error else {}),
            "compress": getattr(r.compress, comparison).model_dump(),
            "decompress": getattr(r.decompress, comparison).model_dump(),
        })
    if not results:
        raise HeadroomDocumentError("no result where the bare library did the same work")
    framed_libs = (parsed.framed.get("codecs") or {}).get("libraries") or {}
    total, disturbed = 0, 0  # the comparison's pairs, over every result and direction
    for r in parsed.results:
        for d in (r.compress, r.decompress):
            effect = getattr(d, comparison)
            total += effect.pairs + effect.disturbed_pairs
            disturbed += effect.disturbed_pairs
    return {
        "schema": AB_SCHEMA,
        "a": {"build": str(parsed.framed.get("layer") or "host"),
              "label": "ROOT's framing (RZip.h)",
              "codec_versions": {str(k): str(v) for k, v in framed_libs.items()}},
        "b": {"build": f"bare:{path}", "label": label,
              "codec_versions": {str(k): str(v) for k, v in parsed.bare.get("libraries",
                                                                              {}).items()}},
        "method": {**parsed.method, "repetitions_per_pair": 1,
                   "headroom_comparison": comparison},
        "load": parsed.load.model_dump(),
        "disturbed_fraction": disturbed / total if total else 0.0,
        "results": results,
    }
