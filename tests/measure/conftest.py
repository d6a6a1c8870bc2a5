"""Fixtures for the harness tests: the real ROOT files, their corpora, the rzbench binary."""

from __future__ import annotations

from pathlib import Path

import pytest
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import Release, RootReleaseError
from basketbench.measure.rootio.extract import CorpusSummary, extract_corpus
from basketbench.measure.rootio.root_files import converted_root_files_dir, default_root_files
from basketbench.measure.rzbench.runner import RzbenchNotFound, locate_rzbench

RNTUPLE_FILE = "uproot-physlite-rntuple_v1-0-0-0.root"


def real_files() -> list[Path]:
    """../shared/data/root-files, else the scikit-hep-testdata wheel's files (HZZ, Zmumu):
    without ../shared the real-file tests run on what the wheel provides."""
    try:
        converted = converted_root_files_dir()
        # the demo's conversions (in the cache when a demo ran here) are not fixtures: a test's
        # set of files must not depend on what ran before it
        return sorted(p for p in default_root_files() if p.parent != converted)
    except FileNotFoundError:
        return []


def real_file(name: str) -> Path:
    """One real file by name, wherever it comes from; the test is skipped without it."""
    for path in real_files():
        if path.name == name:
            return path
    pytest.skip(f"{name} is neither in ../shared/data/root-files nor in the testdata wheel")


def extracted_file(extracted: dict[str, tuple[CorpusSummary, list[str]]],
                   name: str) -> tuple[CorpusSummary, list[str]]:
    if name not in extracted:
        pytest.skip(f"{name} is only in ../shared/data/root-files")
    return extracted[name]


@pytest.fixture(scope="session")
def root_files() -> list[Path]:
    files = real_files()
    if not files:
        pytest.skip("no real ROOT files: no ../shared/data/root-files and no testdata wheel")
    return files


@pytest.fixture(scope="session")
def extracted(
    root_files: list[Path], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, tuple[CorpusSummary, list[str]]]:
    """One corpus per real file (extracted once per session): name -> (summary, messages)."""
    out_dir = tmp_path_factory.mktemp("corpora")
    result = {}
    for path in root_files:
        messages: list[str] = []
        summary = extract_corpus(
            [path], out_dir / f"{path.stem}.bbc", path.stem, log=messages.append
        )
        result[path.name] = (summary, messages)
    return result


@pytest.fixture(scope="session")
def rzbench() -> Path:
    try:
        return locate_rzbench()
    except RzbenchNotFound as exc:
        pytest.skip(f"rzbench is not built ({exc})")


@pytest.fixture(scope="session")
def release() -> tuple[Release, Path]:
    """ROOT 6.40.00 (the ground truth of the release tests) and rzbench built against its
    libCore; installed and built once per machine (~/.cache/basketbench/root-releases)."""
    try:
        root_release.check_platform()
    except RootReleaseError as exc:
        pytest.skip(str(exc))
    return root_release.release_rzbench("6.40.00")
