"""Suites ask for end-to-end ROOT I/O with an [io] table; the worker runs it only then, only
on a ROOT release, and merges it into the run's one document."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from basketbench.measure.document.contract import load_document
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import RootReleaseError
from basketbench.measure.rzbench.runner import BenchOptions, run_bench
from basketbench_workers.pipeline.stages import run_io_stage
from basketbench_workers.pipeline.suites import IoSpec, SuiteError, load_suites, parse_suite

RELEASE = "6.40.00"


def test_only_the_io_suite_asks_for_end_to_end_io() -> None:
    suites = load_suites()
    assert suites["quick"].io is None and suites["full"].io is None
    io = suites["io"].io
    assert io is not None
    assert io.files == ("uproot-HZZ.root",) and io.settings == (101, 505)
    assert io.threads == ()  # 1..the machine's cores


@pytest.mark.parametrize(("table", "message"), [
    ({"files": []}, "'files'"),
    ({"files": ["a.root"], "forms": ["parquet"]}, "'forms'"),
    ({"files": ["a.root"], "threads": [0]}, "'threads'"),
    ({"files": ["a.root"], "cache": ["on"]}, "unknown key"),
    ("yes", "must be a table"),
])
def test_bad_io_tables_are_named(table: object, message: str) -> None:
    raw = {"name": "x", "synthetic": ["event"], "io": table}
    with pytest.raises(SuiteError, match=message):
        parse_suite(raw, "x.toml")


def _document(tmp_path: Path) -> tuple[Path, Path]:
    try:
        release, binary = root_release.release_rzbench(RELEASE)
    except RootReleaseError as exc:
        pytest.skip(str(exc))
    doc = tmp_path / "doc.json"
    run_bench(BenchOptions(synthetic=["event"], settings=[505], min_samples=1, target_ms=0,
                           memcpy=False), doc, binary=binary)
    return doc, binary


def test_a_source_build_skips_io_and_says_why(tmp_path: Path) -> None:
    doc, binary = _document(tmp_path)
    before = doc.read_text()
    log = tmp_path / "run.log"
    spec = IoSpec(files=("uproot-HZZ.root",), settings=(505,))
    run_io_stage(spec, None, binary, doc, {}, tmp_path, log)
    assert doc.read_text() == before
    assert "io: skipped" in log.read_text()


def test_a_release_run_merges_io_into_its_document(tmp_path: Path) -> None:
    doc, binary = _document(tmp_path)
    spec = IoSpec(files=("uproot-HZZ.root",), settings=(505,), forms=("ttree",), threads=(1,),
                  caches=("on",), page_caches=("cold",), min_samples=1, target_ms=0)
    log = tmp_path / "run.log"
    run_io_stage(spec, root_release.lookup(RELEASE), binary, doc, {"suite": "io"}, tmp_path, log)
    merged = load_document(doc)
    modes = {(r["mode"], r["dataset"]) for r in merged["results"]}
    assert ("basket", "event") in modes  # rzbench's own rows stay
    assert ("io-write", "uproot-HZZ/events/ttree") in modes
    assert ("io-read", "uproot-HZZ/events/ttree/cache-on/cold") in modes
    assert ("basket", "uproot-HZZ/events/ttree") in modes  # the codec alone, beside
    assert all(r["error"] is None for r in merged["results"]), json.dumps(merged["results"])[:500]
    assert "io: 1 file(s)" in log.read_text()
