"""The demo's release history: real ROOT releases measured before the checkout's own commit.

Each release is a commit of the demo's repository with a stable id (`release_commit_sha`), so
the embedded worker measures it with that release's own libCore (the PyPI `root` wheel, ~250 MB,
downloaded once into ~/.cache/basketbench/root-releases) and the history and compare pages show
ROOT 6.38.00 -> 6.40.00 -> this checkout: the zstd 1.4.8 -> 1.5.7 size change and the faster
xz of 6.40 included.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import httpx
from basketbench.measure.realroot.releases import (
    RootReleaseError,
    check_platform,
    lookup,
    release_commit_sha,
)

from basketbench_devtools.demo.console import say
from basketbench_devtools.demo.runs import find_finished_run, trigger

DEMO_RELEASES = ("6.38.00", "6.40.00")
# "0": only the checkout; "1": the releases too, even with --quick (which skips them otherwise)
RELEASES_ENV = "BASKETBENCH_DEMO_RELEASES"
IO_RELEASE = "6.40.00"  # the end-to-end I/O suite runs on this one release


def releases_wanted(quick: bool) -> bool:
    """Whether this demo measures the ROOT releases (and so downloads one, converts HZZ to an
    RNTuple with it and runs the end-to-end I/O suite)."""
    wanted = os.environ.get(RELEASES_ENV, "")
    return not (wanted == "0" or (quick and wanted != "1"))


def measure_releases(
    client: httpx.Client,
    token: str,
    tag: str,
    suite: str,
    *,
    quick: bool,
    rerun: bool,
    follow: Callable[[int], dict[str, Any]],
) -> list[dict[str, Any]]:
    """Measure each demo release once (oldest first); returns their finished runs.
    `follow` waits for a run to end (runs.follow with the demo's timeout and worker log).

    A machine where release wheels cannot run (not x86_64 Linux) skips them with the reason;
    a release whose run fails is reported and the demo goes on with the others. `--quick`
    skips them (each release is a download and a build the first time) unless asked for.
    """
    wanted = os.environ.get(RELEASES_ENV, "")
    if not releases_wanted(quick):
        say(f"ROOT releases {', '.join(DEMO_RELEASES)} skipped "
            f"({'--quick' if wanted != '0' else RELEASES_ENV + '=0'}; {RELEASES_ENV}=1 "
            "measures them)")
        return []
    try:
        check_platform()
    except RootReleaseError as exc:
        say(f"ROOT releases skipped: {exc}")
        return []
    runs = []
    for version in DEMO_RELEASES:
        release = lookup(version)
        sha = release_commit_sha(release)
        run = None if rerun else find_finished_run(client, sha, tag, suite)
        if run is not None:
            say(f"ROOT {version} was measured already (run {run['id']})")
            runs.append(run)
            continue
        run_id = trigger(client, token, sha, tag, suite)
        say(f"ROOT {version}: run {run_id} measures the release's own libCore "
            f"(commit id {sha[:12]}; first time: downloads PyPI root=={release.wheel} and "
            "builds rzbench against it)")
        run = follow(run_id)
        if run["status"] != "succeeded":
            say(f"ROOT {version}: run {run_id} {run['status']}: "
                f"{(run.get('log_tail') or '').strip()[-800:]}")
            continue
        runs.append(run)
    return runs


def measure_io(
    client: httpx.Client,
    token: str,
    tag: str,
    suite: str,
    *,
    rerun: bool,
    follow: Callable[[int], dict[str, Any]],
) -> dict[str, Any] | None:
    """The end-to-end I/O suite on IO_RELEASE (ROOT writes and reads HZZ as TTree and RNTuple
    with its own PyROOT); its finished run, or None with the reason said."""
    release = lookup(IO_RELEASE)
    sha = release_commit_sha(release)
    run = None if rerun else find_finished_run(client, sha, tag, suite)
    if run is not None:
        say(f"end-to-end I/O on ROOT {IO_RELEASE} was measured already (run {run['id']})")
        return run
    run_id = trigger(client, token, sha, tag, suite)
    say(f"end-to-end I/O: run {run_id} writes and reads HZZ with ROOT {IO_RELEASE}'s PyROOT "
        "(TTree and RNTuple, 2 settings)")
    run = follow(run_id)
    if run["status"] != "succeeded":
        say(f"end-to-end I/O: run {run_id} {run['status']}: "
            f"{(run.get('log_tail') or '').strip()[-800:]}")
        return None
    return run
