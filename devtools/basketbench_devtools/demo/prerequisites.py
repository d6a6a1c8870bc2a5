"""What the demo needs on this machine before it starts: the build tools and codec libraries
(installed if missing, else the exact command to run) and the built dashboard (optional)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from basketbench_devtools.demo.console import DemoError, say

CODEC_PKG_CONFIG = ("zlib", "liblzma", "liblz4", "libzstd", "libxxhash", "nlohmann_json")


def _missing_build_tools() -> list[str]:
    missing = [tool for tool in ("cmake", "git") if shutil.which(tool) is None]
    if not any(shutil.which(cxx) for cxx in ("c++", "g++", "clang++")):
        missing.append("a C++17 compiler")
    if shutil.which("pkg-config") is None:
        missing.append("pkg-config")
    elif sys.platform.startswith("linux"):
        # (on macOS brew's keg-only zlib has no .pc on the default path: system-deps.sh's
        # `brew list` is the check there)
        for lib in CODEC_PKG_CONFIG:
            found = subprocess.run(["pkg-config", "--exists", lib], check=False)
            if found.returncode != 0:
                missing.append(lib)
    return missing


def ensure_system_packages(root: Path) -> None:
    """Install the build tools and codec libraries if missing (apt as root / sudo -n, brew),
    else stop with the exact command (scripts/system-deps.sh prints it)."""
    missing = _missing_build_tools()
    if not missing and sys.platform != "darwin":
        return
    if missing:
        say(f"missing: {', '.join(missing)}; installing system packages")
    script = root / "scripts" / "system-deps.sh"
    done = subprocess.run(
        ["bash", str(script)], env={**os.environ, "BASKETBENCH_TEST_DEPS": "0"}, check=False
    )
    still = _missing_build_tools()
    if done.returncode != 0 or still:
        raise DemoError(
            f"system packages still missing ({', '.join(still) or 'see above'}); "
            "run the command printed above, or: sudo apt-get install -y build-essential cmake "
            "pkg-config git zlib1g-dev liblzma-dev liblz4-dev libzstd-dev libxxhash-dev "
            "nlohmann-json3-dev  (macOS: brew install cmake pkg-config zlib xz lz4 zstd xxhash "
            "nlohmann-json)"
        )


def frontend_dist(root: Path) -> Path | None:
    """The built dashboard (`make demo` builds it first; `make frontend-build` alone)."""
    dist = root / "frontend" / "dist"
    if (dist / "index.html").is_file():
        return dist
    say("the dashboard is not built (make frontend-build, needs Node 20+); serving the API only")
    return None
