"""Ground truth against real ROOT: two RZip.h implementations, byte for byte, on real baskets.

Both sides are called through ctypes as TBasket::WriteBuffer calls them: one
`R__zipMultipleAlgorithm` per block of at most 0xffffff bytes, with an output room equal to
the block's input size; a basket whose blocks do not all compress, or whose total is not
smaller than its input, is stored (None here). A ROOT release's libCore is loaded with
RTLD_DEEPBIND so that it runs its own bundled codec copies (see rzbench's
src/root_release_bridge.cpp for why).
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from basketbench.measure.rootio.corpus_format import read_corpus

MAX_BLOCK = 0xFFFFFF
FAMILIES = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}
# The libraries a setting's bytes depend on (LZ4 blocks carry an XXH64 of the block).
DEPENDS_ON = {1: ("zlib",), 2: ("lzma",), 4: ("lz4", "xxhash"), 5: ("zstd",)}
SETTINGS = tuple(a * 100 + level for a in (1, 2, 4, 5) for level in range(1, 10))


class RZip:
    """R__zipMultipleAlgorithm of one shared library."""

    def __init__(self, path: Path, *, deepbind: bool) -> None:
        mode = os.RTLD_NOW | os.RTLD_LOCAL | (os.RTLD_DEEPBIND if deepbind else 0)
        self.path = path
        self.lib = ctypes.CDLL(str(path), mode=mode)
        fn = self.lib.R__zipMultipleAlgorithm
        fn.restype = None
        fn.argtypes = [
            ctypes.c_int, ctypes.POINTER(ctypes.c_int), ctypes.c_char_p,
            ctypes.POINTER(ctypes.c_int), ctypes.c_char_p, ctypes.POINTER(ctypes.c_int),
            ctypes.c_int,
        ]
        self._zip = fn

    def compress(self, setting: int, data: bytes) -> bytes | None:
        """The basket as ROOT writes it at `setting`, or None when ROOT stores it raw."""
        algorithm, level = divmod(setting, 100)
        out = bytearray()
        for start in range(0, len(data), MAX_BLOCK):
            block = data[start:start + MAX_BLOCK]
            src = ctypes.create_string_buffer(block, len(block))
            tgt = ctypes.create_string_buffer(len(block))
            srcsize, tgtsize = ctypes.c_int(len(block)), ctypes.c_int(len(block))
            irep = ctypes.c_int(0)
            self._zip(level, ctypes.byref(srcsize), src, ctypes.byref(tgtsize), tgt,
                      ctypes.byref(irep), algorithm)
            if irep.value <= 0 or irep.value >= len(data):
                return None
            out += tgt.raw[: irep.value]
        return bytes(out) if len(out) < len(data) else None

    def version(self, function: str) -> str | None:
        """A codec library's version string as this library resolves it, if exported."""
        try:
            fn = getattr(self.lib, function)
        except AttributeError:
            return None
        fn.restype = ctypes.c_char_p
        fn.argtypes = []
        value = fn()
        return value.decode() if value else None


@dataclass
class Row:
    """One dataset at one setting: how many baskets came out identical."""

    dataset: str
    setting: int
    baskets: int = 0
    identical: int = 0
    bytes_a: int = 0  # sum over baskets, stored ones at raw size (as fNbytes - fKeylen counts them)
    bytes_b: int = 0
    stored_a: int = 0
    stored_b: int = 0
    first_difference: list[str] = field(default_factory=list)

    @property
    def differs(self) -> bool:
        return self.identical != self.baskets

    @property
    def size_change(self) -> float:
        return (self.bytes_b - self.bytes_a) / self.bytes_a if self.bytes_a else 0.0


def compare(
    corpora: Iterable[Path], settings: Sequence[int], a: RZip, b: RZip
) -> list[Row]:
    """Compress every basket of every corpus at every setting with both; one row per pair."""
    rows = []
    for path in corpora:
        corpus = read_corpus(path)
        payloads = [raw for _basket, raw in corpus.iter_raw() if raw]
        for setting in settings:
            row = Row(corpus.name, setting)
            for i, raw in enumerate(payloads):
                ca, cb = a.compress(setting, raw), b.compress(setting, raw)
                row.baskets += 1
                row.bytes_a += len(ca) if ca is not None else len(raw)
                row.bytes_b += len(cb) if cb is not None else len(raw)
                row.stored_a += ca is None
                row.stored_b += cb is None
                if ca == cb:
                    row.identical += 1
                elif len(row.first_difference) < 3:
                    row.first_difference.append(
                        f"basket {i} ({len(raw)} B): "
                        f"{'stored' if ca is None else len(ca)} vs "
                        f"{'stored' if cb is None else len(cb)} B"
                    )
            rows.append(row)
    return rows


def _compare_task(args: tuple[Path, tuple[int, ...], Path, Path]) -> list[Row]:
    corpus, settings, path_a, path_b = args
    return compare([corpus], settings, RZip(path_a, deepbind=False), RZip(path_b, deepbind=True))


def compare_parallel(
    corpora: Sequence[Path], settings: Sequence[int], path_a: Path, path_b: Path,
    processes: int = 2,
) -> list[Row]:
    """`compare` with the (corpus, algorithm) pairs spread over processes, each loading both
    libraries itself (path_a plainly, path_b deep-bound); rows in corpus, setting order."""
    by_algorithm: dict[int, list[int]] = {}
    for s in settings:
        by_algorithm.setdefault(s // 100, []).append(s)
    tasks = [(c, tuple(group), path_a, path_b) for c in corpora for group in by_algorithm.values()]
    with ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn")) as pool:
        rows = [row for part in pool.map(_compare_task, tasks) for row in part]
    order = {Path(c).stem: i for i, c in enumerate(corpora)}
    return sorted(rows, key=lambda r: (order.get(r.dataset, len(order)), r.setting))


def unexplained(rows: Sequence[Row], versions_a: dict[str, str],
                versions_b: dict[str, str]) -> list[str]:
    """Differences whose codec libraries have the same version on both sides: real bugs."""
    out = []
    for row in rows:
        if not row.differs:
            continue
        libs = DEPENDS_ON[row.setting // 100]
        if all(versions_a.get(lib) == versions_b.get(lib) is not None for lib in libs):
            out.append(
                f"{row.dataset} {row.setting}: {row.baskets - row.identical} of {row.baskets} "
                f"baskets differ with the same {'/'.join(libs)} version(s) "
                f"({', '.join(versions_a.get(lib) or '?' for lib in libs)}): "
                + "; ".join(row.first_difference)
            )
    return out


def markdown(rows: Sequence[Row], name_a: str, name_b: str) -> str:
    lines = [
        f"| dataset | setting | baskets identical | {name_a} bytes | {name_b} bytes | change |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.dataset} | {r.setting} | {r.identical}/{r.baskets} | {r.bytes_a:,} | "
            f"{r.bytes_b:,} | {100 * r.size_change:+.2f} % |".replace(",", " ")
        )
    return "\n".join(lines)
