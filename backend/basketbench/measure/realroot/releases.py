"""Real ROOT releases as codec layers: the PyPI `root` wheels, their libCore.so and rzbench.

A ROOT release wheel (x86_64 Linux, ~250 MB) carries ROOT's headers and `ROOT/lib/libCore.so`,
which exports `R__zipMultipleAlgorithm` / `R__unzip` / `R__unzip_header` over the codec copies
that release bundles. It is downloaded once with pip into
`<cache>/root-releases/<version>/` (cache: $BASKETBENCH_CACHE_DIR or ~/.cache/basketbench) and
rzbench is built against it once per harness version (`rzbench-<hash>/`); both are reused.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure.locks import file_lock
from basketbench.measure.paths import repo_root

CACHE_ENV = "BASKETBENCH_CACHE_DIR"


@dataclass(frozen=True)
class Release:
    version: str  # "6.40.00"
    wheel: str  # the PyPI `root` version carrying it
    date: str  # release date (RVersion.hxx); year-month of the wheel for development builds
    development: bool = False

    @property
    def tag(self) -> str:
        """ROOT's git tag, e.g. v6-40-00 (development builds have none)."""
        return "v" + self.version.replace(".", "-")

    @property
    def codec_set(self) -> str:
        return f"root-{self.version}"


# What each wheel wraps (zstd / lz4 / xz; zlib is the host's libz in all of them):
# 0.1a8-0.1a10: 1.4.8 / 1.9.3 / 5.2.4; 0.1a12: 1.5.7 / 1.10.0 / 5.8.2 (measured at run time
# by rzbench's "codecs" object, not taken from this comment).
RELEASES: dict[str, Release] = {
    r.version: r
    for r in (
        Release("6.37.01", "0.1a8", "2025-04", development=True),
        Release("6.39.01", "0.1a9", "2025-11", development=True),
        Release("6.38.00", "0.1a10", "2025-11-27"),
        Release("6.40.00", "0.1a12", "2026-05-20"),
    )
}


class RootReleaseError(Exception):
    """A release that cannot be used here, with the reason and what is available."""


def available() -> str:
    return ", ".join(
        f"{r.version}{' (development)' if r.development else ''}" for r in RELEASES.values()
    )


_FORMS = (
    re.compile(r"^v?(\d+)[.\-/](\d+)[.\-/](\d+)$"),  # 6.40.00, 6.40/00, v6-40-00
)


def lookup(name: str) -> Release:
    """The release for "6.40.00", "6.40/00" or the tag "v6-40-00"."""
    text = name.strip()
    for form in _FORMS:
        match = form.match(text)
        if match:
            major, minor, patch = (int(g) for g in match.groups())
            version = f"{major}.{minor:02d}.{patch:02d}"
            if version in RELEASES:
                return RELEASES[version]
    raise RootReleaseError(f"unknown ROOT release {name!r}; available: {available()}")


def release_for_tag(tag: str) -> Release | None:
    """The release a git tag such as v6-40-00 names, or None."""
    if not re.match(r"^v\d+-\d+-\d+$", tag.strip()):
        return None
    try:
        return lookup(tag)
    except RootReleaseError:
        return None


def release_commit_sha(release: Release) -> str:
    """A stable 40-hex commit id for a release measured without ROOT's repository (the demo):
    the sha1 of "root-release <version>"; a worker maps it back with `release_for_sha`."""
    return hashlib.sha1(f"root-release {release.version}".encode()).hexdigest()


def release_for_sha(sha: str) -> Release | None:
    sha = sha.strip().lower()
    for release in RELEASES.values():
        if release_commit_sha(release) == sha:
            return release
    return None


def check_platform(system: str | None = None, machine: str | None = None) -> None:
    system = system or platform.system()
    machine = machine or platform.machine()
    if system != "Linux" or machine not in ("x86_64", "AMD64"):
        raise RootReleaseError(
            f"ROOT release wheels exist for x86_64 Linux only; this is {system} {machine}: "
            "measure this machine with rzbench's own codec layer (rootcompat) or a ROOT "
            "source build (a worker build profile) instead"
        )


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV)
    return (Path(base) if base else Path.home() / ".cache" / "basketbench") / "root-releases"


def release_dir(release: Release) -> Path:
    return cache_dir() / release.version


def prefix(release: Release) -> Path:
    """The wheel's ROOT/ folder: include/RZip.h and lib/libCore.so."""
    return release_dir(release) / "ROOT"


def is_installed(release: Release) -> bool:
    return (release_dir(release) / "COMPLETE").is_file()


Say = Callable[[str], None]


def _quiet(_message: str) -> None:
    return None


def install(release: Release, say: Say = _quiet) -> Path:
    """Download and unpack the release's wheel once; returns its ROOT/ prefix."""
    check_platform()
    target = release_dir(release)
    if is_installed(release):
        return prefix(release)
    with file_lock(cache_dir() / f".{release.version}.lock"):
        if is_installed(release):
            return prefix(release)
        started = time.monotonic()
        say(f"downloading ROOT {release.version} (PyPI root=={release.wheel}, ~250 MB) once "
            f"into {target}")
        with tempfile.TemporaryDirectory(prefix="download-", dir=cache_dir()) as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--pre", "--no-deps",
                   "--only-binary=:all:", "--disable-pip-version-check", "--quiet",
                   f"root=={release.wheel}", "-d", tmp]
            done = subprocess.run(cmd, capture_output=True, text=True, check=False)
            wheel_path = downloaded_wheel(Path(tmp))
            if done.returncode != 0:
                raise RootReleaseError(
                    f"pip could not download root=={release.wheel} (ROOT {release.version}) "
                    f"for Python {sys.version_info.major}.{sys.version_info.minor}: "
                    f"{(done.stderr or done.stdout).strip()[-1500:]}"
                )
            if wheel_path is None:
                saved = sorted(p.name for p in Path(tmp).iterdir())
                raise RootReleaseError(
                    f"pip downloaded root=={release.wheel} (ROOT {release.version}) but saved "
                    f"no root-*.whl: {saved}"
                )
            partial = cache_dir() / f".{release.version}.partial-{os.getpid()}"
            shutil.rmtree(partial, ignore_errors=True)
            with zipfile.ZipFile(wheel_path) as wheel:
                wheel.extractall(partial)
            _restore_modes(wheel_path, partial)
        if not (partial / "ROOT" / "lib" / "libCore.so").is_file():
            shutil.rmtree(partial, ignore_errors=True)
            raise RootReleaseError(f"root=={release.wheel} has no ROOT/lib/libCore.so")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
        (target / "COMPLETE").write_text(f"root=={release.wheel}\n")
        say(f"ROOT {release.version} installed in {time.monotonic() - started:.0f} s")
    return prefix(release)


def downloaded_wheel(folder: Path) -> Path | None:
    """The `root` wheel pip saved in folder. The project name's case is the uploader's: the
    0.1a8 and 0.1a9 wheels are `ROOT-0.1a8-...whl`, later ones `root-0.1a10-...whl`."""
    wheels = sorted(p for p in folder.glob("*.whl") if p.name.lower().startswith("root-"))
    return wheels[0] if wheels else None


def _restore_modes(wheel: Path, root: Path) -> None:
    """zipfile drops the executable bits the wheel records; restore them (ROOT's tools)."""
    with zipfile.ZipFile(wheel) as zf:
        for info in zf.infolist():
            mode = (info.external_attr >> 16) & 0o777
            if mode & 0o111:
                path = root / info.filename
                if path.is_file():
                    path.chmod(mode)


# --- rzbench built against a release -----------------------------------------------------------

# What the release build of rzbench compiles (its tests, scripts and docs are not built).
_BUILT = ("CMakeLists.txt", "src", "include")


def harness_hash(source: Path) -> str:
    """Content hash of the harness sources the release build of rzbench compiles."""
    digest = hashlib.sha256()
    paths = [source / "CMakeLists.txt"] + [
        p for top in _BUILT[1:] for p in (source / top).rglob("*")
    ]
    for path in sorted(paths):
        rel = path.relative_to(source)
        if path.is_file():
            digest.update(str(rel).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def rzbench_path(release: Release, source: Path | None = None) -> Path:
    source = source or repo_root() / "bench-harness"
    return release_dir(release) / f"rzbench-{harness_hash(source)[:16]}" / "rzbench"


def build_rzbench(
    release: Release, source: Path | None = None, jobs: int = 2, say: Say = _quiet
) -> Path:
    """rzbench with the `root` backend over the release's libCore, built once per harness
    version (content hash of the sources) and reused from any copy of the same sources."""
    source = source or repo_root() / "bench-harness"
    root_prefix = install(release, say)
    binary = rzbench_path(release, source)
    done_marker = binary.parent / "COMPLETE"
    if done_marker.is_file() and binary.is_file():
        return binary
    with file_lock(release_dir(release) / ".build.lock"):
        if done_marker.is_file() and binary.is_file():
            return binary
        started = time.monotonic()
        say(f"building rzbench against ROOT {release.version}'s libCore (once per harness version)")
        # one build tree per source folder (CMake ties a tree to its source), kept for
        # incremental rebuilds of that folder's next harness version
        where = hashlib.sha256(str(source.resolve()).encode()).hexdigest()[:12]
        build = release_dir(release) / f"build-{where}"
        log = release_dir(release) / "build.log"
        with log.open("w") as fh:
            for cmd in (
                ["cmake", "-S", str(source), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                 "-DRZBENCH_TESTS=OFF", "-DRZBENCH_BACKEND=root",
                 f"-DROOT_ZIP_PREFIX={root_prefix}"],
                ["cmake", "--build", str(build), f"-j{jobs}", "--target", "rzbench"],
            ):
                fh.write("$ " + " ".join(cmd) + "\n")
                fh.flush()
                if subprocess.run(cmd, stdout=fh, stderr=subprocess.STDOUT, check=False).returncode:
                    tail = log.read_text(errors="replace")[-3000:]
                    raise RootReleaseError(
                        f"building rzbench against ROOT {release.version} failed (log {log}):\n"
                        f"{tail}"
                    )
        binary.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(build / "rzbench", binary)
        done_marker.write_text(f"ROOT {release.version}\n")
        say(f"rzbench for ROOT {release.version} built in {time.monotonic() - started:.0f} s")
    return binary


def release_rzbench(name: str, say: Say = _quiet) -> tuple[Release, Path]:
    """`basketbench run --root-release NAME`: the release and its rzbench (installed/built once)."""
    release = lookup(name)
    check_platform()
    return release, build_rzbench(release, say=say)
