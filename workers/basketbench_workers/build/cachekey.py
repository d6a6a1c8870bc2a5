"""Build cache key: a hash of every input that can change the built library or rzbench.

Inputs: the git object ids of the profile's directories at the commit (so a commit
that touches no compression file has the same key as its parent), the compilers'
versions, the profile's compile signature (flags, sources, generated headers, its
version) and a hash of the harness sources rzbench is built from.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from basketbench_workers.build.profiles import Profile
from basketbench_workers.build.toolchain import Toolchain
from basketbench_workers.procs import StageFailed

KEY_FORMAT = "1"


@dataclass(frozen=True)
class BuildInputs:
    tree_ids: dict[str, str]
    compiler: str
    profile_signature: tuple[str, ...]
    harness_hash: str
    codec_signature: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        out = [f"key-format={KEY_FORMAT}", f"compiler={self.compiler}"]
        out += [f"tree {path}={oid}" for path, oid in sorted(self.tree_ids.items())]
        out += list(self.profile_signature)
        out += list(self.codec_signature)
        out.append(f"harness={self.harness_hash}")
        return out

    def key(self) -> str:
        return hashlib.sha256("\n".join(self.lines()).encode()).hexdigest()


def build_inputs(
    profile: Profile,
    tree_id: Callable[[str], str],
    toolchain: Toolchain,
    harness_hash: str,
    codec_signature: tuple[str, ...] = (),
) -> BuildInputs:
    return BuildInputs(
        tree_ids={path: tree_id(path) for path in profile.tree_paths},
        compiler=f"{toolchain.cc_version} | {toolchain.cxx_version}",
        profile_signature=tuple(profile.compile_signature()),
        harness_hash=harness_hash,
        codec_signature=codec_signature,
    )


_HARNESS_SKIP = {"build", ".git", "__pycache__"}


def harness_source_hash(root: Path) -> str:
    """Content hash of the harness sources (CMake files, C++), skipping build directories."""
    digest = hashlib.sha256()
    if not root.is_dir():
        return "missing"
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if _skipped(rel):
            continue
        if path.is_file():
            digest.update(str(rel).encode() + b"\0")
            digest.update(path.read_bytes())
            digest.update(b"\0")
    return digest.hexdigest()


def harness_path_skipped(rel: Path) -> bool:
    """Build directories and VCS data: not part of the harness sources."""
    return _skipped(rel)


def _skipped(rel: Path) -> bool:
    return any(part in _HARNESS_SKIP or part.startswith("build") for part in rel.parts)


@lru_cache(maxsize=4)
def harness_snapshot(source: Path, snapshots: Path) -> tuple[Path, str]:
    """A frozen copy of the harness sources, and its hash, taken once per worker process.

    The worker builds rzbench from the copy, so the cache key always describes what was
    compiled, and edits to the checkout while the worker runs change nothing until it
    restarts (the pool's children inherit the parent's snapshot).
    """
    if not (source / "CMakeLists.txt").is_file():
        raise StageFailed(f"no harness sources at {source} (set BASKETBENCH_HARNESS_SOURCE)")
    digest = harness_source_hash(source)
    target = snapshots / digest[:16]
    if not (target / "CMakeLists.txt").is_file():
        partial = snapshots / f"{digest[:16]}.partial-{os.getpid()}"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(
            source,
            partial,
            ignore=lambda d, names: [n for n in names if _skipped(Path(d, n).relative_to(source))],
        )
        if harness_source_hash(partial) != digest:  # edited while copying: take it again
            shutil.rmtree(partial, ignore_errors=True)
            harness_snapshot.cache_clear()
            return harness_snapshot(source, snapshots)
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
    return target, digest
