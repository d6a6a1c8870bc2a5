"""Exports of `git archive` on Pythons without tarfile extraction filters (Debian 12's
3.11.2, the worker image's base in `make compose-e2e`): same files, same refusals."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from basketbench_workers.build import gitmirror
from basketbench_workers.procs import StageFailed


def _tar(path: Path, members: list[tuple[str, bytes | None, str | None]]) -> None:
    with tarfile.open(path, "w") as archive:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                archive.addfile(info)
            else:
                info.size = len(data or b"")
                archive.addfile(info, io.BytesIO(data or b""))


@pytest.mark.parametrize("filters", [True, False], ids=["with-filters", "without-filters"])
def test_a_tree_is_extracted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, filters: bool
) -> None:
    if not filters:
        monkeypatch.delattr(tarfile, "data_filter", raising=False)
    tar = tmp_path / "a.tar"
    _tar(tar, [("core/zip/src/a.cpp", b"int a;", None), ("core/zip/inc/l.h", None, "../src/a.cpp")])
    dest = tmp_path / "tree"
    dest.mkdir()
    with tarfile.open(tar) as archive:
        gitmirror._extract(archive, dest)
    assert (dest / "core/zip/src/a.cpp").read_bytes() == b"int a;"
    assert (dest / "core/zip/inc/l.h").read_bytes() == b"int a;"


@pytest.mark.parametrize(
    "member",
    [("../outside.txt", b"x", None), ("core/evil", None, "../../../etc/passwd")],
    ids=["path-escapes", "link-escapes"],
)
def test_escaping_members_are_refused_without_filters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, member: tuple[str, bytes | None, str | None]
) -> None:
    monkeypatch.delattr(tarfile, "data_filter", raising=False)
    tar = tmp_path / "a.tar"
    _tar(tar, [member])
    dest = tmp_path / "tree"
    dest.mkdir()
    with tarfile.open(tar) as archive, pytest.raises(StageFailed, match="refused|leaves"):
        gitmirror._extract(archive, dest)
    assert not (tmp_path / "outside.txt").exists()
