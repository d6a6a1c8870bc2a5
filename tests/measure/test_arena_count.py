"""`basketbench arena --count`: instructions per MB of the candidates and of ROOT's reference,
one pass of each direction counted under callgrind (measure/arena/counting.py, docs/arena.md).

On the real HZZ file with zstd at native level 10 against ROOT's 505 (which runs zstd level 10
through the same library version): two runs count identically (callgrind is deterministic),
and the candidate and ROOT count close to each other: the same source version at the same level
on the same buffers. Measured (docs/perf/arena.md): the candidate 0.923x ROOT's instructions to
compress, 0.972x to decompress; ROOT's framing is not that gap (`rzbench headroom --count`: the
framed path and the bare library call count within 0.04 % at 505), the build is: the arena's
-O3 static libzstd against Debian's shared one. Nothing depends on speed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from basketbench.cli.app import app
from basketbench.measure.arena import run_arena
from basketbench.measure.arena.counting import parse_dump
from typer.testing import CliRunner

from tests.measure.conftest import real_file

pytestmark = pytest.mark.slow
FIELDS = ("compress_instructions", "decompress_instructions",
          "reference_compress_instructions", "reference_decompress_instructions")


def _counted(rzbench: Path) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    return run_arena(real_file("uproot-HZZ.root"), candidates="zstd:10", rzbench=rzbench,
                     pairs=0, count=True)


@pytest.fixture(scope="module")
def two_runs(rzbench: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    return _counted(rzbench), _counted(rzbench)


def test_counts_are_filled_and_reproducible(two_runs: tuple[dict[str, Any], dict[str, Any]]
                                            ) -> None:
    first, second = two_runs
    [r1], [r2] = first["results"], second["results"]
    assert (r1["candidate"], r1["level"], r1["reference_setting"]) == ("zstd", 10, 505)
    assert r1["roundtrip_ok"] and r1["root_readable"]
    for field in FIELDS:
        assert isinstance(r1[field], float) and r1[field] > 0, field
        assert r1[field] == r2[field], field  # callgrind counts the same work identically
    assert "callgrind" in first["method"]["instructions"]
    # the shapes are not counted: null, not a made-up number
    assert all(s[f] is None for s in first["shapes"] for f in FIELDS)


def test_zstd_10_counts_close_to_roots_505(two_runs: tuple[dict[str, Any], dict[str, Any]]
                                           ) -> None:
    [r] = two_runs[0]["results"]
    # the same zstd version, level and buffers: only the build and ROOT's framing differ
    # (measured 0.923 and 0.972; another level is far off: zstd 9 counts 0.62x, 12 1.09x
    # of 505's instructions to compress on HZZ)
    for op, low in (("compress", 0.88), ("decompress", 0.95)):
        ratio = r[f"{op}_instructions"] / r[f"reference_{op}_instructions"]
        assert low < ratio < 1.02, (op, ratio)
    # zstd decodes with far fewer instructions than it encodes at level 10
    assert r["decompress_instructions"] < r["compress_instructions"] / 3


def test_rzbench_ab_count_outside_valgrind_is_refused(rzbench: Path) -> None:
    done = subprocess.run([str(rzbench), "ab", "--a", "host", "--b", "host", "--synthetic",
                           "tfloat", "--settings", "505", "--count"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert "valgrind" in done.stderr.splitlines()[0]


def test_count_without_valgrind_exits_2(tmp_path: Path, rzbench: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASKETBENCH_RZBENCH", str(rzbench))
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind on it
    out = tmp_path / "out.json"
    result = CliRunner().invoke(app, ["arena", str(real_file("uproot-HZZ.root")), "--count",
                                      "--candidates", "zstd:10", "--json", str(out)])
    assert result.exit_code == 2, result.output
    assert "valgrind" in result.output
    assert "Traceback" not in result.output and str(tmp_path) not in result.output
    assert not out.exists()


def test_parse_dump_reads_only_the_arena_labels() -> None:
    dump = ("version: 1\ndesc: Trigger: Client Request: rzbench-ab:3:b:decompress\n"
            "events: Ir\nsummary: 12345\n")
    assert parse_dump(dump) == (3, "b", "decompress", 12345)
    assert parse_dump("desc: Trigger: Program termination\nevents: Ir\nsummary: 9\n") is None
