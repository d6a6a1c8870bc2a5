"""How busy the machine was around a timed run: load average, CPU steal and busy time
(/proc/loadavg, /proc/stat), the CPU governor and frequency where readable.

Recorded at the start and the end of every run (the document's `load`); a run on a busy machine
is flagged (`busy`), so that detection and compare say so instead of testing its speeds.
Instruction counts (measure/rzbench/counting.py) do not depend on any of this.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PROC = Path("/proc")
SYS_CPU = Path("/sys/devices/system/cpu")
# Busy: other work beside the run would have held at least half the logical cores (load average
# before the run, or at its end minus the run itself), or the hypervisor took >= 5 % of the CPU.
BUSY_LOAD_PER_CORE = 0.5
BUSY_STEAL_FRACTION = 0.05
_STAT_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def _cpu_times(root: Path) -> dict[str, int] | None:
    text = _read(root / "stat")
    if not text:
        return None
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            values = [int(v) for v in parts[1 : 1 + len(_STAT_FIELDS)]]
            return dict(zip(_STAT_FIELDS, values, strict=False))
    return None


def _frequencies_mhz(sys_cpu: Path, root: Path) -> list[float]:
    freqs = []
    for path in sorted(sys_cpu.glob("cpu[0-9]*/cpufreq/scaling_cur_freq")):
        text = _read(path)
        if text and text.strip().isdigit():
            freqs.append(int(text) / 1000)
    if freqs:
        return freqs
    for line in (_read(root / "cpuinfo") or "").splitlines():
        if line.startswith("cpu MHz"):
            freqs.append(float(line.split(":", 1)[1]))
    return freqs


def snapshot(root: Path = PROC, sys_cpu: Path = SYS_CPU) -> dict[str, Any]:
    """The machine's state now; fields that cannot be read are null."""
    loadavg = (_read(root / "loadavg") or "").split()
    governor = _read(sys_cpu / "cpu0" / "cpufreq" / "scaling_governor")
    return {
        "load1": float(loadavg[0]) if loadavg else None,
        "load5": float(loadavg[1]) if len(loadavg) > 1 else None,
        "cpu_times": _cpu_times(root),
        "governor": governor.strip() if governor else None,
        "frequencies_mhz": _frequencies_mhz(sys_cpu, root) or None,
    }


def summarize(
    start: dict[str, Any], end: dict[str, Any], cores: int | None = None
) -> dict[str, Any]:
    """The document's `load`: both snapshots, the steal and busy fractions of the CPU time
    between them, and whether the run counts as made on a busy machine (with the reasons)."""
    cores = cores or os.cpu_count() or 1
    steal = busy_fraction = None
    a, b = start.get("cpu_times"), end.get("cpu_times")
    if a and b:
        delta = {k: b.get(k, 0) - a.get(k, 0) for k in _STAT_FIELDS}
        total = sum(delta.values())
        if total > 0:
            steal = delta["steal"] / total
            busy_fraction = 1 - (delta["idle"] + delta["iowait"]) / total
    limit = BUSY_LOAD_PER_CORE * cores
    reasons = []
    if start.get("load1") is not None and start["load1"] >= limit:
        reasons.append(f"load average {start['load1']:.2f} at start (>= {limit:g})")
    if end.get("load1") is not None and end["load1"] - 1 >= limit:
        reasons.append(
            f"load average {end['load1']:.2f} at end, the run's own 1 aside (>= {limit:g})"
        )
    if steal is not None and steal >= BUSY_STEAL_FRACTION:
        reasons.append(f"steal {steal:.1%} of CPU time (>= {BUSY_STEAL_FRACTION:.0%})")
    return {
        "start": start,
        "end": end,
        "cores": cores,
        "steal_fraction": steal,
        "cpu_busy_fraction": busy_fraction,
        "busy": bool(reasons),
        "busy_reasons": reasons,
    }
