"""The Debian source fetcher's checks, without a mirror: the runner stands in for apt-get
(it writes what a mirror would have served). A held archive is not fetched again, a missing
one and a wrong one are refused with the reason, and a wrong one is not kept."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from basketbench.measure.debian_source import (
    DebianSourceError,
    OrigArchive,
    download_orig,
    folder_of,
    run_apt,
)

GOOD = b"upstream sources\n"
ORIG = OrigArchive("libzstd", "1:1.5.4+dfsg2-5", "libzstd_1.5.4+dfsg2.orig.tar.xz",
                   hashlib.sha256(GOOD).hexdigest())


def serving(content: bytes | None, calls: list[list[str]]):
    def run(command: list[str], cwd: Path) -> None:
        calls.append(command)
        if content is not None:
            (cwd / ORIG.archive).write_bytes(content)
    return run


def test_the_archive_is_fetched_once_into_the_versions_folder(tmp_path: Path) -> None:
    calls: list[list[str]] = []
    got = download_orig(ORIG, tmp_path, serving(GOOD, calls))
    assert got == tmp_path / "libzstd_1%1.5.4+dfsg2-5" / ORIG.archive
    assert got.parent == folder_of(tmp_path, ORIG.package, ORIG.version)
    assert calls == [["apt-get", "source", "--download-only", "-q",
                      "libzstd=1:1.5.4+dfsg2-5"]]
    assert download_orig(ORIG, tmp_path, serving(GOOD, calls)) == got
    assert len(calls) == 1  # held and verified: not fetched again


def test_an_archive_the_mirror_did_not_serve_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DebianSourceError, match="was not downloaded"):
        download_orig(ORIG, tmp_path, serving(None, []))


def test_an_archive_with_another_sha256_is_refused_and_not_kept(tmp_path: Path) -> None:
    with pytest.raises(DebianSourceError, match=f"Debian's index says {ORIG.sha256}"):
        download_orig(ORIG, tmp_path, serving(b"tampered\n", []))
    assert not (folder_of(tmp_path, ORIG.package, ORIG.version) / ORIG.archive).exists()


def test_a_runner_that_cannot_start_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(DebianSourceError, match="failed"):
        run_apt(["/nonexistent/apt-get", "source"], tmp_path)
