"""The arena stage's pieces without processes: the suite's [arena] table, what a sandboxed
rzbench may read, the log summary, and a file the machine does not have (a skip with its
reason, never a failed run). The upload envelope is checked against the API itself in
tests/backend/arena/test_arena_api.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from basketbench_workers.pipeline.arenastage import (
    ArenaSkipped,
    root_file,
    sandbox_readable,
    summary,
)
from basketbench_workers.pipeline.suites import ArenaSpec, SuiteError, load_suites, parse_suite

BASE = {"name": "t", "settings": [101], "corpora": [{"name": "hzz", "files": ["a.root"]}]}


def test_the_packaged_arena_suite_measures_real_files_with_a_chosen_set() -> None:
    suite = load_suites()["arena"]
    assert suite.arena is not None
    assert suite.arena.files == ("uproot-HZZ-zlib.root",)
    assert suite.arena.candidates is not None and "zstd:3/6/10/14/19" in suite.arena.candidates
    # the other suites measure no arena: it downloads and builds candidates' sources
    assert all(s.arena is None for name, s in load_suites().items() if s.name != "arena")


def test_an_arena_table_with_defaults() -> None:
    suite = parse_suite({**BASE, "arena": {"files": ["uproot-HZZ.root"]}}, "t.toml")
    assert suite.arena == ArenaSpec(files=("uproot-HZZ.root",))
    assert parse_suite({**BASE, "arena": {"files": ["x.root"], "enabled": False}},
                       "t.toml").arena is None


@pytest.mark.parametrize(("table", "reason"), [
    ({}, "'files' must name ROOT files"),
    ({"files": ["/tmp/x.root"]}, "'files' must name ROOT files"),
    ({"files": ["x.root"], "candidates": []}, "at least one candidate"),
    ({"files": ["x.root"], "pairs": 0}, "'pairs' must be an integer"),
    ({"files": ["x.root"], "pairs": True}, "'pairs' must be an integer"),
    ({"files": ["x.root"], "shape_pairs": -1}, "'shape_pairs'"),
    ({"files": ["x.root"], "target_ms": 0}, "'target_ms'"),
    ({"files": ["x.root"], "timeout_seconds": -5}, "'timeout_seconds'"),
    ({"files": ["x.root"], "levels": [1]}, "unknown key"),
    ("yes", "must be a table"),
])
def test_a_bad_arena_table_names_the_problem(table: object, reason: str) -> None:
    with pytest.raises(SuiteError, match=reason):
        parse_suite({**BASE, "arena": table}, "t.toml")


def test_the_sandbox_reads_the_build_the_candidates_and_the_file(tmp_path: Path) -> None:
    rzbench = tmp_path / "harness" / "rzbench"
    build, data, cache = tmp_path / "build", tmp_path / "data", tmp_path / "cache"
    readable = sandbox_readable(str(build), data / "f.root", rzbench, cache)
    assert readable == sorted(str(p) for p in (rzbench.parent, build, data, cache))
    # the host's layer or a release is no folder to open
    assert str(build) not in sandbox_readable("host", data / "f.root", rzbench, cache)


def test_an_unknown_file_is_a_skip_with_the_reason() -> None:
    with pytest.raises(ArenaSkipped, match="no-such-file.root is not among"):
        root_file("no-such-file.root")


def test_summary_states_each_result_and_the_load() -> None:
    ratio = {"median": 1.25, "ci_low": 1.2, "ci_high": 1.3, "pairs": 11, "disturbed_pairs": 0}
    lines = summary({"results": [
        {"candidate": "zlib-ng", "level": 1, "reference_setting": 101, "size_change_pct": 0.41,
         "compress_ratio": ratio, "decompress_ratio": None, "roundtrip_ok": True,
         "root_readable": True}],
        "load": {"loadavg_start": [1.0, 1.0, 1.0], "loadavg_end": [1.5, 1.0, 1.0]}})
    assert lines[0] == ("arena: zlib-ng 1 vs 101: size +0.41 %, compress x1.250 [1.200, 1.300], "
                        "decompress x-, round trip ok, ROOT reads it: yes")
    assert lines[1] == "arena: load [1.0, 1.0, 1.0] -> [1.5, 1.0, 1.0]"


@pytest.mark.slow
def test_the_stage_measures_a_real_file_into_a_document_the_api_takes(tmp_path: Path) -> None:
    """The stage's child process on HZZ with ZSTD at ROOT's own level (zstd 10 = 505) against
    the host layer (no commit code, so unsandboxed): a document the upload contract accepts,
    whose zstd 10 row is ROOT's own output (size change 0, read by ROOT, round trip exact).
    Candidates come from the arena cache (built from the Debian source on a cold one)."""
    from basketbench.arena.schemas import ArenaUpload
    from basketbench.measure.rzbench.runner import locate_rzbench
    from basketbench_workers.pipeline.arenastage import measure, upload_body

    spec = ArenaSpec(files=("uproot-HZZ.root",), candidates=("zstd:10",), pairs=3,
                     target_ms=5)
    log = tmp_path / "run.log"
    doc = measure(root_file("uproot-HZZ.root"), "host", spec, locate_rzbench(), tmp_path, log,
                  900, sandboxed=False)
    upload = ArenaUpload.model_validate(upload_body(doc, 1, "a" * 40, None, 7))
    [row] = upload.document.results
    assert (row.candidate, row.level, row.reference_setting) == ("zstd", 10, 505)
    assert row.size_change_pct == 0 and row.roundtrip_ok and row.root_readable
    assert row.compress_ratio is not None and row.compress_ratio.pairs + \
        row.compress_ratio.disturbed_pairs == 3
    assert [m.native_level for m in upload.document.level_mapping.zstd] == [10]
    assert "arena: uproot-HZZ.root: measured in" in log.read_text()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_sandboxed_stage_runs_rzbench_through_the_launcher(tmp_path: Path) -> None:
    """As for a commit's layer: rzbench inside the worker's sandbox reads the candidates'
    layers and the extracted buffers (under the run's scratch folder) and writes only there."""
    from basketbench.measure.rzbench.runner import locate_rzbench
    from basketbench_workers.pipeline.arenastage import measure

    spec = ArenaSpec(files=("uproot-HZZ.root",), candidates=("zstd:10",), pairs=3,
                     target_ms=5)
    log = tmp_path / "run.log"
    doc = measure(root_file("uproot-HZZ.root"), "host", spec, locate_rzbench(), tmp_path, log,
                  900, sandboxed=True)
    [row] = doc["results"]
    assert row["roundtrip_ok"] and row["size_change_pct"] == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("basketbench-arena-")]
