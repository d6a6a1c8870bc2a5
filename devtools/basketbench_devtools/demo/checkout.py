"""The commit of this git checkout that the demo measures: its full sha and the author,
date, message and parents the dashboard shows."""

from __future__ import annotations

import subprocess
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from basketbench_devtools.demo.console import DemoError

if TYPE_CHECKING:
    from basketbench.catalog.commits import CommitInfo

# The repository this checkout is stored under (its commits, its runs).
DEMO_REPOSITORY = "basketbench"


def resolve_commit(root: Path, rev: str) -> str:
    """Full sha of `rev` (default HEAD) in the checkout; the demo measures that commit."""
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True, text=True, check=False,
    )
    sha = done.stdout.strip()
    if done.returncode != 0 or len(sha) != 40:
        raise DemoError(
            f"{rev!r} is not a commit of the git checkout {root} "
            f"({done.stderr.strip() or 'git rev-parse found nothing'}); the demo measures a "
            "commit of this checkout (default HEAD)"
        )
    return sha


def git_commit_info(root: Path, sha: str) -> CommitInfo:
    """Author, date, message and parents of `sha`, from git (the dashboard shows them)."""
    from basketbench.catalog.commits import CommitInfo

    done = subprocess.run(
        ["git", "-C", str(root), "log", "-1", "--format=%an%x00%ae%x00%aI%x00%P%x00%B", sha],
        capture_output=True, text=True, check=False,
    )
    fields = done.stdout.split("\x00")
    if done.returncode != 0 or len(fields) != 5:
        raise DemoError(f"git log could not describe {sha}: {done.stderr.strip()}")
    author, email, date, parents, message = fields
    return CommitInfo(
        sha=sha, parents=parents.split(), author=author or None, author_email=email or None,
        date=datetime.fromisoformat(date) if date else None, message=message.strip() or None,
    )
