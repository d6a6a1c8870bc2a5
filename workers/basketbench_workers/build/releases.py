"""Releases as commits: a ROOT release tag (v6-40-00) is measured with that release's own build.

A run's commit is a release when it is the stable id `release_commit_sha` gives a release (runs
made without ROOT's repository, e.g. by `basketbench demo`), or when a tag of the worker's mirror
that names a known release points at it. Its rzbench is the `root` backend over the release
wheel's libCore (basketbench.measure.realroot.releases), installed and built once per harness
version.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from basketbench.measure.realroot.releases import (
    Release,
    RootReleaseError,
    build_rzbench,
    prefix,
    release_for_sha,
    release_for_tag,
    rzbench_path,
)

from basketbench_workers.build.cache import BuildResult
from basketbench_workers.build.cachekey import harness_snapshot
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.config import WorkerSettings
from basketbench_workers.procs import StageFailed


def release_by_id(sha: str) -> Release | None:
    """The release whose stable commit id this is (no repository needed)."""
    return release_for_sha(sha)


def release_by_tag(mirror: Mirror, sha: str) -> Release | None:
    """The known release a tag at `sha` names (ROOT tags its releases v6-40-00)."""
    try:
        tags = mirror.git("tag", "--points-at", sha).split()
    except subprocess.CalledProcessError:
        return None
    for tag in sorted(tags):
        release = release_for_tag(tag)
        if release is not None:
            return release
    return None


def release_build(release: Release, settings: WorkerSettings, log_path: Path) -> BuildResult:
    source, digest = harness_snapshot(
        settings.harness_source, settings.worker_dir / "harness-src"
    )
    cached = rzbench_path(release, source)
    hit = cached.is_file() and (cached.parent / "COMPLETE").is_file()
    started = time.monotonic()

    def say(message: str) -> None:
        with log_path.open("a") as fh:
            fh.write(message + "\n")

    try:
        binary = build_rzbench(release, source, jobs=settings.build_jobs, say=say)
    except RootReleaseError as exc:
        raise StageFailed(str(exc)) from exc
    return BuildResult(
        key=f"root-release-{release.version}-{digest[:16]}",
        rzbench=binary,
        prefix=prefix(release),
        cache_hit=hit,
        seconds=time.monotonic() - started,
    )
