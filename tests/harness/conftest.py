"""Fixtures for the harness tests: the real ROOT files, their corpora, the rzbench binary."""

from __future__ import annotations

from pathlib import Path

import pytest
from basketbench.harness.extract import CorpusSummary, extract_corpus
from basketbench.harness.root_files import shared_root_files_dir
from basketbench.harness.rzbench import RzbenchNotFound, locate_rzbench

ROOT_FILES = shared_root_files_dir()
RNTUPLE_FILE = "uproot-physlite-rntuple_v1-0-0-0.root"


def real_files() -> list[Path]:
    return sorted(ROOT_FILES.glob("*.root")) if ROOT_FILES.is_dir() else []


@pytest.fixture(scope="session")
def root_files() -> list[Path]:
    files = real_files()
    if not files:
        pytest.skip(f"real ROOT files not found in {ROOT_FILES}")
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
