"""Build throwaway git repositories for the worker tests (real git, no mocks)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_ENV = {
    "GIT_AUTHOR_NAME": "basketbench test",
    "GIT_AUTHOR_EMAIL": "test@basketbench.invalid",
    "GIT_COMMITTER_NAME": "basketbench test",
    "GIT_COMMITTER_EMAIL": "test@basketbench.invalid",
}


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, **_ENV}
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=env
    ).stdout.strip()


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "master")
    return path


def commit_files(repo: Path, files: dict[str, str | bytes], message: str) -> str:
    for rel, content in files.items():
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    return git(repo, "rev-parse", "HEAD")
