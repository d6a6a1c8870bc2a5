"""The real skim of the shared NanoAOD by a ROOT release (pyroot_skim), made once and cached.

`cached_skim(source)` returns {setting: path} of the skim written by ROOT itself at each
setting (RDataFrame Snapshot; ROOT compresses every basket), under the release cache
(~/.cache/basketbench/root-releases/skims/<version>-<source sha256[:16]>/).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from basketbench.measure.locks import file_lock
from basketbench.measure.paths import repo_root
from basketbench.measure.realroot import releases as root_release

DEFAULT_RELEASE = "6.40.00"
SKIM_SETTINGS = (101, 505)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def cached_skim(
    source: Path,
    settings: Sequence[int] = SKIM_SETTINGS,
    release_name: str = DEFAULT_RELEASE,
    timeout: float = 900,
) -> dict[int, Path]:
    """ROOT's own skim files of `source`, one per setting (made on first use, then reused)."""
    release = root_release.lookup(release_name)
    root_release.check_platform()
    root_release.install(release)
    folder = root_release.cache_dir() / "skims" / f"{release.version}-{_digest(source)}"
    wanted = {s: folder / f"skim-{s}.root" for s in settings}
    with file_lock(folder.with_suffix(".lock")):
        missing = [s for s, p in wanted.items() if not p.is_file()]
        if missing:
            folder.mkdir(parents=True, exist_ok=True)
            env = {
                **os.environ,
                "PYTHONPATH": os.pathsep.join(
                    [str(root_release.release_dir(release)), str(repo_root() / "backend")]
                ),
            }
            done = subprocess.run(
                [sys.executable, "-m", "basketbench.measure.realroot.pyroot_skim", str(folder),
                 ",".join(map(str, missing)), str(source)],
                env=env, capture_output=True, text=True, check=False, timeout=timeout,
            )
            if done.returncode != 0 or any(not wanted[s].is_file() for s in missing):
                raise root_release.RootReleaseError(
                    f"skim with ROOT {release.version} failed:\n{done.stderr[-2000:]}"
                )
    return wanted
