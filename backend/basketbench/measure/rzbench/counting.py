"""Instruction counts: rzbench's codec passes counted under valgrind's callgrind.

`rzbench bench --count` runs each configuration's compress and decompress pass once, with
callgrind's instrumentation switched on only around the codec calls (client requests) and the
counters dumped per pass to a file labelled `rzbench-count:<result index>:<operation>`. Counts are
deterministic: the same binary on the same corpus gives the same instructions whatever else the
machine runs, so a change beyond a small threshold is a code change (stats/counts.py).

The caches are simulated with a fixed geometry (CACHE_MODEL) rather than valgrind's guess from the
host, so estimated cycles compare across hosts; the estimate is iai-callgrind's model:
    cycles = L1 hits + 5 * LL hits + 35 * RAM hits
with L1 hits = Ir + Dr + Dw - (I1mr + D1mr + D1mw), LL hits = L1 misses - LL misses,
RAM hits = ILmr + DLmr + DLmw.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from basketbench.measure.rzbench.runner import Launcher

# (size bytes, associativity, line bytes): a common x86 core of the last decade (32 KiB 8-way
# L1s, an 8 MiB 16-way last level).
CACHE_MODEL = {"I1": (32768, 8, 64), "D1": (32768, 8, 64), "LL": (8388608, 16, 64)}
CYCLE_MODEL = "L1 hits + 5 * LL hits + 35 * RAM hits (iai-callgrind)"
EVENTS = ("Ir", "Dr", "Dw", "I1mr", "D1mr", "D1mw", "ILmr", "DLmr", "DLmw")
OPERATIONS = ("compress", "decompress")
# The result fields a counted run adds (names contain `instructions` or `cycles`).
COUNT_FIELDS = tuple(
    f"{op}_{what}"
    for op in OPERATIONS
    for what in (
        "instructions",
        "instructions_per_mb",
        "estimated_cycles",
        "estimated_cycles_per_mb",
    )
)
_LABEL = re.compile(r"^desc: Trigger: Client Request: rzbench-count:(\d+):(compress|decompress)$")


class CountingError(RuntimeError):
    """Counting could not run or produced no usable counts."""


def valgrind_path() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise CountingError(
            "valgrind not found: install it (Debian: apt-get install valgrind; "
            "scripts/system-deps.sh does) to count instructions"
        )
    return path


def valgrind_version() -> str:
    """`valgrind-3.19.0`: part of the machine's fingerprint for counted runs."""
    out = subprocess.run(
        [valgrind_path(), "--version"], capture_output=True, text=True, check=False
    )
    version = out.stdout.strip()
    if out.returncode != 0 or not version:
        raise CountingError(f"valgrind --version failed: {out.stderr.strip()}")
    return version


def record_valgrind(doc: dict[str, Any]) -> None:
    """The host's valgrind version into the machine's fingerprint, whenever valgrind is
    installed (counted run or not, so that counting does not split the machine's series)."""
    with contextlib.suppress(CountingError):
        doc["machine"]["valgrind"] = valgrind_version()


def callgrind_arguments(out_file: Path) -> list[str]:
    caches = [f"--{name}={s},{a},{line}" for name, (s, a, line) in CACHE_MODEL.items()]
    return [
        "--tool=callgrind",
        "--instr-atstart=no",  # rzbench switches instrumentation on around the codec calls
        "--cache-sim=yes",
        *caches,
        "--dump-line=no",
        "--compress-strings=no",
        f"--callgrind-out-file={out_file}",
    ]


@dataclass(frozen=True)
class PassCounts:
    """The simulated events of one counted pass."""

    events: dict[str, int]

    @property
    def instructions(self) -> int:
        return self.events["Ir"]

    @property
    def estimated_cycles(self) -> int:
        e = self.events
        l1_misses = e["I1mr"] + e["D1mr"] + e["D1mw"]
        ram = e["ILmr"] + e["DLmr"] + e["DLmw"]
        accesses = e["Ir"] + e["Dr"] + e["Dw"]
        return (accesses - l1_misses) + 5 * (l1_misses - ram) + 35 * ram


def parse_dump(text: str) -> tuple[int, str, PassCounts] | None:
    """(result index, operation, counts) of one callgrind dump, None for other dumps (the final
    one at exit)."""
    label = None
    names: list[str] = []
    for line in text.splitlines():
        match = _LABEL.match(line)
        if match:
            label = (int(match.group(1)), match.group(2))
        elif line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:") and label is not None:
            values = [int(v) for v in line.split()[1:]]
            events = dict(zip(names, values, strict=False))
            missing = [e for e in EVENTS if e not in events]
            if missing:
                raise CountingError(f"callgrind dump without events {missing} (cache-sim off?)")
            return label[0], label[1], PassCounts({e: events[e] for e in EVENTS})
    return None


def read_dumps(directory: Path) -> dict[tuple[int, str], PassCounts]:
    counts: dict[tuple[int, str], PassCounts] = {}
    for path in sorted(directory.glob("callgrind.out*")):
        parsed = parse_dump(path.read_text(errors="replace"))
        if parsed is not None:
            counts[(parsed[0], parsed[1])] = parsed[2]
    return counts


def result_key(result: dict[str, Any]) -> tuple[Any, ...]:
    """What identifies a result within one document (dataset x configuration)."""
    return (
        result["dataset"],
        result["setting"],
        result["codec"],
        result["preconditioner"],
        result["dictionary_size"],
        result["basket_size"],
        result["mode"],
        result["threads"],
    )


def count_fields(counts: PassCounts, uncompressed_bytes: int, operation: str) -> dict[str, Any]:
    mb = uncompressed_bytes / 1e6
    return {
        f"{operation}_instructions": counts.instructions,
        f"{operation}_instructions_per_mb": counts.instructions / mb if mb else None,
        f"{operation}_estimated_cycles": counts.estimated_cycles,
        f"{operation}_estimated_cycles_per_mb": counts.estimated_cycles / mb if mb else None,
    }


def merge_counts(
    doc: dict[str, Any],
    count_doc: dict[str, Any],
    counts: dict[tuple[int, str], PassCounts],
    version: str,
) -> None:
    """Add the count fields to each result of doc (matched by key with count_doc's results),
    the counting model to doc["instructions"] and the valgrind version to the machine."""
    by_key: dict[tuple[Any, ...], dict[str, Any]] = {}
    for index, counted in enumerate(count_doc["results"]):
        if counted.get("error") is not None:
            continue
        fields: dict[str, Any] = {}
        for op in OPERATIONS:
            if (index, op) not in counts:
                raise CountingError(f"no callgrind dump for result {index} {op}")
            fields.update(count_fields(counts[(index, op)], counted["uncompressed_bytes"], op))
        by_key[result_key(counted)] = fields
    for result in doc["results"]:
        found = by_key.get(result_key(result))
        if found is None or result.get("error") is not None:
            result.update(dict.fromkeys(COUNT_FIELDS))
        else:
            result.update(found)
    doc["instructions"] = {
        "tool": "callgrind",
        "valgrind": version,
        "caches": {name: list(geometry) for name, geometry in CACHE_MODEL.items()},
        "cycle_model": CYCLE_MODEL,
    }
    doc["machine"]["valgrind"] = version


def count_results(
    binary: Path, bench_arguments: list[str], *, timeout: float | None = None,
    launcher: Launcher | None = None,
) -> tuple[dict[str, Any], dict[tuple[int, str], PassCounts]]:
    """Run `rzbench bench ARGS --count` under callgrind: its document (results without speeds)
    and the counts per (result index, operation). `launcher` wraps the command (a sandbox)."""
    valgrind = valgrind_path()
    with tempfile.TemporaryDirectory(prefix="rzbench-count-") as tmp:
        directory = Path(tmp)
        count_json = directory / "count.json"
        argv = [
            valgrind,
            *callgrind_arguments(directory / "callgrind.out"),
            str(binary),
            "bench",
            *bench_arguments,
            "--count",
            "--json",
            str(count_json),
            "--quiet",
        ]
        proc = subprocess.run(
            launcher(argv, [directory]) if launcher else argv,
            capture_output=True, text=True, errors="replace", timeout=timeout,
        )
        if proc.returncode not in (0, 1) or not count_json.is_file():
            messages = [ln for ln in proc.stderr.splitlines() if not ln.startswith("==")]
            detail = "\n".join(messages[-10:]).strip() or f"exit code {proc.returncode}"
            raise CountingError(f"counting under valgrind failed: {detail}")
        count_doc: dict[str, Any] = json.loads(count_json.read_text())
        return count_doc, read_dumps(directory)


def run_counted(
    binary: Path,
    bench_arguments: list[str],
    doc: dict[str, Any],
    *,
    timeout: float | None = None,
    launcher: Launcher | None = None,
) -> None:
    """Count the configurations of bench_arguments (the timed run's own arguments) and merge the
    counts into doc, the timed run's document."""
    version = valgrind_version()
    count_doc, counts = count_results(binary, bench_arguments, timeout=timeout,
                                      launcher=launcher)
    merge_counts(doc, count_doc, counts, version)
