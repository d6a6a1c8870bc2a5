"""Embedded mode (the demo) takes the rzbench `make harness-build` just built instead of
compiling the same sources a second time; a stale or differently configured build is not
taken."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from basketbench_workers.build.cachekey import harness_path_skipped
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.stages import adopt_make_build, default_rzbench, fresh_make_build

REPO = Path(__file__).resolve().parents[2]
RELEASE_ROOTCOMPAT = "CMAKE_BUILD_TYPE:STRING=Release\nRZBENCH_BACKEND:STRING=rootcompat\n"


@pytest.fixture
def harness(tmp_path: Path) -> Path:
    """A copy of the harness sources with a `make harness-build`-like build directory."""
    source = tmp_path / "bench-harness"
    shutil.copytree(REPO / "bench-harness", source,
                    ignore=lambda d, names: [n for n in names
                                             if harness_path_skipped(Path(d, n).relative_to(
                                                 REPO / "bench-harness"))])
    build = source / "build"
    build.mkdir()
    (build / "CMakeCache.txt").write_text("# cmake\n" + RELEASE_ROOTCOMPAT)
    binary = build / "rzbench"
    binary.write_bytes(b"\x7fELF rzbench built by make\n")
    newest = max(p.stat().st_mtime for p in source.rglob("*") if p.is_file())
    os.utime(binary, (newest + 10, newest + 10))
    return source


def test_a_fresh_make_build_is_adopted_and_not_compiled_again(harness: Path,
                                                               tmp_path: Path) -> None:
    settings = WorkerSettings(harness_source=harness, worker_dir=tmp_path / "worker")
    log = tmp_path / "embedded.log"
    assert adopt_make_build(settings, log)
    assert "adopted" in log.read_text()
    built = default_rzbench(settings, log)
    # A cache hit on the very binary make built: no cmake, no compiler.
    assert built.cache_hit
    assert built.rzbench.read_bytes() == (harness / "build" / "rzbench").read_bytes()
    assert "build cache hit" in log.read_text() and "cmake" not in log.read_text()
    # An existing cache entry is never replaced.
    assert not adopt_make_build(settings, log)


def test_a_stale_or_other_build_is_not_adopted(harness: Path) -> None:
    assert fresh_make_build(harness) == harness / "build" / "rzbench"
    # a source edited after the build: make would rebuild, so the binary is not current
    source = harness / "CMakeLists.txt"
    later = (harness / "build" / "rzbench").stat().st_mtime + 5
    os.utime(source, (later, later))
    assert fresh_make_build(harness) is None
    os.utime(source, (later - 100, later - 100))
    assert fresh_make_build(harness) is not None
    # a Debug or ROOT-backend build is a different binary
    (harness / "build" / "CMakeCache.txt").write_text(
        "CMAKE_BUILD_TYPE:STRING=Debug\nRZBENCH_BACKEND:STRING=rootcompat\n")
    assert fresh_make_build(harness) is None
    (harness / "build" / "CMakeCache.txt").write_text(RELEASE_ROOTCOMPAT)
    (harness / "build" / "rzbench").unlink()
    assert fresh_make_build(harness) is None
