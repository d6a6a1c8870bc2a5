"""How fast two ROOT releases' own codecs are, measured so that a busy machine cannot spoil it.

1. Instructions (valgrind --tool=callgrind). One `rzbench bench` process per release, setting
   and corpus, with `--min-samples 1 --target-ms 0`: each operation runs three passes
   (validation, warm-up, one sample). callgrind writes one profile per pass (--dump-after the
   pass functions); the inclusive cost of `rzbench::Trial::compress_pass()` /
   `decompress_pass()` in the last one is one timed pass: the framing loop and the release's
   `R__zipMultipleAlgorithm` / `R__unzip` calls, nothing else (the byte-exact check, corpus
   loading and start-up are outside; the first pass also loads libCore and is not used).
   rzbench's own functions are used because callgrind's inclusive cost of libCore's
   `R__unzip` counts its self-call twice.
2. Wall clock, interleaved: for every corpus and setting, one short rzbench process of the old
   release, then one of the new (A B A B ...), repeated for `pairs` rounds; each pair gives
   one speed ratio, and the median over the pairs and its range are reported beside the load
   average.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COMPRESS_PASS = "rzbench::Trial::compress_pass()"
DECOMPRESS_PASS = "rzbench::Trial::decompress_pass()"


class SpeedError(RuntimeError):
    """A measurement that could not be made (tool missing, rzbench failed, no counts)."""


# --- callgrind output ---------------------------------------------------------------------------


@dataclass
class FunctionCost:
    inclusive: dict[str, int]  # per event (Ir; Bc, Bcm, ... with --branch-sim=yes): the
    # function's own cost plus that of everything it calls
    calls: int = 0  # how often it was called


def _name(value: str, names: dict[str, str]) -> str:
    """A callgrind name field: "(12) full name" defines id 12, "(12)" refers to it."""
    value = value.strip()
    if value.startswith("("):
        ident, _, rest = value.partition(")")
        ident += ")"
        if rest.strip():
            names[ident] = rest.strip()
            return rest.strip()
        return names.get(ident, ident)
    return value


def parse_callgrind(path: Path, wanted: Iterable[str]) -> dict[str, FunctionCost]:
    """Inclusive costs and call counts of the named functions from a callgrind output file
    (format: valgrind's "Callgrind Format Specification"). A function's inclusive cost is its
    self cost plus the inclusive cost of every call it makes (self-calls excluded)."""
    wanted_set = set(wanted)
    events: list[str] = []
    costs: dict[str, FunctionCost] = {}
    names: dict[str, str] = {}  # fn= and cfn= share one table (files and objects have theirs)
    current = callee = ""
    call_line_next = False

    def add(line: str) -> None:
        totals = costs[current].inclusive
        for event, value in zip(events, line.split()[1:], strict=False):
            totals[event] += int(value)

    with path.open(errors="replace") as fh:
        for raw in fh:
            line = raw.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            if call_line_next:  # the cost line after calls=: the call's inclusive cost
                call_line_next = False
                if current in wanted_set and callee != current:
                    add(line)
                continue
            if line[0].isdigit() or line[0] in "+-*":  # a self cost line
                if current in wanted_set:
                    add(line)
                continue
            key, _, value = line.partition("=")
            if key == "fn":
                current = _name(value, names)
            elif key == "cfn":
                callee = _name(value, names)
            elif key == "calls":
                if callee in wanted_set and callee != current:
                    costs[callee].calls += int(value.split()[0])
                call_line_next = True
            elif line.startswith("events:"):
                events = line.split(":", 1)[1].split()
                costs = {n: FunctionCost({e: 0 for e in events}) for n in wanted_set}
    if "Ir" not in events:
        raise SpeedError(f"{path}: not a callgrind output with an Ir event")
    return costs


# --- 1. instructions ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PassInstructions:
    """One release x setting x dataset under callgrind: the events of one pass."""

    dataset: str
    setting: int
    uncompressed_bytes: int
    compressed_bytes: int
    compress: dict[str, int]  # per event (Ir; Bc/Bcm/Bi/Bim with branch simulation) of the
    decompress: dict[str, int]  # timed pass (the last one; earlier ones: *_passes)
    compress_passes: list[int]  # Ir of every pass in order: validation, warm-up, sample
    decompress_passes: list[int]
    codecs: dict[str, Any]

    @property
    def compress_ir(self) -> int:
        return self.compress["Ir"]

    @property
    def decompress_ir(self) -> int:
        return self.decompress["Ir"]

    @property
    def compress_per_byte(self) -> float:
        return self.compress_ir / self.uncompressed_bytes

    @property
    def decompress_per_byte(self) -> float:
        return self.decompress_ir / self.uncompressed_bytes


def bench_arguments(corpora: Sequence[Path], settings: Sequence[int], min_samples: int,
                    target_ms: float, json_out: Path) -> list[str]:
    args = ["bench"]
    for corpus in corpora:
        args += ["--corpus", str(corpus)]
    return args + ["--settings", ",".join(str(s) for s in settings), "--no-memcpy",
                   "--min-samples", str(min_samples), "--target-ms", f"{target_ms:g}",
                   "--json", str(json_out), "--quiet"]


def _load_results(json_out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    doc = json.loads(json_out.read_text())
    failed = [r for r in doc["results"] if r.get("error")]
    if failed:
        listed = [(r["dataset"], r["setting"], r["error"]) for r in failed]
        raise SpeedError(f"rzbench results failed: {listed}")
    return doc["results"], doc.get("codecs", {})


def count_instructions(binary: Path, corpus: Path, setting: int, *, branch_sim: bool = False,
                       valgrind: str = "valgrind") -> PassInstructions:
    """Instructions (and with branch_sim callgrind's simulated branch mispredictions) of one
    compression and one decompression pass of `setting` over `corpus` with this rzbench.

    callgrind writes one profile per pass (--dump-after both pass functions); the timed pass,
    the last, is the one reported. The first compression pass also pays for loading libCore
    (the release's static initialisers, ~45 M instructions), so it is never used."""
    with tempfile.TemporaryDirectory(prefix="release-speed-") as tmp:
        out = Path(tmp) / "callgrind.out"
        doc = Path(tmp) / "result.json"
        cmd = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}",
               f"--branch-sim={'yes' if branch_sim else 'no'}",
               "--dump-after=rzbench::Trial::compress_pass*",
               "--dump-after=rzbench::Trial::decompress_pass*",
               str(binary), *bench_arguments([corpus], [setting], 1, 0, doc)]
        try:
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        except FileNotFoundError as exc:
            raise SpeedError(f"{valgrind} not found: install valgrind") from exc
        if done.returncode != 0 or not out.is_file():
            raise SpeedError(f"callgrind of {binary} at {setting} on {corpus.name} failed "
                             f"(exit {done.returncode}): {done.stderr.strip()[-2000:]}")
        results, codecs = _load_results(doc)
        passes: dict[str, list[dict[str, int]]] = {COMPRESS_PASS: [], DECOMPRESS_PASS: []}
        dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
        for dump in dumps:
            for name, cost in parse_callgrind(dump, passes).items():
                if cost.calls:
                    passes[name].append(cost.inclusive)
    comp, decomp = passes[COMPRESS_PASS], passes[DECOMPRESS_PASS]
    if len(comp) < 2 or len(decomp) < 2:
        raise SpeedError(f"{binary}: {len(comp)} / {len(decomp)} profiles of {COMPRESS_PASS} / "
                         f"{DECOMPRESS_PASS} in the callgrind output, expected 3 each (were "
                         "they renamed or inlined?)")
    (result,) = results
    return PassInstructions(
        dataset=result["dataset"], setting=setting,
        uncompressed_bytes=int(result["uncompressed_bytes"]),
        compressed_bytes=int(result["compressed_bytes"]),
        compress=comp[-1], decompress=decomp[-1],
        compress_passes=[c["Ir"] for c in comp], decompress_passes=[d["Ir"] for d in decomp],
        codecs=codecs,
    )


def codec_info(binary: Path) -> dict[str, Any]:
    """The `codecs` object of `rzbench version`: the release and its codec library versions."""
    done = subprocess.run([str(binary), "version"], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SpeedError(f"{binary} version failed: {done.stderr.strip()[-500:]}")
    info: dict[str, Any] = json.loads(done.stdout).get("codecs", {})
    return info


# --- 2. wall clock, interleaved ----------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One short rzbench process: one setting on one corpus, MB/s of its samples."""

    label: str
    compress_median: float
    compress_best: float  # the fastest sample: the one the load disturbed least
    decompress_median: float
    decompress_best: float
    load_before: float  # 1-minute load average when the process started
    seconds: float


def run_once(label: str, binary: Path, corpus: Path, setting: int, min_samples: int,
             target_ms: float) -> Run:
    with tempfile.TemporaryDirectory(prefix="release-speed-") as tmp:
        doc = Path(tmp) / "result.json"
        load = os.getloadavg()[0]
        started = time.monotonic()
        done = subprocess.run(
            [str(binary), *bench_arguments([corpus], [setting], min_samples, target_ms, doc)],
            capture_output=True, text=True, check=False)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise SpeedError(f"{binary} failed (exit {done.returncode}): "
                             f"{done.stderr.strip()[-2000:]}")
        (result,), _ = _load_results(doc)
    comp, decomp = result["compress_mbps"], result["decompress_mbps"]
    return Run(label, comp["median"], comp["max"], decomp["median"], decomp["max"], load,
               seconds)


Key = tuple[str, int]  # (dataset, setting)


@dataclass
class Interleaved:
    old: str
    new: str
    pairs: dict[Key, list[tuple[Run, Run]]]  # per key: (old run, new run), old ran first

    def ratios(self, key: Key, statistic: str) -> list[float]:
        """Per pair: new speed / old speed (= old time / new time); statistic is a Run field."""
        return [getattr(n, statistic) / getattr(o, statistic) for o, n in self.pairs[key]]

    def loads(self) -> list[float]:
        return [r.load_before for runs in self.pairs.values() for pair in runs for r in pair]


Say = Callable[[str], None]


def interleave(old: tuple[str, Path], new: tuple[str, Path], corpora: Sequence[Path],
               settings: Sequence[int], pairs: int, min_samples: int, target_ms: float,
               say: Say = lambda _m: None) -> Interleaved:
    """Old, new, old, new, ...: one short process per release, setting and corpus, so the two
    runs of a pair are seconds apart; `pairs` rounds over every setting and corpus."""
    result = Interleaved(old[0], new[0], {})
    for i in range(pairs):
        for corpus in corpora:
            for setting in settings:
                a = run_once(old[0], old[1], corpus, setting, min_samples, target_ms)
                b = run_once(new[0], new[1], corpus, setting, min_samples, target_ms)
                result.pairs.setdefault((corpus.stem, setting), []).append((a, b))
        say(f"round {i + 1}/{pairs} done, load {os.getloadavg()[0]:.2f}")
    return result


# --- tables -------------------------------------------------------------------------------------


def _fmt_ratio(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def instructions_table(old: str, new: str,
                       rows: Sequence[tuple[PassInstructions, PassInstructions]]) -> str:
    """Instructions per uncompressed byte of the timed pass; `old/new` > 1: the new release
    executes fewer instructions."""
    lines = [
        f"| dataset | setting | ratio | compress {old} | compress {new} | {old}/{new} | "
        f"decompress {old} | decompress {new} | {old}/{new} |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for a, b in rows:
        lines.append(
            f"| {a.dataset} | {a.setting} | {a.uncompressed_bytes / a.compressed_bytes:.3f} | "
            f"{a.compress_per_byte:.1f} | {b.compress_per_byte:.1f} | "
            f"{a.compress_ir / b.compress_ir:.3f} | {a.decompress_per_byte:.2f} | "
            f"{b.decompress_per_byte:.2f} | {a.decompress_ir / b.decompress_ir:.3f} |")
    return "\n".join(lines)


def branch_table(old: str, new: str,
                 rows: Sequence[tuple[PassInstructions, PassInstructions]]) -> str:
    """Decompression's conditional branches (Bc) and mispredictions (Bcm) of callgrind's
    simple branch predictor model, per uncompressed byte: what instruction counts miss."""
    lines = [
        f"| dataset | setting | branches {old} | branches {new} | mispredicted {old} | "
        f"mispredicted {new} | {old}/{new} |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for a, b in rows:
        n = a.uncompressed_bytes
        lines.append(
            f"| {a.dataset} | {a.setting} | {a.decompress['Bc'] / n:.3f} | "
            f"{b.decompress['Bc'] / n:.3f} | {a.decompress['Bcm'] / n:.4f} | "
            f"{b.decompress['Bcm'] / n:.4f} | "
            f"{a.decompress['Bcm'] / max(b.decompress['Bcm'], 1):.2f} |")
    return "\n".join(lines)


def wall_table(run: Interleaved) -> str:
    """Per setting: the medians of both releases, and the per-pair time ratios old/new (> 1:
    the new release is faster), from the process medians and from the fastest samples."""
    old, new = run.old, run.new
    lines = [
        f"| dataset | setting | decompress MB/s {old} | {new} | decompress {old}/{new} "
        f"time (medians): median (range) | same, fastest samples | compress {old}/{new} "
        "(medians) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for key in sorted(run.pairs):
        pairs = run.pairs[key]
        lines.append(
            f"| {key[0]} | {key[1]} | "
            f"{statistics.median(o.decompress_median for o, _ in pairs):.1f} | "
            f"{statistics.median(n.decompress_median for _, n in pairs):.1f} | "
            f"{_fmt_ratio(run.ratios(key, 'decompress_median'))} | "
            f"{_fmt_ratio(run.ratios(key, 'decompress_best'))} | "
            f"{_fmt_ratio(run.ratios(key, 'compress_median'))} |")
    loads = run.loads()
    rounds = max(len(p) for p in run.pairs.values())
    lines.append("")
    lines.append(f"{rounds} pairs per row; load average (1 min) at the start of each process: "
                 f"{min(loads):.2f}-{max(loads):.2f} (median {statistics.median(loads):.2f})")
    return "\n".join(lines)
