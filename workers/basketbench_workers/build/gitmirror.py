"""A persistent bare mirror of the benchmarked repository, and exports of single commits.

Only the profile's directories are exported (git archive): a ROOT checkout has
~100k files, the compression layer a few dozen.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path

from basketbench_workers.procs import Deadline, StageFailed, capture, run_logged


class Mirror:
    def __init__(self, source: str, path: Path) -> None:
        self.source = source
        self.path = path

    def git(self, *args: str, timeout: float = 60) -> str:
        return capture(["git", "--git-dir", str(self.path), *args], timeout=timeout)

    def update(self, log: Path, deadline: Deadline) -> None:
        """Clone on first use, fetch afterwards (fetching an unchanged local repo takes ms)."""
        if not (self.path / "HEAD").exists():
            if self.path.exists():
                shutil.rmtree(self.path)  # a clone interrupted by a killed worker
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".partial")
            shutil.rmtree(tmp, ignore_errors=True)
            run_logged(["git", "clone", "--mirror", "--quiet", self.source, tmp], log, deadline)
            tmp.rename(self.path)
        else:
            run_logged(
                ["git", "--git-dir", str(self.path), "fetch", "--prune", "--quiet", "origin"],
                log,
                deadline,
            )

    def resolve(self, commit: str) -> str:
        try:
            return self.git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}").strip()
        except subprocess.CalledProcessError as exc:
            raise StageFailed(f"commit {commit} is not in {self.source}") from exc

    def has_path(self, commit: str, path: str) -> bool:
        result = subprocess.run(
            ["git", "--git-dir", str(self.path), "cat-file", "-e", f"{commit}:{path}"],
            capture_output=True,
        )
        return result.returncode == 0

    def read_text(self, commit: str, path: str) -> str | None:
        """A file's text at `commit`, or None when the commit has no such file."""
        if not self.has_path(commit, path):
            return None
        return self.git("cat-file", "-p", f"{commit}:{path}")

    def tree_id(self, commit: str, path: str) -> str:
        """Object id of a directory/file at `commit`, or "absent"."""
        try:
            return self.git("rev-parse", "--verify", "--quiet", f"{commit}:{path}").strip()
        except subprocess.CalledProcessError:
            return "absent"

    def export(
        self, commit: str, paths: list[str], dest: Path, log: Path, deadline: Deadline
    ) -> None:
        """Write the files of `paths` at `commit` into `dest` (replaced)."""
        present = [p for p in paths if self.has_path(commit, p)]
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir(parents=True)
        if not present:
            return
        with tempfile.NamedTemporaryFile(suffix=".tar") as tar:
            run_logged(
                [
                    "git",
                    "--git-dir",
                    str(self.path),
                    "archive",
                    "--format=tar",
                    "-o",
                    tar.name,
                    commit,
                    "--",
                    *present,
                ],
                log,
                deadline,
            )
            with tarfile.open(tar.name) as archive:
                _extract(archive, dest)


def _extract(archive: tarfile.TarFile, dest: Path) -> None:
    """Extract with the "data" filter; Pythons without extraction filters (Debian 12's
    3.11.2, found by `make compose-e2e`) get the same refusals done here."""
    if hasattr(tarfile, "data_filter"):
        archive.extractall(dest, filter="data")
        return
    root = dest.resolve()
    for member in archive.getmembers():
        target = (root / member.name).resolve()
        if not target.is_relative_to(root) or not (member.isfile() or member.isdir()
                                                     or member.issym()):
            raise StageFailed(f"git archive member refused: {member.name}")
        if member.issym() and not (target.parent / member.linkname).resolve().is_relative_to(root):
            raise StageFailed(f"git archive link leaves the tree: {member.name}")
    archive.extractall(dest)  # noqa: S202 - every member was checked above
