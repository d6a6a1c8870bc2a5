"""Interleaved A/B of two compression layers in one rzbench process (issue 32).

`run_ab(a, b, corpus, settings)` (exported as basketbench.measure.ab.run_ab) measures build B
against build A on this machine, in one process, in alternating short repetitions of the same
work (`rzbench ab`), and returns the A/B document (schema basketbench-ab-v1, docs/perf/ab.md).
A BUILD is

- `host`: the compression layer compiled into rzbench;
- `release:X.YY.ZZ`: a ROOT release's own lib/libCore.so (PyPI wheel, installed once into the
  cache by measure/realroot/releases.py);
- a build directory holding `layer/libbbzip.so` and `layer/layer.json` (per-commit builds).

rzbench writes every pair's repetitions (times and interference); the ratios, medians, intervals
and disturbed counts of the document are recomputed here (measure/rzbench/ab_stats.py) and
checked against rzbench's own.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from basketbench.measure.realroot import releases
from basketbench.measure.rzbench import ab_stats
from basketbench.measure.rzbench.runner import Launcher, RzbenchNotFound, locate_rzbench

SCHEMA = "basketbench-ab-v1"
DEFAULT_SETTINGS = (101, 201, 404, 505)
DEFAULT_PAIRS = 31
DEFAULT_TARGET_MS = 40.0
LAYER_FILE = Path("layer") / "libbbzip.so"
LAYER_JSON = Path("layer") / "layer.json"
# rzbench's exit codes
_USAGE = 2

Say = Callable[[str], None]


class ABInputError(ValueError):
    """Bad input (unknown release, missing layer, empty corpus, bad settings): CLI exit 2."""


class ABError(RuntimeError):
    """The measurement itself failed (rzbench crashed, statistics did not verify)."""


def _quiet(_message: str) -> None:
    return None


@dataclass
class Side:
    build: str  # as given: host, release:X.YY.ZZ or a directory
    label: str
    layer: str  # what rzbench loads: "host" or a .so path
    declared_versions: dict[str, str] = field(default_factory=dict)  # layer.json's


def resolve_build(build: str, say: Say = _quiet) -> Side:
    """The layer behind a BUILD argument; ABInputError when there is none."""
    text = build.strip()
    if text == "host":
        return Side(text, "host (rzbench's own layer)", "host")
    if text.startswith("release:"):
        try:
            release = releases.lookup(text.removeprefix("release:"))
            prefix = releases.install(release, say)
        except releases.RootReleaseError as exc:
            raise ABInputError(str(exc)) from exc
        core = prefix / "lib" / "libCore.so"
        if not core.is_file():
            raise ABInputError(f"ROOT {release.version} has no lib/libCore.so under {prefix}")
        return Side(text, f"ROOT {release.version}", str(core))
    directory = Path(text)
    if not directory.is_dir():
        raise ABInputError(
            f"build {build!r} is neither host, release:X.YY.ZZ (available: "
            f"{releases.available()}) nor a build directory")
    layer = directory / LAYER_FILE
    if not layer.is_file():
        raise ABInputError(f"build directory {build} has no {LAYER_FILE}")
    label, declared = directory.name, {}
    meta_path = directory / LAYER_JSON
    if meta_path.is_file():
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise ABInputError(f"{meta_path} is not valid JSON: {exc}") from exc
        commit = str(meta.get("commit") or "")[:12]
        profile = meta.get("profile")
        label = " ".join(p for p in (commit or directory.name, f"({profile})" if profile else "")
                         if p)
        declared = {str(k): str(v) for k, v in (meta.get("codec_versions") or {}).items()}
    return Side(text, label, str(layer.resolve()), declared)


def corpus_files(corpus: Path) -> list[Path]:
    """A .bbc file, or every .bbc file of a folder (sorted); ABInputError when there is none."""
    if corpus.is_file():
        return [corpus]
    if corpus.is_dir():
        files = sorted(p for p in corpus.glob("*.bbc") if p.is_file())
        if files:
            return files
        raise ABInputError(f"corpus folder {corpus} holds no *.bbc file "
                           "(make one with `basketbench corpus extract`)")
    raise ABInputError(f"corpus {corpus} does not exist")


def check_settings(settings: Sequence[int]) -> list[int]:
    out = []
    for s in settings:
        algorithm, level = divmod(int(s), 100)
        if not 0 < s < 600 or algorithm not in (1, 2, 4, 5) or not 1 <= level <= 9:
            raise ABInputError(
                f"setting {s}: A/B compares settings algorithm*100+level with algorithm 1 (ZLIB), "
                "2 (LZMA), 4 (LZ4) or 5 (ZSTD) and level 1..9")
        out.append(int(s))
    if not out:
        raise ABInputError("no settings to compare")
    return out


def _method(raw: dict[str, Any], limits: ab_stats.Limits) -> dict[str, Any]:
    params = raw["params"]
    clock = ("the measuring thread's CPU time (CLOCK_THREAD_CPUTIME_ID)" if params["clock"] == "cpu"
             else "wall time (CLOCK_MONOTONIC)")
    return {
        "order": f"one process, both layers loaded; per (dataset, setting, direction) "
                 f"{params['pairs']} pairs of one repetition per side (the same passes, "
                 f"~{params['target_ms']:g} ms), A B or B A drawn at random per pair "
                 f"(xoshiro256**, seed {params['seed']}); compress and decompress pairs alternate",
        "ratio": f"median over the undisturbed pairs of time A / time B on {clock}; > 1: B faster",
        "ci": "distribution-free order-statistic interval of the median (binomial ranks "
              "k, n+1-k, coverage >= confidence; the whole range when too few pairs)",
        "confidence": float(params["confidence"]),
        "disturbed_rule": limits.describe(),
        "repetitions_per_pair": 1,
        "clock": params["clock"],
        "pairs": int(params["pairs"]),
        "target_ms": float(params["target_ms"]),
        "seed": int(params["seed"]),
        "limits": params["limits"],
    }


def _close(x: float | None, y: float | None) -> bool:
    if x is None or y is None:
        return x is None and y is None
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)


def _verified(direction: dict[str, Any], clock: str, limits: ab_stats.Limits,
              confidence: float, where: str) -> ab_stats.RatioSummary:
    ours = ab_stats.summarize(direction["pairs"], clock, limits, confidence)
    theirs = direction["summary"]
    same = all(_close(getattr(ours, k), theirs[k]) for k in ("ratio", "ci_low", "ci_high"))
    counted = (ours.pairs, ours.disturbed_pairs) == (theirs["pairs"], theirs["disturbed_pairs"])
    if not (same and counted):
        raise ABError(f"{where}: rzbench's summary {theirs} differs from the pairs' own "
                      f"(ratio {ours.ratio}, interval {ours.ci_low}..{ours.ci_high}, "
                      f"{ours.pairs} kept, {ours.disturbed_pairs} disturbed)")
    return ours


def document_from_raw(raw: dict[str, Any], a: Side, b: Side,
                      load_start: list[float | None],
                      load_end: list[float | None]) -> dict[str, Any]:
    """The basketbench-ab-v1 document from `rzbench ab`'s output, statistics recomputed."""
    params = raw["params"]
    limits = ab_stats.Limits.from_json(params["limits"])
    confidence = float(params["confidence"])
    results, kept, dropped = [], 0, 0
    for r in raw["results"]:
        entry: dict[str, Any] = {
            "dataset": r["dataset"], "setting": int(r["setting"]),
            "compressed_bytes": r.get("compressed_bytes") or {"a": None, "b": None},
            "roundtrip_ok": r["error"] is None and all(r["roundtrip"].values()),
        }
        if r["error"] is not None:
            entry["error"] = r["error"]
        for direction in ("compress", "decompress"):
            if direction not in r:
                entry[direction] = ab_stats.RatioSummary(None, None, None, None, 0, 0).as_effect()
                continue
            summary = _verified(r[direction], params["clock"], limits, confidence,
                                f"{r['dataset']} {r['setting']} {direction}")
            entry[direction] = summary.as_effect()
            kept += summary.pairs
            dropped += summary.disturbed_pairs
        results.append(entry)

    def side(s: Side, measured: dict[str, Any]) -> dict[str, Any]:
        versions = dict(measured["codecs"].get("libraries") or {})
        return {"build": s.build, "label": s.label,
                "codec_versions": versions or dict(s.declared_versions)}

    return {
        "schema": SCHEMA,
        "a": side(a, raw["a"]),
        "b": side(b, raw["b"]),
        "method": _method(raw, limits),
        "load": {"loadavg_start": load_start, "loadavg_end": load_end},
        "disturbed_fraction": dropped / (kept + dropped) if kept + dropped else 0.0,
        "results": results,
    }


def _load_snapshot() -> list[float | None]:
    """The 1, 5 and 15 minute load averages now (None where unreadable)."""
    try:
        return [float(v) for v in os.getloadavg()]
    except OSError:
        return [None, None, None]


def run_ab(
    a: str,
    b: str,
    corpus: Path,
    settings: Sequence[int] = DEFAULT_SETTINGS,
    *,
    pairs: int = DEFAULT_PAIRS,
    target_ms: float = DEFAULT_TARGET_MS,
    rzbench: Path | None = None,
    raw_out: Path | None = None,
    say: Say = _quiet,
    launcher: Launcher | None = None,
    scratch: Path | None = None,
) -> dict[str, Any]:
    """The A/B document of build `b` against build `a` over `corpus` (a .bbc file or a folder
    of them) at `settings`; `raw_out` keeps rzbench's per-pair output. Raises ABInputError for
    bad input, ABError for a failed run; a result whose round trip failed is in the document
    with `roundtrip_ok` false (and `error`). With a `launcher` (a worker's sandbox, for builds
    of untrusted commits), rzbench runs through it, writing only into a temporary folder under
    `scratch`."""
    if pairs < 1:
        raise ABInputError(f"pairs must be >= 1, got {pairs}")
    if not target_ms > 0:
        raise ABInputError(f"target_ms must be > 0, got {target_ms}")
    chosen = check_settings(settings)
    files = corpus_files(corpus)
    side_a, side_b = resolve_build(a, say), resolve_build(b, say)
    try:
        binary = rzbench or locate_rzbench()
    except RzbenchNotFound as exc:
        raise ABInputError(str(exc)) from exc
    with tempfile.TemporaryDirectory(prefix="basketbench-ab-", dir=scratch) as tmp:
        out = raw_out or Path(tmp) / "ab.json"
        cmd = [str(binary), "ab", "--a", side_a.layer, "--b", side_b.layer,
               "--settings", ",".join(map(str, chosen)), "--pairs", str(pairs),
               "--target-ms", f"{target_ms:g}", "--json", str(out)]
        for f in files:
            cmd += ["--corpus", str(f)]
        say(f"measuring {side_b.label} against {side_a.label}: {len(files)} corpus file(s), "
            f"settings {','.join(map(str, chosen))}, {pairs} pairs each")
        if launcher is not None:
            cmd = launcher(cmd, [out.parent])
        start = _load_snapshot()
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        end = _load_snapshot()
        if done.returncode == _USAGE:
            message = done.stderr.strip().splitlines()
            raise ABInputError(message[0].removeprefix("rzbench: ") if message
                               else "rzbench ab refused its input")
        if done.returncode not in (0, 1) or not out.is_file():
            raise ABError(f"rzbench ab failed (exit {done.returncode}): "
                          f"{done.stderr.strip()[-1500:]}")
        raw = json.loads(out.read_text())
    return document_from_raw(raw, side_a, side_b, start, end)
