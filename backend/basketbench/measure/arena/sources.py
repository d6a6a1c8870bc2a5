"""Candidate codec sources, downloaded at run time and cached outside the clone.

Two kinds of source package, each fetched with its registry's ordinary client and checked
against the sha256 the registry itself lists:

- Debian source packages (measure/debian_source.py, the deb-src lines of
  scripts/setup-codec-sources.sh): the upstream `*.orig.tar.*`, checked against the sha256 of
  Debian's signed Sources index.
- PyPI sdists (PyPI's JSON simple index, sha256 from the index): `zlib-ng` bundles zlib-ng's
  sources, `deflate` libdeflate's, `cppyy-cling` ROOT's tree with the Cloudflare zlib that ROOT
  bundled from 6.18 in src/builtins/zlib.

The same way of fetching as the workers' pinned codec sets (workers/.../build/codecsource.py),
here in the measurement library so that `basketbench arena` on a laptop and a worker's arena
stage share it (workers may import basketbench.measure, not the other way round).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import httpx

from basketbench.measure import debian_source
from basketbench.measure.debian_source import SETUP_HINT, DebianSourceError, OrigArchive
from basketbench.measure.digests import file_sha256
from basketbench.measure.locks import file_lock

Say = Callable[[str], None]
PYPI_SIMPLE = "https://pypi.org/simple/{package}/"
PYPI_ACCEPT = "application/vnd.pypi.simple.v1+json"


class SourceUnavailable(RuntimeError):
    """A candidate's source package cannot be had (the message says why)."""


@dataclass(frozen=True)
class SourcePackage:
    """Where a candidate's sources come from: ("debian", package, version) or ("pypi", ...)."""

    registry: str  # "debian" | "pypi"
    package: str
    version: str  # Debian's full version (1:1.3.dfsg+really1.3.1-1) or the PyPI release

    @property
    def label(self) -> str:
        sep = "=" if self.registry == "debian" else "=="
        return f"{self.registry}:{self.package}{sep}{self.version}"


@dataclass(frozen=True)
class Archive:
    source: SourcePackage
    path: Path
    sha256: str


def default_cache() -> Path:
    """$BASKETBENCH_CACHE_DIR/arena or ~/.cache/basketbench/arena."""
    base = os.environ.get("BASKETBENCH_CACHE_DIR")
    root = Path(base) if base else Path.home() / ".cache" / "basketbench"
    return root / "arena"


def obtain(source: SourcePackage, cache: Path, say: Say) -> Archive:
    """The verified archive of `source` in `cache/sources` (downloaded once). One process
    at a time per source: apt-get writes into the source's folder and the PyPI download
    goes through a partial file of a fixed name; a second process waits, then finds the
    archive recorded."""
    fetch = {"debian": _debian, "pypi": _pypi}.get(source.registry)
    if fetch is None:
        raise SourceUnavailable(f"unknown registry {source.registry!r}")
    folder = _folder(source, cache / "sources")
    if (hit := _cached(folder, source)) is not None:
        return hit
    with file_lock(folder.with_name(f".{folder.name}.lock")):
        return _cached(folder, source) or fetch(source, folder, say)


def _folder(source: SourcePackage, sources: Path) -> Path:
    """Where a source's archive and its record are kept."""
    if source.registry == "debian":
        return debian_source.folder_of(sources, source.package, source.version)
    return sources / f"pypi-{source.package}-{source.version}"


def _record(folder: Path, archive: Path, sha: str, source: SourcePackage) -> Archive:
    (folder / "archive.json").write_text(json.dumps(
        {"source": source.label, "archive": archive.name, "sha256": sha}, indent=2))
    return Archive(source, archive, sha)


def _cached(folder: Path, source: SourcePackage) -> Archive | None:
    try:
        data = json.loads((folder / "archive.json").read_text())
        archive = folder / data["archive"]
        if archive.is_file() and data["source"] == source.label:
            return Archive(source, archive, str(data["sha256"]))
    except (OSError, ValueError, KeyError):
        pass
    return None


def debian_orig(package: str, version: str) -> OrigArchive:
    """The upstream orig archive Debian's index lists for the version."""
    try:
        known = debian_source.orig_archives(package)
    except DebianSourceError as exc:
        raise SourceUnavailable(str(exc)) from exc
    for orig in known:
        if orig.version == version:
            return orig
    listed = ", ".join(dict.fromkeys(o.version for o in known)) or "none"
    raise SourceUnavailable(f"Debian source package {package}={version} is not known to apt "
                            f"(known: {listed}); {SETUP_HINT}")


def _debian(source: SourcePackage, folder: Path, say: Say) -> Archive:
    orig = debian_orig(source.package, source.version)

    def fetch(command: list[str], cwd: Path) -> None:
        say(f"downloading Debian source package {source.package}={source.version}")
        debian_source.run_apt(command, cwd)

    try:
        archive = debian_source.download_orig(orig, folder.parent, fetch)
    except DebianSourceError as exc:
        raise SourceUnavailable(f"{source.label}: {exc}") from exc
    return _record(folder, archive, orig.sha256, source)


def _pypi(source: SourcePackage, folder: Path, say: Say) -> Archive:
    try:
        response = httpx.get(PYPI_SIMPLE.format(package=source.package),
                             headers={"Accept": PYPI_ACCEPT}, timeout=60, follow_redirects=True)
        response.raise_for_status()
        files = response.json().get("files", [])
    except (httpx.HTTPError, ValueError) as exc:
        raise SourceUnavailable(f"{source.label}: PyPI's index is unreachable ({exc})") from exc
    stem = re.sub(r"[-_.]+", "[-_.]", source.package)
    wanted = re.compile(rf"^{stem}-{re.escape(source.version)}\.tar\.gz$", re.IGNORECASE)
    match = [f for f in files if wanted.match(str(f.get("filename", "")))]
    if not match or not (match[0].get("hashes") or {}).get("sha256"):
        raise SourceUnavailable(f"{source.label}: PyPI lists no sdist of that version")
    entry = match[0]
    expected = str(entry["hashes"]["sha256"])
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / str(entry["filename"])
    if not archive.is_file() or file_sha256(archive) != expected:
        say(f"downloading {entry['filename']} from PyPI")
        partial = archive.with_name(archive.name + ".part")
        try:
            with httpx.stream("GET", str(entry["url"]), timeout=300,
                              follow_redirects=True) as response, partial.open("wb") as fh:
                response.raise_for_status()
                for chunk in response.iter_bytes(1 << 20):
                    fh.write(chunk)
        except httpx.HTTPError as exc:
            partial.unlink(missing_ok=True)
            raise SourceUnavailable(f"{source.label}: download failed: {exc}") from exc
        partial.replace(archive)
    digest = file_sha256(archive)
    if digest != expected:
        archive.unlink()
        raise SourceUnavailable(f"{source.label}: sha256 {digest} is not the {expected} PyPI "
                                "lists")
    return _record(folder, archive, digest, source)
