"""The replay's git history in ROOT's layout: one commit per release, dated by the release.

Each source release commits its sdist's compression paths (sources.COMPRESSION_PATHS) as
the sdist ships them; each wheel release (6.38.00, 6.40.00) commits the compression headers
its wheel ships (RZip.h, Compression.h, RVersion.hxx) and is tagged as ROOT tags it
(v6-40-00), so the worker measures it with that release's own libCore. The repository
lives under the replay's cache, never in this project. Commits are deterministic (fixed
author, release dates), so the same releases give the same shas on every machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from basketbench.measure.realroot.releases import Release

# The paths whose git tree ids the replay reports per release (what changed in the sources).
TRACKED_PATHS = ("core/zip", "core/lz4", "core/lzma", "core/zstd", "builtins/zlib",
                 "builtins/lz4", "builtins/zstd", "builtins/xz")
AUTHOR = ("ROOT release replay", "replay@basketbench.invalid")
# Headers a release wheel ships, and where ROOT's tree has them.
WHEEL_HEADERS = {
    "include/RZip.h": "core/zip/inc/RZip.h",
    "include/Compression.h": "core/zip/inc/Compression.h",
    "include/ROOT/RVersion.hxx": "core/foundation/inc/ROOT/RVersion.hxx",
}


@dataclass(frozen=True)
class ReplayRelease:
    """One release of the history: its tree (sdist) or its wheel (release path)."""

    name: str  # "6.18.00"
    date: datetime
    origin: str  # "cppyy-cling 6.18.0.0 sdist" / "PyPI root 0.1a12 wheel"
    tree: Path | None = None  # an sdist's compression paths
    wheel: Release | None = None  # a wheel release, measured with its own libCore

    @property
    def tag(self) -> str:
        return "v" + self.name.replace(".", "-")


@dataclass
class Commit:
    release: ReplayRelease
    sha: str
    parent: str | None
    trees: dict[str, str] = field(default_factory=dict)  # path -> tree id or "absent"
    files: int = 0


def git(repo: Path, *args: str, env: dict[str, str] | None = None, stdin: str | None = None,
        cwd: Path | None = None) -> str:
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True,
                          text=True, env=env, input=stdin, check=False, cwd=cwd)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def build_history(repo: Path, releases: list[ReplayRelease], wheel_prefix: dict[str, Path]
                  ) -> list[Commit]:
    """(Re)write `repo`'s branch master as one commit per release, oldest first, and tag the
    wheel releases; returns the commits. `wheel_prefix` maps a wheel release to its
    installed prefix (include/ holds the headers it ships)."""
    if not (repo / "HEAD").is_file():
        repo.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "--bare", "--quiet", "-b", "master", str(repo)],
                       check=True)
    commits: list[Commit] = []
    parent: str | None = None
    for release in releases:
        with tempfile.TemporaryDirectory(prefix="replay-tree-") as tmp:
            tree = Path(tmp)
            if release.tree is not None:
                shutil.copytree(release.tree, tree, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns(".complete"))
            else:
                prefix = wheel_prefix[release.name]
                for source, target in WHEEL_HEADERS.items():
                    if (prefix / source).is_file():
                        (tree / target).parent.mkdir(parents=True, exist_ok=True)
                        shutil.copy2(prefix / source, tree / target)
            sha = _commit(repo, tree, release, parent)
        commit = Commit(release, sha, parent)
        commit.trees = {p: tree_id(repo, sha, p) for p in TRACKED_PATHS}
        commit.files = int(git(repo, "ls-tree", "-r", "--name-only", sha).count("\n") + 1)
        if release.wheel is not None:
            git(repo, "tag", "-f", release.tag, sha)
        commits.append(commit)
        parent = sha
    if parent is not None:
        git(repo, "update-ref", "refs/heads/master", parent)
    return commits


def _commit(repo: Path, tree: Path, release: ReplayRelease, parent: str | None) -> str:
    stamp = release.date.strftime("%Y-%m-%dT%H:%M:%S%z")
    env = {**os.environ, "GIT_INDEX_FILE": str(tree.parent / f"{tree.name}.index"),
           "GIT_WORK_TREE": str(tree),
           "GIT_AUTHOR_NAME": AUTHOR[0], "GIT_AUTHOR_EMAIL": AUTHOR[1],
           "GIT_COMMITTER_NAME": AUTHOR[0], "GIT_COMMITTER_EMAIL": AUTHOR[1],
           "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    try:
        git(repo, "add", "-A", ".", env=env, cwd=tree)
        tree_sha = git(repo, "write-tree", env=env)
    finally:
        Path(env["GIT_INDEX_FILE"]).unlink(missing_ok=True)
    message = (f"ROOT {release.name}: compression sources of the {release.origin}\n\n"
               "Replayed by `basketbench replay` (docs/replay.md).\n")
    args = ["commit-tree", tree_sha, *(["-p", parent] if parent else [])]
    return git(repo, *args, env=env, stdin=message)


def tree_id(repo: Path, sha: str, path: str) -> str:
    done = subprocess.run(["git", "--git-dir", str(repo), "rev-parse", "--verify", "--quiet",
                           f"{sha}:{path}"], capture_output=True, text=True, check=False)
    return done.stdout.strip() if done.returncode == 0 else "absent"


def changed_paths(commit: Commit, previous: Commit | None) -> list[str]:
    """The tracked paths whose tree differs from the previous release's."""
    if previous is None:
        return [p for p, t in commit.trees.items() if t != "absent"]
    return [p for p in TRACKED_PATHS if commit.trees.get(p) != previous.trees.get(p)]


def diff_summary(repo: Path, commit: Commit) -> str:
    """`git diff --shortstat` of the tracked paths against the previous release."""
    if commit.parent is None:
        return f"{commit.files} files"
    return git(repo, "diff", "--shortstat", commit.parent, commit.sha, "--", *TRACKED_PATHS
               ) or "no change"
