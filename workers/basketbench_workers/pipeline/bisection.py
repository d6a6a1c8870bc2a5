"""The worker's part of a bisection: list the commits between the last measured commit
before a change (good) and the changed commit (bad) from its git mirror. The API then
queues the middle commits as ordinary runs on this tag."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.stages import _mirror_for
from basketbench_workers.procs import Deadline

# One commit per record: sha, parents, author, e-mail, date, subject (NUL separated).
_FORMAT = "%H%x00%P%x00%an%x00%ae%x00%aI%x00%s"


def commits_between(mirror: Mirror, good: str, bad: str) -> list[dict[str, Any]]:
    """Commits after ``good`` up to ``bad`` on bad's first-parent line, oldest first."""
    good, bad = mirror.resolve(good), mirror.resolve(bad)
    out = mirror.git("log", "--first-parent", "--reverse", f"--format={_FORMAT}", f"{good}..{bad}",
                     timeout=120)
    commits = []
    for line in out.splitlines():
        sha, parents, author, email, date, subject = (line.split("\x00") + [""] * 6)[:6]
        if not sha:
            continue
        commits.append({"sha": sha, "parents": parents.split(), "author": author or None,
                        "author_email": email or None, "date": date or None,
                        "message": subject or None})
    return commits


def list_range(settings: WorkerSettings, good: str, bad: str, log: Path) -> list[dict[str, Any]]:
    mirror = _mirror_for(settings, {})
    log.parent.mkdir(parents=True, exist_ok=True)
    mirror.update(log, Deadline("checkout", settings.stage_timeout("checkout")))
    return commits_between(mirror, good, bad)
