"""The demo's RNTuple: HZZ converted by the ROOT release the demo downloads anyway.

The scikit-hep-testdata wheel (a newcomer's only real files) holds no RNTuple, so without the
project's shared data ROOT's production format would be missing from the trade-off page. ROOT
6.40.00's own RNTupleImporter (measure/realroot/pyroot_rntuple.py, run with the release's
PyROOT) reads the HZZ TTree and writes it as an RNTuple with ZSTD-5 pages (RNTuple's default),
once, into converted_root_files_dir(), where the worker's corpus step finds it like any real
file; the suite measures it as corpus "hzz-rntuple" beside "hzz", the same events as a TTree.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from basketbench.measure.paths import repo_root
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.rootio.root_files import converted_root_files_dir, default_root_files

from basketbench_devtools.demo.console import say

CONVERT_RELEASE = "6.40.00"
SOURCE = "uproot-HZZ-zlib.root"
TREE = "events"
SETTING = 505  # RNTuple's default compression (ROOT PR #14791)


def converted_name() -> str:
    return f"{Path(SOURCE).stem}-rntuple-{SETTING}.root"


def convert_hzz() -> Path | None:
    """HZZ as an RNTuple (converted once, then reused); None with the reason said when the
    release cannot run here or the source file is missing."""
    target = converted_root_files_dir() / converted_name()
    if target.is_file():
        say(f"RNTuple: {target.name} (converted earlier by ROOT {CONVERT_RELEASE})")
        return target
    sources = {p.name: p for p in default_root_files()}
    if SOURCE not in sources:
        say(f"RNTuple: skipped, {SOURCE} is not installed")
        return None
    try:
        release = root_release.lookup(CONVERT_RELEASE)
        root_release.check_platform()
        root_release.install(release, say)
    except root_release.RootReleaseError as exc:
        say(f"RNTuple: skipped, {exc}")
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.parent / f".partial-{os.getpid()}"
    partial.mkdir(exist_ok=True)
    started = time.monotonic()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root_release.release_dir(release)), str(repo_root() / "backend")])}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.measure.realroot.pyroot_rntuple", str(partial),
         str(SETTING), f"{sources[SOURCE]}:{TREE}"],
        env=env, capture_output=True, text=True, check=False, timeout=900)
    written = partial / converted_name()
    if done.returncode != 0 or not written.is_file():
        say(f"RNTuple: ROOT {CONVERT_RELEASE}'s RNTupleImporter failed (exit {done.returncode}): "
            f"{(done.stderr or done.stdout).strip()[-600:]}")
        return None
    written.replace(target)
    partial.rmdir()
    say(f"RNTuple: ROOT {CONVERT_RELEASE}'s RNTupleImporter wrote {target.name} "
        f"({target.stat().st_size / 1e3:.0f} kB, {SETTING} pages) in "
        f"{time.monotonic() - started:.0f} s")
    return target
