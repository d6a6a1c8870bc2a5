"""Which compression setting to use: rank measured settings by what they cost.

A pure function of measured numbers and a cost model (no database, no I/O), so the
CLI (`basketbench advise`), the API and the dashboard rank with the very same code.

The cost model is Squash's "transfer + processing" view, priced: every write
compresses the raw bytes and moves the compressed bytes over the network; every read
moves them and decompresses them; the compressed bytes are stored for `months`. Time
(compute and transfer alike, since the core waits for the network) is charged at the
price of a core-hour; storage at the price of a TB-month (decimal TB).

    total = storage + writes * (raw / compress_speed + compressed / bandwidth) * cpu
                    + reads  * (raw / decompress_speed + compressed / bandwidth) * cpu

Every total is linear in each price, in the reads and writes per file, in the months,
and in 1/bandwidth, so the range of a parameter over which the winner keeps winning
(its sensitivity) is found exactly from the cost lines' crossings, not by sampling.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import Any

import numpy as np

from basketbench.measure.advise.root_snippet import root_snippet

MB = 1_000_000
TB = 1_000_000_000_000
HOUR = 3600.0


@dataclass(frozen=True)
class CostModel:
    """Prices and usage; the defaults (a typical cloud site) are stated in `advise --help`."""

    storage_per_tb_month: float = 20.0  # currency units per decimal TB per month
    months: float = 36.0  # how long the file is kept
    cpu_per_core_hour: float = 0.05  # currency units per core-hour
    reads_per_file: float = 10.0  # how often the whole file is read
    writes_per_file: float = 1.0  # write once (read N times)
    network_mb_per_s: float = 100.0  # decimal MB/s between storage and the core

    def __post_init__(self) -> None:
        for f in fields(self):
            name, value = f.name, getattr(self, f.name)
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"{name} must be a finite number >= 0, got {value}")
        if self.network_mb_per_s == 0:
            raise ValueError("network_mb_per_s must be > 0")


@dataclass(frozen=True)
class Candidate:
    """One measured setting on one piece of data (a file, a branch, a type class)."""

    setting: int
    preconditioner: str
    raw_bytes: int
    compressed_bytes: int
    compress_mb_s: float  # uncompressed MB per second
    decompress_mb_s: float

    @property
    def label(self) -> str:
        return str(self.setting) if self.preconditioner == "none" else (
            f"{self.setting}+{self.preconditioner}"
        )

    def check(self) -> None:
        if self.raw_bytes <= 0 or self.compressed_bytes <= 0:
            raise ValueError(f"{self.label}: raw_bytes and compressed_bytes must be > 0")
        for name in ("compress_mb_s", "decompress_mb_s"):
            value = getattr(self, name)
            if not math.isfinite(value) or value <= 0:
                raise ValueError(f"{self.label}: {name} must be a finite number > 0, got {value}")


@dataclass(frozen=True)
class CostBreakdown:
    storage: float
    write: float
    read: float

    @property
    def total(self) -> float:
        return self.storage + self.write + self.read


def cost_of(c: Candidate, m: CostModel) -> CostBreakdown:
    per_second = m.cpu_per_core_hour / HOUR
    transfer_s = c.compressed_bytes / (m.network_mb_per_s * MB)
    write_s = c.raw_bytes / (c.compress_mb_s * MB) + transfer_s
    read_s = c.raw_bytes / (c.decompress_mb_s * MB) + transfer_s
    return CostBreakdown(
        storage=c.compressed_bytes / TB * m.storage_per_tb_month * m.months,
        write=m.writes_per_file * write_s * per_second,
        read=m.reads_per_file * read_s * per_second,
    )


@dataclass(frozen=True)
class Ranked:
    rank: int
    candidate: Candidate
    cost: CostBreakdown
    # No other setting is as small, as fast to write and as fast to read, and better in one.
    pareto: bool


@dataclass(frozen=True)
class Crossing:
    """Beyond `value` of `parameter`, `winner` takes over."""

    parameter: str
    direction: str  # "below" or "above"
    value: float
    winner: str


@dataclass(frozen=True)
class Recommendation:
    model: CostModel
    ranking: list[Ranked]
    margin: float  # (runner-up total - best total) / best total; inf with a single candidate
    sensitivity: list[Crossing] = field(default_factory=list)

    @property
    def best(self) -> Ranked:
        return self.ranking[0]

    def summary(self) -> str:
        """The headline in words, e.g. "ZSTD-5 (505) costs the least: 4.1 % less total cost
        than ZLIB-1 (101), the runner-up; ZLIB-1 (101) instead if a file is read fewer than
        3 times"."""
        best = setting_words(self.best.candidate.label)
        if math.isinf(self.margin):
            return f"{best} is the only measured setting"
        runner_up = setting_words(self.ranking[1].candidate.label)
        head = (f"{best} costs the least: {100 * self.margin:.1f} % less total cost than "
                f"{runner_up}, the runner-up")
        unless = [f"{setting_words(c.winner)} instead if {crossing_words(c)}"
                  for c in self.sensitivity]
        return head + ("; " + "; ".join(unless) if unless else "")

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": asdict(self.model),
            "recommended": self.best.candidate.label,
            "margin": None if math.isinf(self.margin) else self.margin,
            "summary": self.summary(),
            "ranking": [
                {
                    "rank": r.rank,
                    "label": r.candidate.label,
                    **asdict(r.candidate),
                    "ratio": r.candidate.raw_bytes / r.candidate.compressed_bytes,
                    "cost_storage": r.cost.storage,
                    "cost_write": r.cost.write,
                    "cost_read": r.cost.read,
                    "cost_total": r.cost.total,
                    "pareto": r.pareto,
                }
                for r in self.ranking
            ],
            "sensitivity": [asdict(c) for c in self.sensitivity],
            "snippet": root_snippet(self.best.candidate.label),
        }


def _short(value: float) -> str:
    return f"{value:.3g}"


CODEC_NAMES = {0: "uncompressed", 1: "ZLIB", 2: "LZMA", 3: "old ZLIB", 4: "LZ4", 5: "ZSTD"}


def setting_words(label: str) -> str:
    """"505" as "ZSTD-5 (505)", "505+shuffle" as "ZSTD-5 + shuffle (505+shuffle)"."""
    setting, _, pre = label.partition("+")
    try:
        number = int(setting)
    except ValueError:
        return label
    name = CODEC_NAMES.get(number // 100, f"algorithm {number // 100}")
    words = name if number == 0 else f"{name}-{number % 100}"
    return f"{words}{' + ' + pre if pre else ''} ({label})"


# (below, above): what a crossing of each cost-model parameter means, in words
_CROSSING_WORDS = {
    "reads_per_file": ("a file is read fewer than {} times", "a file is read more than {} times"),
    "storage_per_tb_month": ("storage costs less than {} per TB-month",
                             "storage costs more than {} per TB-month"),
    "cpu_per_core_hour": ("a core-hour costs less than {}", "a core-hour costs more than {}"),
    "network_mb_per_s": ("the network is slower than {} MB/s",
                         "the network is faster than {} MB/s"),
}


def crossing_words(c: Crossing) -> str:
    below, above = _CROSSING_WORDS.get(c.parameter, (c.parameter + " < {}",
                                                     c.parameter + " > {}"))
    return (below if c.direction == "below" else above).format(_short(c.value))


def pareto_set(candidates: Sequence[Candidate]) -> set[int]:
    """Indices of candidates not dominated in (size, compression time, decompression time)."""

    def dims(c: Candidate) -> tuple[float, float, float]:
        return (c.compressed_bytes, 1 / c.compress_mb_s, 1 / c.decompress_mb_s)

    front = set()
    for i, a in enumerate(candidates):
        da = dims(a)
        dominated = any(
            all(x <= y for x, y in zip(dims(b), da, strict=True)) and dims(b) != da
            for j, b in enumerate(candidates)
            if j != i
        )
        if not dominated:
            front.add(i)
    return front


# Parameters whose crossings are reported, each with the transform in which the totals are
# linear (bandwidth enters as 1/bandwidth) and its inverse.
_Transform = tuple[Callable[[float], float], Callable[[float], float]]
_IDENTITY: _Transform = (lambda v: v, lambda g: g)
_RECIPROCAL: _Transform = (lambda v: 1 / v, lambda g: 1 / g)
SENSITIVITY_PARAMETERS: dict[str, _Transform] = {
    "reads_per_file": _IDENTITY,
    "storage_per_tb_month": _IDENTITY,
    "cpu_per_core_hour": _IDENTITY,
    "network_mb_per_s": _RECIPROCAL,
}


def _columns(candidates: Sequence[Candidate]) -> tuple[np.ndarray, ...]:
    """raw, compressed bytes and both speeds as arrays: costs of every candidate at once."""
    return tuple(np.array([getattr(c, name) for c in candidates], dtype=np.float64)
                 for name in ("raw_bytes", "compressed_bytes", "compress_mb_s",
                              "decompress_mb_s"))


def _totals(columns: tuple[np.ndarray, ...], m: CostModel) -> np.ndarray:
    """cost_of(c, m).total of every candidate, with cost_of's very operations in its order
    (float64 arithmetic: the same numbers)."""
    raw, compressed, compress, decompress = columns
    per_second = m.cpu_per_core_hour / HOUR
    transfer_s = compressed / (m.network_mb_per_s * MB)
    write_s = raw / (compress * MB) + transfer_s
    read_s = raw / (decompress * MB) + transfer_s
    storage = compressed / TB * m.storage_per_tb_month * m.months
    write = m.writes_per_file * write_s * per_second
    read = m.reads_per_file * read_s * per_second
    total: np.ndarray = storage + write + read
    return total


# Below this many candidates a plain loop is cheaper than numpy's per-call overhead (a
# request may rank thousands of groups of a few settings each).
VECTOR_FROM = 8


def _crossings_few(candidates: Sequence[Candidate], at0: CostModel, at1: CostModel,
                   here: float, back: Callable[[float], float], best: int,
                   parameter: str) -> list[Crossing]:
    """_crossings for a few candidates: the same arithmetic, one candidate at a time."""
    lines = []
    for c in candidates:
        t0 = cost_of(c, at0).total
        lines.append((t0, cost_of(c, at1).total - t0))
    a_w, b_w = lines[best]
    below: tuple[float, int] | None = None  # nearest crossing with g < here
    above: tuple[float, int] | None = None
    for i, (a, b) in enumerate(lines):
        if i == best or b == b_w:
            continue
        g = (a - a_w) / (b_w - b)
        if not math.isfinite(g):
            continue
        if g < here and g > 0 and (below is None or g > below[0]):
            below = (g, i)
        elif g > here and (above is None or g < above[0]):
            above = (g, i)
    return _crossing_out(candidates, parameter, back,
                         below[1] if below else None, below[0] if below else 0.0,
                         above[1] if above else None, above[0] if above else 0.0)


def _crossing_out(candidates: Sequence[Candidate], parameter: str,
                  back: Callable[[float], float], below: int | None, g_below: float,
                  above: int | None, g_above: float) -> list[Crossing]:
    out = []
    for found, g, side in ((below, g_below, "below"), (above, g_above, "above")):
        if found is None:
            continue
        # With bandwidth the transform reverses the order: small g = large bandwidth.
        if back is not _IDENTITY[1]:
            side = "above" if side == "below" else "below"
        out.append(Crossing(parameter, side, back(g), candidates[found].label))
    return out


def _crossings(
    candidates: Sequence[Candidate], model: CostModel, best: int, parameter: str,
    columns: tuple[np.ndarray, ...] | None = None,
) -> list[Crossing]:
    """The nearest values of `parameter` below and above the model's at which another
    candidate's cost line crosses the winner's. Vectorised: a request ranks up to
    thousands of groups of up to 120 candidates (docs/API.md states the bound)."""
    forward, back = SENSITIVITY_PARAMETERS[parameter]
    here = forward(getattr(model, parameter))
    # total(g) = a + b * g, from two evaluations (exact: the total is linear in g)
    at0 = _at(model, parameter, 0.0)
    at1 = _at(model, parameter, 1.0)
    if len(candidates) < VECTOR_FROM:
        return _crossings_few(candidates, at0, at1, here, back, best, parameter)
    columns = columns if columns is not None else _columns(candidates)
    a = _totals(columns, at0)
    b = _totals(columns, at1) - a
    a_w, b_w = a[best], b[best]
    usable = b != b_w
    usable[best] = False
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g = (a - a_w) / np.where(usable, b_w - b, 1.0)
    usable &= np.isfinite(g)
    below = np.flatnonzero(usable & (g < here) & (g > 0))  # nearest crossing with g < here
    above = np.flatnonzero(usable & (g > here))
    lo = int(below[np.argmax(g[below])]) if below.size else None  # the first of ties
    hi = int(above[np.argmin(g[above])]) if above.size else None
    return _crossing_out(candidates, parameter, back, lo, float(g[lo]) if lo is not None
                         else 0.0, hi, float(g[hi]) if hi is not None else 0.0)


def back_or_zero(back: Callable[[float], float], g: float) -> float:
    """A parameter value for transformed value g (g = 0 of 1/bandwidth is infinite bandwidth)."""
    if back is _IDENTITY[1]:
        return g
    return math.inf if g == 0 else back(g)


@lru_cache(maxsize=64)
def _at(model: CostModel, parameter: str, g: float) -> CostModel:
    """``model`` with ``parameter`` at transformed value ``g``: made once per model, not
    once per ranking (a request ranks every group under the same model)."""
    return _with(model, parameter, back_or_zero(SENSITIVITY_PARAMETERS[parameter][1], g))


def _with(model: CostModel, parameter: str, value: float) -> CostModel:
    # Bypass validation for the infinite bandwidth used to find the lines' intercepts
    # (copy, not dataclasses.replace: no __post_init__, called thousands of times per request).
    clone = copy.copy(model)
    object.__setattr__(clone, parameter, value)
    return clone


def recommend(candidates: Sequence[Candidate], model: CostModel | None = None, *,
              pareto: bool = True) -> Recommendation:
    """Rank `candidates` by total cost under `model` (ties: smaller, then lower setting).
    ``pareto=False`` skips the Pareto set (quadratic in the candidates; every Ranked is
    then marked False) for callers that do not show it, e.g. a ranking per branch."""
    model = model or CostModel()
    if not candidates:
        raise ValueError("no measured settings to rank")
    for c in candidates:
        c.check()
    costs = [cost_of(c, model) for c in candidates]
    order = sorted(
        range(len(candidates)),
        key=lambda i: (
            costs[i].total,
            candidates[i].compressed_bytes,
            candidates[i].setting,
            candidates[i].preconditioner,
        ),
    )
    front = pareto_set(candidates) if pareto else set()
    ranking = [
        Ranked(rank + 1, candidates[i], costs[i], i in front) for rank, i in enumerate(order)
    ]
    best = order[0]
    margin = (
        (costs[order[1]].total - costs[best].total) / costs[best].total
        if len(order) > 1 and costs[best].total > 0
        else math.inf
    )
    columns = _columns(candidates) if len(candidates) >= VECTOR_FROM else None
    sensitivity = [
        crossing
        for parameter in SENSITIVITY_PARAMETERS
        for crossing in _crossings(candidates, model, best, parameter, columns)
    ]
    return Recommendation(model, ranking, margin, sensitivity)
