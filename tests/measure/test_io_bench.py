"""End-to-end ROOT I/O (`basketbench run --io`) with a real ROOT release: every setting's copy
reads back the same entries and values as the original, and the document ingests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from basketbench.measure.document.contract import load_document
from basketbench.measure.realroot import io_bench
from basketbench.measure.realroot.io_bench import Copy, IoBenchError, IoOptions
from basketbench.measure.realroot.releases import Release

from tests.measure.conftest import real_file

RELEASE = "6.40.00"
SETTINGS = [101, 505]


@pytest.fixture(scope="module")
def document(release: tuple[Release, Path], tmp_path_factory: pytest.TempPathFactory
             ) -> dict[str, object]:
    """HZZ (2421 events, 51 branches) at 101 and 505, TTree and RNTuple, one thread, cache on,
    warm page cache, one sample: the smallest full matrix."""
    out = tmp_path_factory.mktemp("io") / "io.json"
    io_bench.run_io(IoOptions(file=real_file("uproot-HZZ.root"), settings=SETTINGS,
                              release=RELEASE, threads=[1], caches=["on"],
                              page_caches=["warm"], samples=1, target_ms=0), out,
                    binary=release[1])
    return load_document(out)


def test_every_setting_reads_back_the_originals_entries_and_values(
    document: dict[str, object]
) -> None:
    results = document["results"]
    assert isinstance(results, list)
    reads = [r for r in results if r["mode"] == "io-read"]
    assert {(r["io"]["form"], r["setting"]) for r in reads} == {
        (f, s) for f in ("ttree", "rntuple") for s in SETTINGS}
    for r in reads:
        assert r["error"] is None, r["error"]
        assert r["io"]["events"] == 2421
        if r["io"]["form"] == "ttree":
            # a checksum of every leaf value of every entry, read by ROOT from the copy
            assert r["io"]["checksum"] == r["io"]["original_checksum"]
            assert len(r["io"]["checksum"]) == 16
        else:
            # every one of HZZ's 51 branches: the sum and count of its values
            assert r["io"]["columns_compared"] == 51
    ttree = {r["setting"]: r for r in reads if r["io"]["form"] == "ttree"}
    # the same uncompressed bytes at every setting, different compressed sizes
    assert ttree[101]["uncompressed_bytes"] == ttree[505]["uncompressed_bytes"] > 600_000
    assert ttree[101]["compressed_bytes"] != ttree[505]["compressed_bytes"]


def test_writes_and_codec_only_rows_stand_beside_the_reads(document: dict[str, object]) -> None:
    results = document["results"]
    assert isinstance(results, list)
    writes = [r for r in results if r["mode"] == "io-write"]
    assert len(writes) == 4 and all(r["compress_mbps"]["median"] > 0 for r in writes)
    assert all(r["decompress_mbps"] is None for r in writes)
    codec = {r["setting"]: r for r in results if r["mode"] == "basket"}
    assert set(codec) == set(SETTINGS)
    assert {r["dataset"] for r in codec.values()} == {"uproot-HZZ/events/ttree"}
    assert document["codecs"]["root_version"] == RELEASE  # type: ignore[index]


def test_a_copy_that_differs_is_a_failure_not_a_number(
    release: tuple[Release, Path], tmp_path: Path
) -> None:
    """The check compares values: Zmumu's tree read against HZZ's checksum must fail."""
    rel = release[0]
    hzz = io_bench.measure(rel, {"op": "checksum", "form": "ttree", "tree": "events",
                                 "target": str(real_file("uproot-HZZ.root")), "samples": 1})
    zmumu = Copy("events", "ttree", 104, real_file("uproot-Zmumu.root"), "zmumu")
    with pytest.raises(IoBenchError, match="entries read back|values read back differ"):
        io_bench.verify_copy(rel, zmumu, hzz)
    lying = {**hzz, "entries": 2304}  # same entry count as Zmumu, other values
    with pytest.raises(IoBenchError, match="values read back differ"):
        io_bench.verify_copy(rel, zmumu, lying)


def test_an_rntuple_copy_that_differs_is_a_failure(
    release: tuple[Release, Path], document: dict[str, object], tmp_path: Path
) -> None:
    """An RNTuple copy of HZZ (from the stored copy the document fixture left) against
    Zmumu's column sums."""
    # the copy this test's run just stored (other runs, e.g. a demo's, keep theirs beside it)
    stored = max(io_bench.work_dir(RELEASE).glob("uproot-HZZ-*/events-stored.root"),
                 key=lambda p: p.stat().st_mtime)
    copy_path = tmp_path / "events-rntuple-505.root"
    io_bench.measure(release[0], {"op": "write", "form": "rntuple", "tree": "events",
                                  "source": str(stored), "target": str(copy_path),
                                  "setting": 505, "samples": 1, "threads": 1})
    rntuple = Copy("events", "rntuple", 505, copy_path, "hzz")
    zmumu = {"entries": 2421, "checksum": "", "path": str(real_file("uproot-Zmumu.root"))}
    with pytest.raises(IoBenchError, match="column.s. read back differ"):
        io_bench.verify_copy(release[0], rntuple, zmumu)


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basketbench.cli", "run", *args],
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "COLUMNS": "200"})


@pytest.mark.parametrize(("args", "message"), [
    (["--io", "/nonexistent.root"], "--io: /nonexistent.root not found"),
    (["--io", "HZZ", "--forms", "parquet"], "--forms"),
    (["--io", "HZZ", "--settings", "606"], "--settings"),
    (["--io", "HZZ", "--trees", "nope"], "--trees"),
    (["--io", "HZZ", "--root-release", "5.34.00"],
     "unknown ROOT release"),
])
def test_bad_io_input_is_a_clear_usage_error(args: list[str], message: str) -> None:
    hzz = str(real_file("uproot-HZZ.root"))
    done = _cli(*(hzz if a == "HZZ" else a for a in args))
    assert done.returncode == 2, done.stdout + done.stderr
    assert message in " ".join(done.stderr.split())


def test_io_document_ingests_as_its_own_modes(document: dict[str, object], tmp_path: Path
                                              ) -> None:
    from basketbench.measure.document.validation import validate_result_document

    assert validate_result_document(json.loads(json.dumps(document))) == []


def test_runs_write_their_copies_apart_and_store_the_source_atomically(tmp_path: Path) -> None:
    """Issue 38: every sample rewrites a copy in place, so each run has its own directory
    (removed after it); the shared stored copy appears whole or not at all."""
    with io_bench.run_copies(tmp_path) as one, io_bench.run_copies(tmp_path) as two:
        assert one != two and one.parent == two.parent == tmp_path
        (one / "events-ttree-505.root").write_bytes(b"one")
        assert not (two / "events-ttree-505.root").exists()
    assert not one.exists() and not two.exists()

    seen: list[list[str]] = []

    def write(target: Path) -> None:
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        assert not target.exists()
        target.write_bytes(b"stored")

    stored = io_bench.store_atomically(tmp_path, "events-stored.root", write)
    assert stored.read_bytes() == b"stored" and seen == [[]]  # no final name mid-write
    assert io_bench.store_atomically(tmp_path, "events-stored.root", write) == stored
    assert len(seen) == 1  # stored once
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events-stored.root"]

    def fail(target: Path) -> None:
        target.write_bytes(b"half")
        raise io_bench.IoBenchError("ROOT died")

    with pytest.raises(io_bench.IoBenchError):
        io_bench.store_atomically(tmp_path, "other-stored.root", fail)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["events-stored.root"]
