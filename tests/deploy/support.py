"""Helpers of the deployment tests: where the repository is, how to run compose."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(os.environ.get("VIRTUAL_ENV", REPO / ".venv")) / "bin"


def compose_command() -> list[str] | None:
    """`docker compose` (v2 plugin) when present, else Debian's docker-compose (v1)."""
    docker = shutil.which("docker")
    if docker:
        probe = subprocess.run(
            [docker, "compose", "version"], capture_output=True, text=True, check=False
        )
        if probe.returncode == 0:
            return [docker, "compose"]
    legacy = shutil.which("docker-compose")
    return [legacy] if legacy else None


def basketbench_exe() -> str:
    exe = VENV_BIN / "basketbench"
    if exe.exists():
        return str(exe)
    found = shutil.which("basketbench")
    assert found, "the basketbench command is not installed (make venv)"
    return found
