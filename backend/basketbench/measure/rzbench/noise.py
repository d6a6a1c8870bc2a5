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
# before the run or at its end, minus the run's own work), or the hypervisor took >= 5 % of the CPU.
BUSY_LOAD_PER_CORE = 0.5
BUSY_STEAL_FRACTION = 0.05
# The run's own work in the load average: one busy thread. At the end it is the run itself; at
# the start it is the worker's previous job, since the 1-minute average decays slowly: a
# dedicated worker running jobs back to back starts each at a load of about 1, and that is no
# interference (issue 32: on a 2-core worker the old rule flagged every such run busy, and
# detection then left out every speed without a word).
OWN_LOAD = 1.0
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
    reasons = busy_reasons(start, end, cores, steal)
    return {
        "start": start,
        "end": end,
        "cores": cores,
        "steal_fraction": steal,
        "cpu_busy_fraction": busy_fraction,
        "busy": bool(reasons),
        "busy_reasons": reasons,
    }


def busy_reasons(start: dict[str, Any], end: dict[str, Any], cores: int,
                 steal: float | None) -> list[str]:
    """Why a run counts as measured on a busy machine (empty: it does not): other work
    beside the run's own (OWN_LOAD) held at least half the cores at its start or end, or
    the hypervisor stole CPU time."""
    limit = BUSY_LOAD_PER_CORE * max(cores, 1)
    reasons = []
    for when, snap in (("start", start), ("end", end)):
        load1 = snap.get("load1")
        if load1 is not None and load1 - OWN_LOAD >= limit:
            own = "the previous job's" if when == "start" else "the run's own"
            reasons.append(f"load average {load1:.2f} at {when}, {own} {OWN_LOAD:g} aside "
                           f"(>= {limit:g} beside it)")
    if steal is not None and steal >= BUSY_STEAL_FRACTION:
        reasons.append(f"steal {steal:.1%} of CPU time (>= {BUSY_STEAL_FRACTION:.0%})")
    return reasons


def rejudge(load: dict[str, Any] | None) -> dict[str, Any] | None:
    """A document's ``load`` judged by the current rule (``busy_reasons``) from its own
    snapshots, so that documents written under an older rule are not left out of
    detection by it; what the document said is kept as ``busy_as_sent`` when it differs.
    A load without snapshots is returned as it is."""
    if not load or not isinstance(load.get("start"), dict) or not isinstance(load.get("end"),
                                                                             dict):
        return load
    given = load.get("cores")
    cores = given if isinstance(given, int) and given > 0 else os.cpu_count() or 1
    steal = load.get("steal_fraction")
    reasons = busy_reasons(load["start"], load["end"], cores,
                           steal if isinstance(steal, int | float) else None)
    if bool(reasons) == bool(load.get("busy")) and reasons == load.get("busy_reasons"):
        return load
    return {**load, "busy": bool(reasons), "busy_reasons": reasons,
            "busy_as_sent": load.get("busy")}
