"""Which speeds the cost model's CPU term uses, from evidence that does not swing with the load.

One advise run measures speeds at whatever load the machine has then: ZLIB-1 compression was
7.1 MB/s one run and 19.7 MB/s ten minutes later on this project's 2-core machine (issue 32).
`advise` therefore keeps each run's per-setting speeds in a small local history, one JSON line
per run, keyed by the build that measured them (machine fingerprint, codec set and versions,
harness build), and ranks with, in order of preference:

1. "history": the median over the machine's recent runs of the same build (this one
   included), each run contributing its median; resampled over those per-run medians;
2. "this-run": this run's own medians when no earlier run of the build is known; resampled
   over this run's samples.

(A/B-calibrated speeds live in the tracker's database, ab_effects; the API's ranking states
its own evidence. The CLI has no database.)
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from basketbench.measure.whole_files import replace_text

CACHE_ENV = "BASKETBENCH_CACHE_DIR"
RECENT_RUNS = 10  # the newest runs of a build that count
MAX_AGE_DAYS = 30.0  # older runs measured another machine state (updates, firmware)
KEEP_LINES = 2000  # the history file is trimmed to this many runs

Key = tuple[int, str]


def default_history_path() -> Path:
    base = os.environ.get(CACHE_ENV)
    return (Path(base) if base else Path.home() / ".cache" / "basketbench") / (
        "advise-speeds.jsonl")


def build_key(document: Mapping[str, Any]) -> str:
    """The build that measured a speeds document: machine, codec set and versions, harness."""
    machine = document.get("machine") or {}
    what = {
        "machine": machine.get("fingerprint_hash") or machine.get("cpu_model"),
        "codecs": document.get("codecs"),
        "build": document.get("build"),
        "backend": document.get("backend"),
    }
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]


def run_samples(document: Mapping[str, Any]) -> dict[Key, tuple[list[float], list[float]]]:
    """Per setting, this run's compression and decompression MB/s samples."""
    out: dict[Key, tuple[list[float], list[float]]] = {}
    for r in document["results"]:
        if r["setting"] == 0 or r.get("error") or not r.get("compress_mbps"):
            continue
        comp = r["compress_mbps"]
        dec = r["decompress_mbps"]
        out[(int(r["setting"]), str(r["preconditioner"]))] = (
            [float(x) for x in comp.get("samples") or [comp["median"]]],
            [float(x) for x in dec.get("samples") or [dec["median"]]],
        )
    return out


@dataclass
class SpeedEvidence:
    source: str  # "history" or "this-run"
    runs: int  # runs of this build whose speeds count (this one included)
    build: str
    speeds: dict[Key, tuple[float, float]]  # what the cost model uses
    samples: dict[Key, tuple[list[float], list[float]]] = field(default_factory=dict)

    @property
    def description(self) -> str:
        if self.source == "history":
            return (f"median of the {self.runs} most recent advise runs of this build on this "
                    f"machine (this one included; each run's median speeds)")
        return ("this run's measured speeds (no earlier advise run of this build on this "
                "machine: a run at another load may rank otherwise)")

    def as_dict(self) -> dict[str, Any]:
        return {"source": self.source, "runs": self.runs, "build": self.build,
                "description": self.description}


def _read(path: Path, key: str, now: float) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    runs = []
    for line in path.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue  # a line cut by a crash: the others still count
        if (isinstance(entry, dict) and entry.get("build") == key
                and now - float(entry.get("time", 0)) <= MAX_AGE_DAYS * 86400):
            runs.append(entry)
    return runs[-(RECENT_RUNS - 1):] if RECENT_RUNS > 1 else []


def _append(path: Path, entry: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = path.read_text(errors="replace").splitlines() if path.is_file() else []
    lines = [*lines[-(KEEP_LINES - 1):], json.dumps(entry, sort_keys=True)]
    replace_text(path, "\n".join(lines) + "\n")


def _label(key: Key) -> str:
    return f"{key[0]}/{key[1]}"


def choose_speeds(document: Mapping[str, Any], history: Path | None,
                  now: float | None = None) -> SpeedEvidence:
    """The speeds to rank with, and the evidence behind them; records this run in `history`
    (None: no history, this run's speeds only)."""
    now = time.time() if now is None else now
    key = build_key(document)
    mine = run_samples(document)
    medians = {k: (statistics.median(c), statistics.median(d)) for k, (c, d) in mine.items()}
    earlier = _read(history, key, now) if history is not None else []
    if history is not None:
        _append(history, {"build": key, "time": now,
                          "speeds": {_label(k): list(v) for k, v in medians.items()}})
    if not earlier:
        return SpeedEvidence("this-run", 1, key, medians, mine)
    per_run: dict[Key, tuple[list[float], list[float]]] = {
        k: ([c], [d]) for k, (c, d) in medians.items()}
    for entry in earlier:
        for k in per_run:
            value = entry.get("speeds", {}).get(_label(k))
            if isinstance(value, list) and len(value) == 2:
                per_run[k][0].append(float(value[0]))
                per_run[k][1].append(float(value[1]))
    speeds = {k: (statistics.median(c), statistics.median(d)) for k, (c, d) in per_run.items()}
    return SpeedEvidence("history", 1 + len(earlier), key, speeds, per_run)
