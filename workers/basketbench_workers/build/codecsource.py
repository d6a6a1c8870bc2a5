"""Codec source archives from Debian's source packages (fetched by measure/debian_source.py).

Debian carries exactly the versions that matter across its releases (bullseye, bookworm,
trixie; deb-src lines from scripts/setup-codec-sources.sh). The upstream source archive is
Debian's `*.orig.tar.*`; it is checked against the sha256 in Debian's signed Sources index
and, when the codec set pins one, against the pinned checksum. Archives are cached outside
the clone and reused. Nothing else is tried: a version Debian does not carry, or an archive
the mirror does not serve, fails with that reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure import debian_source
from basketbench.measure.debian_source import SETUP_HINT, DebianSourceError, OrigArchive
from basketbench.measure.locks import file_lock
from basketbench.measure.whole_files import replace_text

from basketbench_workers.build.codecsets import Pin
from basketbench_workers.procs import Deadline, StageFailed, run_logged, tail

DEBIAN_SOURCE = {"zstd": "libzstd", "lz4": "lz4", "lzma": "xz-utils"}


class CodecUnavailable(StageFailed):
    """A pinned codec source cannot be obtained; the run fails with this reason."""


@dataclass(frozen=True)
class SourceArchive:
    library: str
    version: str  # upstream
    debian_version: str
    path: Path
    sha256: str

    def record(self) -> dict[str, str]:
        return {
            "library": self.library,
            "version": self.version,
            "debian_package": DEBIAN_SOURCE[self.library],
            "debian_version": self.debian_version,
            "archive": self.path.name,
            "sha256": self.sha256,
        }


def upstream_of(debian_version: str) -> str:
    """1:1.2.13.dfsg-1 -> 1.2.13; 1.4.8+dfsg-2.1 -> 1.4.8; 5.2.5-2.1~deb11u1 -> 5.2.5."""
    version = debian_version.split(":", 1)[-1]
    if "-" in version:
        version = version.rsplit("-", 1)[0]
    return re.split(r"[+~]|\.dfsg", version)[0]


def debian_candidates(library: str) -> list[OrigArchive]:
    """Every version of the library's Debian source package apt knows, with its orig archive."""
    try:
        return debian_source.orig_archives(DEBIAN_SOURCE[library])
    except DebianSourceError as exc:
        raise CodecUnavailable(str(exc)) from exc


def obtain_source(pin: Pin, cache: Path, log: Path, deadline: Deadline) -> SourceArchive:
    """The verified source archive of `pin`, downloaded into `cache` unless already there."""
    sources = cache / "sources"
    record = sources / f"{pin.library}-{pin.version}.json"
    known = _cached(record, pin)
    if known is not None:
        return known
    # One download per pin at a time: apt-get writes the archive into a shared folder, and
    # two at once (two workers, two test processes) can leave it torn. The second waits,
    # then finds the record.
    with file_lock(sources / f".{pin.library}-{pin.version}.lock"):
        return _cached(record, pin) or _download(pin, sources, record, log, deadline)


def _download(pin: Pin, sources: Path, record: Path, log: Path, deadline: Deadline
              ) -> SourceArchive:
    candidates = [c for c in debian_candidates(pin.library)
                  if upstream_of(c.version) == pin.version]
    package = DEBIAN_SOURCE[pin.library]
    if not candidates:
        raise CodecUnavailable(
            f"{pin.library} {pin.version}: no Debian source package {package} of that version "
            f"is known to apt (known: {_known_versions(pin.library)}); {SETUP_HINT}"
        )
    if pin.sha256 is not None:
        matching = [c for c in candidates if c.sha256 == pin.sha256]
        if not matching:
            raise CodecUnavailable(
                f"{pin.library} {pin.version}: the tree pins source archive sha256 {pin.sha256}, "
                f"but Debian's {package} archives of that version are "
                + ", ".join(f"{c.archive} sha256 {c.sha256}" for c in candidates)
            )
        candidates = matching
    errors = []

    def fetch(command: list[str], cwd: Path) -> None:
        # every exit code: a mirror may lack the .dsc and still serve the archive
        run_logged(command, log, deadline, cwd=cwd, ok_codes=tuple(range(256)))

    for candidate in candidates:
        try:
            archive = debian_source.download_orig(candidate, sources, fetch)
        except (StageFailed, DebianSourceError) as exc:
            errors.append(f"{candidate.version}: {exc}")
            continue
        found = SourceArchive(pin.library, pin.version, candidate.version, archive,
                              candidate.sha256)
        replace_text(record, json.dumps(found.record(), indent=2))
        return found
    raise CodecUnavailable(
        f"{pin.library} {pin.version}: cannot download Debian's source archive ("
        + "; ".join(errors) + ")",
        tail(log),
    )


def _cached(record: Path, pin: Pin) -> SourceArchive | None:
    try:
        data = json.loads(record.read_text())
        folder = debian_source.folder_of(record.parent, data["debian_package"],
                                         data["debian_version"])
        archive = folder / data["archive"]
        if not archive.is_file() or (pin.sha256 is not None and data["sha256"] != pin.sha256):
            return None
        return SourceArchive(pin.library, pin.version, data["debian_version"], archive,
                             data["sha256"])
    except (OSError, ValueError, KeyError):
        return None


def _known_versions(library: str) -> str:
    versions = sorted({upstream_of(c.version) for c in debian_candidates(library)})
    return ", ".join(versions) or "none: apt has no deb-src lines for it"
