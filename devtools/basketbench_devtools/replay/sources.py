"""ROOT's released compression sources, fetched at run time and cached outside the clone.

The PyPI sdists of `cppyy-cling` carry ROOT's own source tree under `src/` (cling is built
from it), compression code included: core/zip in every version, core/lz4 and core/lzma in
some, ROOT's bundled zlib in builtins/zlib (Cloudflare's fork from 6.18). Each sdist is
downloaded once with its sha256 checked against the one PyPI lists, and only the
compression-relevant paths are extracted; nothing is built from the sdist itself.

Which ROOT release an sdist carries is read from the sdist (core/base/inc/RVersion.h:
ROOT_RELEASE "6.14/00" and ROOT_RELEASE_DATE), not from its package version.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

import httpx
from basketbench.measure.digests import file_sha256
from basketbench.measure.locks import file_lock
from basketbench.measure.realroot.releases import cache_dir

INDEX_URL = "https://pypi.org/simple/cppyy-cling/"
INDEX_ACCEPT = "application/vnd.pypi.simple.v1+json"
# The paths of ROOT's tree the replay keeps: the compression layer, its bundled codecs and
# the few headers the layer includes (their location moved over the years).
COMPRESSION_PATHS = (
    "core/zip", "core/lz4", "core/lzma", "core/zstd",
    "builtins/zlib", "builtins/lz4", "builtins/zstd", "builtins/xz", "builtins/zip",
    "core/base/inc/RConfig.h", "core/base/inc/RVersion.h", "core/base/inc/ROOT",
    "core/foundation/inc/ROOT/RConfig.hxx", "core/foundation/inc/ROOT/RVersion.hxx",
    "core/thread/inc/ThreadLocalStorage.h", "core/foundation/inc/ThreadLocalStorage.h",
)
_RELEASE = re.compile(r'#\s*define\s+ROOT_RELEASE\s+"(\d+)\.(\d+)/(\d+)"')
_RELEASE_DATE = re.compile(r'#\s*define\s+ROOT_RELEASE_DATE\s+"([A-Z][a-z]{2})\s+(\d+)\s+(\d{4})"')

Say = Callable[[str], None]


class SourceError(Exception):
    """An sdist that cannot be had or read, with the reason."""


@dataclass(frozen=True)
class Sdist:
    """One cppyy-cling source distribution as PyPI lists it."""

    version: str  # the package's version, e.g. "6.14.0.0"
    filename: str
    url: str
    sha256: str
    size: int | None
    uploaded: str | None  # ISO time PyPI received it


@dataclass(frozen=True)
class SourceTree:
    """An sdist's compression paths, extracted, and the ROOT release they belong to."""

    sdist: Sdist
    path: Path  # the tree, in ROOT's layout
    release: str  # "6.14.00" (from RVersion.h)
    date: datetime  # ROOT_RELEASE_DATE, UTC noon

    @property
    def label(self) -> str:
        return f"{self.release} (cppyy-cling {self.sdist.version})"


def replay_cache() -> Path:
    """<cache>/replay beside the release wheels' <cache>/root-releases ($BASKETBENCH_CACHE_DIR
    or ~/.cache/basketbench), never in the clone."""
    return cache_dir().parent / "replay"


def fetch_index(cache: Path, say: Say) -> list[Sdist]:
    """Every sdist of cppyy-cling, oldest first (PyPI's JSON simple API; a cached copy of
    the answer is used when PyPI cannot be reached)."""
    saved = cache / "cppyy-cling-index.json"
    try:
        response = httpx.get(INDEX_URL, headers={"Accept": INDEX_ACCEPT}, timeout=60,
                             follow_redirects=True)
        response.raise_for_status()
        data = response.json()
        saved.parent.mkdir(parents=True, exist_ok=True)
        # Through a private file renamed into place: a reader (another test process, a
        # replay started beside it) sees the old copy or the new one, never half of one.
        fd, partial = tempfile.mkstemp(prefix=f".{saved.name}.", dir=saved.parent)
        with os.fdopen(fd, "w") as fh:
            fh.write(json.dumps(data))
        os.replace(partial, saved)
    except (httpx.HTTPError, ValueError) as exc:
        if not saved.is_file():
            raise SourceError(f"PyPI's index of cppyy-cling is unreachable ({exc}) and no "
                              "copy is cached") from exc
        say(f"PyPI unreachable ({exc}); using the cached index {saved.name}")
        data = json.loads(saved.read_text())
    return parse_index(data)


def parse_index(data: dict[str, Any]) -> list[Sdist]:
    out = []
    for f in data.get("files", []):
        name = str(f.get("filename", ""))
        match = re.match(r"^cppyy[-_]cling-([0-9.]+)\.tar\.gz$", name)
        sha = (f.get("hashes") or {}).get("sha256")
        if match is None or not sha:
            continue
        out.append(Sdist(match.group(1), name, str(f["url"]), str(sha), f.get("size"),
                         f.get("upload-time")))
    return sorted(out, key=lambda s: tuple(int(p) for p in s.version.split(".")))


def download(sdist: Sdist, cache: Path, say: Say) -> Path:
    """The sdist file, downloaded once; its sha256 must be the one PyPI lists."""
    target = cache / "sdists" / sdist.filename
    if target.is_file() and file_sha256(target) == sdist.sha256:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    size = f"{sdist.size / 1e6:.0f} MB" if sdist.size else "size unknown"
    say(f"downloading {sdist.filename} ({size}) from PyPI")
    digest = hashlib.sha256()
    try:
        with httpx.stream("GET", sdist.url, timeout=120, follow_redirects=True) as response, \
                partial.open("wb") as fh:
            response.raise_for_status()
            for chunk in response.iter_bytes(1 << 20):
                digest.update(chunk)
                fh.write(chunk)
    except httpx.HTTPError as exc:
        partial.unlink(missing_ok=True)
        raise SourceError(f"{sdist.filename}: download failed: {exc}") from exc
    if digest.hexdigest() != sdist.sha256:
        partial.unlink(missing_ok=True)
        raise SourceError(f"{sdist.filename}: sha256 {digest.hexdigest()} is not the "
                          f"{sdist.sha256} PyPI lists")
    partial.replace(target)
    return target


def _kept(relative: str) -> bool:
    return any(relative == p or relative.startswith(p + "/") for p in COMPRESSION_PATHS)


def extract(sdist: Sdist, archive: Path, cache: Path) -> SourceTree:
    """The compression paths of the sdist's src/ in ROOT's layout (extracted once)."""
    tree = cache / "trees" / f"cppyy-cling-{sdist.version}-{sdist.sha256[:12]}"
    if not (tree / ".complete").is_file():
        shutil.rmtree(tree, ignore_errors=True)
        staging = tree.with_name(tree.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        with tarfile.open(archive) as tar:
            members = []
            for member in tar.getmembers():
                parts = PurePosixPath(member.name).parts
                if len(parts) < 3 or parts[1] != "src" or not (member.isfile() or member.isdir()):
                    continue
                relative = "/".join(parts[2:])
                if _kept(relative):
                    member.name = relative
                    members.append(member)
            if not members:
                raise SourceError(f"{sdist.filename} holds none of ROOT's compression paths")
            tar.extractall(staging, members=members, filter="data")
        (staging / ".complete").write_text(sdist.sha256 + "\n")
        staging.rename(tree)
    release, date = release_of(tree, sdist)
    return SourceTree(sdist, tree, release, date)


def release_of(tree: Path, sdist: Sdist) -> tuple[str, datetime]:
    """ROOT's release and its date, as the tree's RVersion header states them.

    The sdists from cppyy-cling 6.21 on still carry 6.20/04's RVersion.h while their
    sources moved on (6.32.8's builtins/zlib is not 6.20.4's): where the package's
    major.minor is newer than the header's, the release is named by the package version
    and dated by its upload to PyPI, and the header is not believed."""
    for name in ("core/foundation/inc/ROOT/RVersion.hxx", "core/base/inc/RVersion.h"):
        header = tree / name
        if not header.is_file():
            continue
        text = header.read_text(errors="replace")
        release, date = _RELEASE.search(text), _RELEASE_DATE.search(text)
        if release is None or date is None:
            continue
        major, minor, patch = (int(g) for g in release.groups())
        package = tuple(int(p) for p in sdist.version.split(".")[:3])
        if package[:2] > (major, minor) and sdist.uploaded:
            uploaded = datetime.fromisoformat(sdist.uploaded.replace("Z", "+00:00"))
            patch_of = package[2] if len(package) > 2 else 0
            return f"{package[0]}.{package[1]:02d}.{patch_of:02d}", uploaded.astimezone(UTC)
        when = datetime.strptime(" ".join(date.groups()), "%b %d %Y").replace(
            hour=12, tzinfo=UTC)
        return f"{major}.{minor:02d}.{patch:02d}", when
    raise SourceError(f"{sdist.filename}: no RVersion header states ROOT's release")


def source_tree(sdist: Sdist, cache: Path, say: Say) -> SourceTree:
    """The sdist's compression sources, downloaded and extracted once per cache: one process
    at a time (the download's partial file and the extraction's staging folder have fixed
    names), a second one waiting and then finding the work done."""
    with file_lock(cache / "sdists" / f".{sdist.filename}.lock"):
        return extract(sdist, download(sdist, cache, say), cache)
