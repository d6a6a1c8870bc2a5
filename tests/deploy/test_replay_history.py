"""The replay's parts that need no network nor ROOT: PyPI's index read, the release an
RVersion header states, and the git history in ROOT's layout (trees of our own files)."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from basketbench.measure.realroot.releases import RELEASES
from basketbench_devtools.replay.history import ReplayRelease, build_history, diff_summary
from basketbench_devtools.replay.sources import Sdist, SourceError, parse_index, release_of


def test_the_index_keeps_sdists_with_their_sha256_oldest_first() -> None:
    files = [
        {"filename": "cppyy_cling-6.32.8.tar.gz", "url": "u3", "hashes": {"sha256": "c"},
         "size": 3, "upload-time": "2024-12-17T05:25:23Z"},
        {"filename": "cppyy-cling-6.14.0.0.tar.gz", "url": "u1", "hashes": {"sha256": "a"}},
        {"filename": "cppyy_cling-6.32.8-py2.py3-none-any.whl", "url": "w",
         "hashes": {"sha256": "w"}},
        {"filename": "cppyy-cling-6.18.0.0.tar.gz", "url": "u2", "hashes": {}},
    ]
    sdists = parse_index({"files": files})
    assert [(s.version, s.sha256) for s in sdists] == [("6.14.0.0", "a"), ("6.32.8", "c")]


def _sdist() -> Sdist:
    return Sdist("6.14.0.0", "cppyy-cling-6.14.0.0.tar.gz", "u", "a" * 64, None, None)


def test_the_release_is_read_from_the_trees_rversion_header(tmp_path: Path) -> None:
    header = tmp_path / "core/base/inc/RVersion.h"
    header.parent.mkdir(parents=True)
    header.write_text('#define ROOT_RELEASE "6.14/00"\n#define ROOT_RELEASE_DATE "Jun 13 2018"\n')
    assert release_of(tmp_path, _sdist()) == ("6.14.00", datetime(2018, 6, 13, 12, tzinfo=UTC))
    # cppyy-cling 6.21+ kept 6.20/04's header: the newer package version names the release
    newer = Sdist("6.32.8", "cppyy_cling-6.32.8.tar.gz", "u", "b" * 64, None,
                  "2024-12-17T05:25:23.634442Z")
    assert release_of(tmp_path, newer) == (
        "6.32.08", datetime(2024, 12, 17, 5, 25, 23, 634442, tzinfo=UTC))
    header.unlink()
    with pytest.raises(SourceError, match="no RVersion header"):
        release_of(tmp_path, _sdist())


def _tree(root: Path, zip_text: str, zlib_text: str, other: str) -> Path:
    for path, text in (("core/zip/src/RZip.cxx", zip_text), ("builtins/zlib/deflate.c", zlib_text),
                       ("core/base/inc/RConfig.h", other)):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_the_history_has_one_dated_commit_per_release_and_tags_the_wheels(
        tmp_path: Path) -> None:
    first = _tree(tmp_path / "a", "zip 1\n", "zlib 1\n", "config 1\n")
    # a release whose compression paths are the previous one's (only a header moved on)
    second = _tree(tmp_path / "b", "zip 1\n", "zlib 1\n", "config 2\n")
    third = _tree(tmp_path / "c", "zip 2\n", "zlib cf\n", "config 2\n")
    wheel = tmp_path / "wheel"
    (wheel / "include").mkdir(parents=True)
    (wheel / "include/RZip.h").write_text("rzip header\n")

    def when(year: int) -> datetime:
        return datetime(year, 1, 1, 12, tzinfo=UTC)

    releases = [
        ReplayRelease("6.14.00", when(2018), "sdist a", tree=first),
        ReplayRelease("6.14.02", when(2019), "sdist b", tree=second),
        ReplayRelease("6.18.00", when(2020), "sdist c", tree=third),
        ReplayRelease("6.40.00", when(2026), "wheel", wheel=RELEASES["6.40.00"]),
    ]
    repo = tmp_path / "history.git"
    commits = build_history(repo, releases, {"6.40.00": wheel})
    again = build_history(tmp_path / "again.git", releases, {"6.40.00": wheel})
    assert [c.sha for c in commits] == [c.sha for c in again]  # deterministic
    assert [c.parent for c in commits] == [None] + [c.sha for c in commits[:-1]]

    log = subprocess.run(["git", "--git-dir", str(repo), "log", "--format=%H %aI", "master"],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert log[0].split() == [commits[-1].sha, "2026-01-01T12:00:00+00:00"]
    tags = subprocess.run(["git", "--git-dir", str(repo), "tag", "--points-at", commits[-1].sha],
                          capture_output=True, text=True, check=True).stdout.split()
    assert tags == ["v6-40-00"]

    assert commits[1].trees == commits[0].trees
    assert diff_summary(repo, commits[1]) == "no change"
    assert commits[2].trees["core/zip"] != commits[1].trees["core/zip"]
    assert commits[3].trees["builtins/zlib"] == "absent"
    shown = subprocess.run(["git", "--git-dir", str(repo), "show",
                            f"{commits[3].sha}:core/zip/inc/RZip.h"],
                           capture_output=True, text=True, check=True).stdout
    assert shown == "rzip header\n"
