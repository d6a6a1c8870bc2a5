"""Instruction counts (issue 23): deterministic under load, a planted 1 % extra work in the
fixture's codec code found from one run, a busy neighbour's slowdown not taken for code.

Real parts only: rzbench under Debian's valgrind, a second rzbench built from a copy of the
harness whose LZ4 decoder (the codec code of the worker tests' ROOT-layout fixture,
tests/workers/layout.py) does about 1 % more work, and real busy-loop processes beside.
"""

from __future__ import annotations

import multiprocessing
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from basketbench.measure.rzbench.counting import PassCounts, count_fields, count_results, result_key
from basketbench.measure.rzbench.runner import BenchOptions
from basketbench.stats.counts import attribute_speed_change, count_changes

# CPU-cheap (~40 s of CPU with the planted build) but valgrind and the build stretch far on a
# loaded 2-core machine.
pytestmark = [
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind"),
    pytest.mark.timeout(1800),
]
HARNESS = Path(__file__).resolve().parents[2] / "bench-harness"
# Small and quick under valgrind (~10 s of CPU a count): ZLIB and LZ4 on the jagged floats.
ARGS = BenchOptions(
    synthetic=["nanoaod-offsets"], settings=[101, 404], min_samples=3, target_ms=5
).arguments()
# Every this-many compressed bytes, the planted loop reads one byte once more: ~7 instructions
# per 96 of LZ4's 1.52 MB compressed, about 1 % of its 9.4 M decompression instructions.
PLANT_STRIDE = 96


def _burn() -> None:
    x = 0
    while True:
        x = (x * 1103515245 + 12345) % 2147483648


@contextmanager
def busy_neighbours(n: int) -> Iterator[None]:
    """n processes spinning on the CPU beside the measurement (the machine has 2 cores)."""
    procs = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(n)]
    for p in procs:
        p.start()
    try:
        yield
    finally:
        for p in procs:
            p.kill()
        for p in procs:
            p.join()


def counted(binary: Path) -> dict[tuple[Any, ...], dict[str, Any]]:
    """result key -> count fields, from one counted run."""
    doc, counts = count_results(binary, ARGS, timeout=900)
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for index, result in enumerate(doc["results"]):
        assert result["error"] is None, result
        fields: dict[str, Any] = {}
        for op in ("compress", "decompress"):
            pc: PassCounts = counts[(index, op)]
            fields.update(count_fields(pc, result["uncompressed_bytes"], op))
        out[result_key(result)] = fields
    return out


def plant_extra_work(source: str, stride: int) -> str:
    """The fixture's LZ4 decoder reads every stride-th compressed byte once more."""
    match = re.search(
        r"int\s+unzip_lz4\s*\(\s*const\s+uint8_t\s*\*\s*(\w+)\s*,\s*int\s+(\w+)", source
    )
    assert match, "rootcompat's LZ4 decoder changed shape: update plant_extra_work()"
    block, size = match.group(1), match.group(2)
    body = source.index("{", match.end())
    extra = (
        f"\n   {{ // planted extra work (basketbench instruction-count test)\n"
        f"      volatile unsigned sink = 0;\n"
        f"      for (int i = 0; i < {size}; i += {stride})\n"
        f"         sink = sink + {block}[i];\n"
        f"   }}\n"
    )
    return source[: body + 1] + extra + source[body + 1 :]


@pytest.fixture(scope="module")
def planted_rzbench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """rzbench built (Release, as the repository's) from a copy of the harness whose LZ4
    decoder carries the planted work."""
    src = tmp_path_factory.mktemp("planted") / "bench-harness"
    shutil.copytree(HARNESS, src, ignore=shutil.ignore_patterns("build*"))
    lz4 = src / "rootcompat" / "src" / "codec_lz4.cpp"
    lz4.write_text(plant_extra_work(lz4.read_text(), PLANT_STRIDE))
    build = src / "build"
    subprocess.run(
        ["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
         "-DRZBENCH_TESTS=OFF"], check=True, capture_output=True)
    subprocess.run(["cmake", "--build", str(build), "-j2", "--target", "rzbench"], check=True,
                   capture_output=True)
    return build / "rzbench"


def test_counts_identical_twice_and_under_load(rzbench: Path) -> None:
    """Counted quietly and beside three busy neighbours (which slow its wall clock by far more
    than 10 %): the same counts, so whatever speed change the neighbours cause is attributed to
    the machine, never to the code."""
    first = counted(rzbench)
    with busy_neighbours(3):
        loaded = counted(rzbench)
    assert first.keys() == loaded.keys() and len(first) == 3  # memcpy + 2 settings
    for key, fields in first.items():
        for name in ("compress_instructions", "decompress_instructions"):
            assert fields[name] > 0
            # identical, or within 0.01 % (the issue's bound)
            assert abs(loaded[key][name] - fields[name]) <= fields[name] * 1e-4, (key, name)
    assert not any(count_changes(first[k], loaded[k]) for k in first)
    for key in first:
        for speed in ("compress_mbps", "decompress_mbps"):
            verdict = attribute_speed_change(speed, first[key], loaded[key])
            assert verdict.attribution == "probably the machine", (key, speed, verdict)
        busy = attribute_speed_change("compress_mbps", first[key], loaded[key], busy=True)
        assert busy.attribution == "busy machine: not tested"


def test_planted_change_found_from_one_run(rzbench: Path, planted_rzbench: Path) -> None:
    before, after = counted(rzbench), counted(planted_rzbench)
    changed = {key: count_changes(before[key], after[key]) for key in before}
    moved = {(key[1], c.metric): c.percent for key, cs in changed.items() for c in cs}
    # exactly LZ4's decompression moved, by about 1 % (0.5 % threshold, planted ~1 %)
    assert list(moved) == [(404, "decompress_instructions_per_mb")], moved
    assert 0.5 < moved[(404, "decompress_instructions_per_mb")] < 2.0
    lz4 = next(k for k in before if k[1] == 404)
    verdict = attribute_speed_change("decompress_mbps", before[lz4], after[lz4])
    assert verdict.attribution == "code", verdict
