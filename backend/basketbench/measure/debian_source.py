"""Upstream source archives from Debian's source packages, checked against Debian's index.

`apt-cache showsrc` lists each version apt knows of a source package with the sha256 of its
files, from Debian's signed Sources index; `apt-get source --download-only` fetches them.
The upstream archive is the `*.orig.tar.*`. The workers' pinned codec sets
(workers/.../build/codecsource.py) and the codec arena (measure/arena/sources.py) both fetch
this way; they keep their own records and locks around it.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure.digests import file_sha256

SETUP_HINT = "run scripts/setup-codec-sources.sh (deb-src lines for bullseye/bookworm/trixie)"

# Runs a command in a folder; whatever it raises is the caller's (the workers log it under
# their stage deadline). Its exit code is not looked at: see download_orig.
Runner = Callable[[list[str], Path], None]


class DebianSourceError(RuntimeError):
    """apt cannot be asked, or an archive was not downloaded or has the wrong sha256."""


@dataclass(frozen=True)
class OrigArchive:
    """One version of a Debian source package, and its upstream archive as the index lists it."""

    package: str
    version: str  # Debian's full version, e.g. 1:1.3.dfsg+really1.3.1-1
    archive: str  # file name
    sha256: str


def orig_archives(package: str) -> list[OrigArchive]:
    """Every version of the source package apt knows (deb-src lines), with its orig archive."""
    try:
        text = subprocess.run(["apt-cache", "showsrc", package], capture_output=True, text=True,
                              timeout=120, check=False).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DebianSourceError(f"cannot ask apt for the {package} sources: {exc}") from exc
    found = []
    for stanza in text.split("\n\n"):
        version = re.search(r"^Version: (\S+)", stanza, re.MULTILINE)
        sums = re.search(r"^Checksums-Sha256:\n((?: .*\n?)+)", stanza, re.MULTILINE)
        if not version or not sums:
            continue
        for line in sums.group(1).splitlines():
            parts = line.split()
            if len(parts) == 3 and re.search(r"\.orig\.tar\.[a-z0-9]+$", parts[2]):
                found.append(OrigArchive(package, version.group(1), parts[2], parts[0]))
    return found


def folder_of(sources: Path, package: str, version: str) -> Path:
    """Where one version's files are downloaded (`:` of an epoch is no file name character)."""
    return sources / f"{package}_{version.replace(':', '%')}"


def run_apt(command: list[str], cwd: Path) -> None:
    """The default runner: apt-get in ``cwd``, its output dropped, at most 10 minutes."""
    try:
        subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                       check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DebianSourceError(f"{' '.join(command[:3])} failed: {exc}") from exc


def download_orig(orig: OrigArchive, sources: Path, run: Runner = run_apt) -> Path:
    """The verified orig archive in ``folder_of(sources, ...)``, downloaded unless it is there
    already. The caller holds a lock on the folder: apt-get writes into it."""
    folder = folder_of(sources, orig.package, orig.version)
    archive = folder / orig.archive
    if not archive.is_file() or file_sha256(archive) != orig.sha256:
        folder.mkdir(parents=True, exist_ok=True)
        # apt's exit code is not the test (a mirror may lack the .dsc and still serve the
        # archive): the archive and its sha256 are.
        run(["apt-get", "source", "--download-only", "-q", f"{orig.package}={orig.version}"],
            folder)
    if not archive.is_file():
        raise DebianSourceError(f"{orig.archive} was not downloaded")
    digest = file_sha256(archive)
    if digest != orig.sha256:
        archive.unlink()
        raise DebianSourceError(f"{orig.archive} has sha256 {digest}, Debian's index says "
                                f"{orig.sha256}")
    return archive
