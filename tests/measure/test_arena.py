"""`basketbench arena` / measure.arena: candidate codecs inside ROOT's framing (docs/arena.md).

On the real HZZ file with a few candidates and levels: every buffer round-trips byte-exactly
and ROOT's layer reads every candidate's output; the zlib-family sizes equal what independent
bindings of the same libraries write for the same buffers plus ROOT's 9-byte headers (Python's
zlib, the PyPI zlib-ng and deflate modules); zstd native level 10 is setting 505 to the byte.
Nothing here depends on speed: the ratios' presence and counts are checked, their values are
measurements (docs/perf/arena.md).
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import deflate
import pytest
from basketbench.cli.app import app
from basketbench.measure.arena import SCHEMA, ArenaInputError, run_arena
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench.measure.rootio.extract import extract_corpus
from typer.testing import CliRunner
from zlib_ng import zlib_ng

from tests.measure.conftest import real_file

HEADER = 9
CANDIDATES = ("zlib:1/6,zlib-ng:1/6,zlib-ng-compat:6,libdeflate:6/12,zlib-cloudflare:1/6,"
              "zstd:-3/10/19,zstd-ctx:10,zstd-ldm:10,lz4:1/4,lz4-ctx:4")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def arena(rzbench: Path) -> dict[str, Any]:
    # sizes and round trips on every level; 3 interleaved pairs on the whole file to check the
    # ratios' plumbing (their values are not asserted: they depend on the machine)
    return run_arena(real_file("uproot-HZZ.root"), candidates=CANDIDATES, rzbench=rzbench,
                     pairs=3, shape_pairs=0, target_ms=2)


@pytest.fixture(scope="module")
def buffers(tmp_path_factory: pytest.TempPathFactory) -> list[bytes]:
    """The buffers ROOT compresses (what the arena measures), from the corpus extraction."""
    out = tmp_path_factory.mktemp("arena-hzz") / "hzz.bbc"
    extract_corpus([real_file("uproot-HZZ.root")], out)
    corpus = read_corpus(out)
    return [raw for _b, raw in corpus.iter_raw() if raw]


def framed_size(buffers: list[bytes], compress: Any) -> int:
    """Bytes ROOT would store: each buffer's stream plus the 9-byte header, or the buffer
    itself when that is not smaller (or the buffer is too small for a header), as TBasket."""
    total = 0
    for raw in buffers:
        if len(raw) < 1 + HEADER + 1:
            total += len(raw)
            continue
        stream = compress(raw)
        framed = len(stream) + HEADER
        total += framed if framed < len(raw) and len(stream) <= len(raw) - HEADER else len(raw)
    return total


def entry(doc: dict[str, Any], candidate: str, level: int) -> dict[str, Any]:
    found = [r for r in doc["results"] if r["candidate"] == candidate and r["level"] == level]
    assert len(found) == 1, (candidate, level)
    return found[0]


def test_document_shape_and_round_trips(arena: dict[str, Any]) -> None:
    doc = arena
    assert doc["schema"] == SCHEMA
    assert doc["file"] == "uproot-HZZ.root" and "/" not in doc["file"]
    assert len(doc["file_sha256"]) == 64
    assert doc["format"] == "ttree"
    assert doc["buffers"] > 0 and doc["uncompressed_bytes"] > 0
    assert set(doc["machine"]) >= {"hostname", "cpu_model", "hardware_tag"}
    assert len(doc["load"]["loadavg_start"]) == 3
    names = {c["candidate"] for c in doc["candidates"]}
    assert names == {"zlib", "zlib-ng", "zlib-ng-compat", "libdeflate", "zlib-cloudflare",
                     "zstd", "zstd-ctx", "zstd-ldm", "lz4", "lz4-ctx"}
    for c in doc["candidates"]:
        assert c["version"] and c["source"] and len(c["sha256"]) == 64
        assert c["root_readable"] is True, c
    assert len(doc["results"]) == 17
    for r in doc["results"]:
        assert r["roundtrip_ok"] is True, r
        assert r["root_readable"] is True, r  # ROOT's layer decoded every buffer byte-exactly
        assert 0 < r["compressed_bytes"] < doc["uncompressed_bytes"]
        assert r["size_change_pct"] == pytest.approx(
            100 * (r["compressed_bytes"] - r["reference_bytes"]) / r["reference_bytes"])
        for direction in ("compress_ratio", "decompress_ratio"):
            ratio = r[direction]
            assert ratio is not None and ratio["pairs"] + ratio["disturbed_pairs"] == 3
            if ratio["pairs"]:
                assert ratio["ci_low"] <= ratio["median"] <= ratio["ci_high"]
    # per shape: the same candidates and levels, sizes adding up to the file's
    shapes = {s for s in (r["shape"] for r in doc["shapes"])}
    assert shapes and shapes <= {"float", "integer", "boolean", "counts", "string", "object"}
    for r in doc["results"]:
        parts = [s for s in doc["shapes"] if (s["candidate"], s["level"]) ==
                 (r["candidate"], r["level"])]
        assert sum(s["compressed_bytes"] for s in parts) == r["compressed_bytes"]
        assert all(s["roundtrip_ok"] and s["compress_ratio"] is None for s in parts)


def test_zstd_native_10_is_setting_505(arena: dict[str, Any]) -> None:
    for name in ("zstd", "zstd-ctx"):  # a kept context changes the speed, never the bytes
        r = entry(arena, name, 10)
        assert r["reference_setting"] == 505
        assert r["compressed_bytes"] == r["reference_bytes"]
        assert r["identical_to_reference"] is True
    mapping = arena["level_mapping"]["zstd"]
    assert mapping[0]["native_level"] == 10 and mapping[0]["root_setting"] == 505
    assert [m["native_level"] for m in mapping] == [10, 19]
    assert mapping[1]["root_setting"] is None  # ROOT's 50L runs 2L: 19 is out of its reach
    assert entry(arena, "lz4", 4)["identical_to_reference"] is True  # 404 is LZ4 HC 4


def test_zlib_sizes_equal_independent_bindings(arena: dict[str, Any],
                                               buffers: list[bytes]) -> None:
    # vanilla zlib 1.3.1 against Python's zlib module (the system's zlib): deflate's output has
    # not changed between these versions, so equal bytes check our framing and level plumbing
    for level in (1, 6):
        assert entry(arena, "zlib", level)["compressed_bytes"] == framed_size(
            buffers, lambda raw, lv=level: zlib.compress(raw, lv))
    # zlib-ng 2.3.3, native and compat, against the zlib-ng module (same version, native API)
    for name, levels in (("zlib-ng", (1, 6)), ("zlib-ng-compat", (6,))):
        for level in levels:
            assert entry(arena, name, level)["compressed_bytes"] == framed_size(
                buffers, lambda raw, lv=level: zlib_ng.compress(raw, lv)), (name, level)
    # libdeflate 1.26 against the deflate module (same libdeflate)
    for level in (6, 12):
        assert entry(arena, "libdeflate", level)["compressed_bytes"] == framed_size(
            buffers, lambda raw, lv=level: deflate.zlib_compress(raw, lv))
    # every zlib-family candidate is compared with ROOT's zlib at the same level
    assert entry(arena, "libdeflate", 12)["reference_setting"] == 109
    assert entry(arena, "zlib-cloudflare", 1)["reference_setting"] == 101


@pytest.mark.parametrize(("args", "message"), [
    (["missing.root"], "no such file"),
    (["NOT_ROOT"], "ROOT"),
    (["HZZ", "--candidates", "brotli"], "unknown candidate"),
    (["HZZ", "--candidates", "zstd:0"], "level"),
    (["HZZ", "--candidates", "zlib:12"], "level"),
    (["HZZ", "--candidates", "zlib:x"], "integers"),
])
def test_bad_input_exits_2(args: list[str], message: str, tmp_path: Path, rzbench: Path) -> None:
    not_root = tmp_path / "text.root"
    not_root.write_text("not a ROOT file\n")
    hzz = str(real_file("uproot-HZZ.root"))
    argv = [{"NOT_ROOT": str(not_root), "HZZ": hzz, "missing.root":
             str(tmp_path / "missing.root")}.get(a, a) for a in args]
    result = CliRunner().invoke(app, ["arena", *argv, "--json", str(tmp_path / "out.json")])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output and str(tmp_path) not in result.output
    assert not (tmp_path / "out.json").exists()


def test_run_arena_refuses_negative_pairs(rzbench: Path) -> None:
    with pytest.raises(ArenaInputError, match="pairs"):
        run_arena(real_file("uproot-HZZ.root"), candidates="zlib:1", rzbench=rzbench, pairs=-1)


def test_cli_writes_the_document(tmp_path: Path, rzbench: Path) -> None:
    out = tmp_path / "arena.json"
    result = CliRunner().invoke(app, ["arena", str(real_file("uproot-HZZ.root")), "--json",
                                      str(out), "--candidates", "zlib-ng:1", "--pairs", "0"])
    assert result.exit_code == 0, result.output
    doc = json.loads(out.read_text())
    assert [(r["candidate"], r["level"], r["reference_setting"]) for r in doc["results"]] == [
        ("zlib-ng", 1, 101)]
    assert doc["results"][0]["compress_ratio"] is None  # no pairs: sizes only
