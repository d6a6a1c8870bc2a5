"""The A/B stage: a commit's build measured interleaved against a reference build on the same
machine, in one rzbench process (basketbench.measure.ab), after the run's benchmark.

Reference (side A), first that exists:
- parent: the build of the commit's first parent, when this machine's build cache holds it;
- previous: the nearest first-parent ancestor (up to `lookback` commits back) whose build is
  cached here, i.e. the previous commit of the series this machine measured;
- release: the suite's pinned ROOT release (its wheel's libCore), when already installed here
  (the stage never downloads a release).
No reference: the stage is skipped and the run log says why. A commit whose build is the
parent's (no compression file changed) is still measured, against a copy of the same layer:
its effect must come out as 1, which is checked by the data, not assumed.

Runs asked for explicitly (compare page / API: suite "ab:<reference>") measure the run's
commit against that reference, building either side if needed (stages.py).

The measurement runs in a child process (abchild.py) so the stage's time limit holds: at the
limit the child's process group is killed and the stage is skipped with that reason.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from basketbench.measure.realroot.releases import (
    RootReleaseError,
    is_installed,
    lookup,
    release_dir,
)

from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.layer import LAYER_DIR
from basketbench_workers.pipeline.suites import AbSpec
from basketbench_workers.procs import _die_with_parent

AB_SUITE_PREFIX = "ab:"


@dataclass(frozen=True)
class Reference:
    """Side A: what kind of reference, its commit (when it is one) and the harness's BUILD
    argument (a build directory holding layer/libbbzip.so, or release:X.YY.ZZ)."""

    kind: str  # parent | previous | release | commit | self
    commit: str | None
    label: str
    build: str


class AbSkipped(Exception):
    """No A/B for this run; the message says why (logged, the run still succeeds)."""


def say_to(log_path: Path) -> Callable[[str], None]:
    def say(message: str) -> None:
        with log_path.open("a") as fh:
            fh.write(message + "\n")
    return say


def installed_release(name: str | None) -> str | None:
    """The release's version when its wheel is installed on this machine."""
    if not name:
        return None
    try:
        release = lookup(name)
    except (RootReleaseError, KeyError, ValueError):
        return None
    return release.version if is_installed(release) else None


def first_parent_ancestors(mirror: Mirror, sha: str, count: int) -> list[str]:
    """`sha`'s first parent and its first-parent ancestors, nearest first (empty for a root
    commit)."""
    if count <= 0:
        return []
    try:
        out = mirror.git("rev-list", "--first-parent", f"--max-count={count}", f"{sha}^")
    except subprocess.CalledProcessError:
        return []  # a root commit has no parent
    return out.split()


def pipeline_reference(
    sha: str,
    spec: AbSpec,
    ancestors: list[str],
    build_dir_of: Callable[[str], Path | None],
    own_release: str | None = None,
) -> Reference:
    """Side A of a pipeline run's A/B (see the module's docstring); AbSkipped when none can
    be had. `build_dir_of(sha)` answers the cached build directory (with its layer) of a
    commit on this machine, never building one."""
    pinned = installed_release(spec.reference_release)
    if own_release is not None:  # a ROOT release measured as a commit: its own libCore
        if pinned is not None and pinned != own_release:
            return Reference("release", None, pinned, f"release:{pinned}")
        raise AbSkipped(f"commit {sha[:12]} is ROOT release {own_release}; the suite's "
                        f"pinned release ({spec.reference_release or 'none'}) is "
                        + ("the same" if pinned == own_release else "not installed here"))
    for i, ancestor in enumerate(ancestors):
        found = build_dir_of(ancestor)
        if found is not None:
            return Reference("parent" if i == 0 else "previous", ancestor, ancestor[:12],
                             str(found))
    if pinned is not None:
        return Reference("release", None, pinned, f"release:{pinned}")
    what = (f"neither its parent nor the {len(ancestors) - 1} commits before it were built"
            if ancestors else "it has no parent commit")
    raise AbSkipped(f"no reference build for {sha[:12]}: {what} on this machine, and "
                    + (f"release {spec.reference_release} is not installed here"
                       if spec.reference_release else "the suite pins no release"))


def distinct_sides(reference: Reference, side_b: str, scratch: Path) -> Reference:
    """When both sides are the same build directory (a commit that changed no compression
    file shares its parent's build), side A gets a copy of the layer: two files, loaded
    separately, as for any two builds."""
    if reference.build.startswith("release:") or side_b.startswith("release:"):
        return reference
    if Path(reference.build).resolve() != Path(side_b).resolve():
        return reference
    copy = scratch / "ab-reference"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(Path(reference.build) / LAYER_DIR, copy / LAYER_DIR)
    return Reference(reference.kind, reference.commit, reference.label, str(copy))


def corpus_argument(names: tuple[str, ...], files: dict[str, Path], scratch: Path) -> Path:
    """The harness's corpus: the one .bbc file, or a folder of links to several."""
    if len(names) == 1:
        return files[names[0]]
    folder = scratch / "ab-corpus"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in names:
        (folder / files[name].name).symlink_to(files[name])
    return folder


def sandbox_readable(a: str, b: str, corpus: Path, rzbench: Path) -> list[str]:
    """What a sandboxed rzbench ab reads: its binary's folder, both layers (a build's folder
    or a release's wheel) and the corpus files (a folder's links resolved)."""
    paths = {rzbench.resolve().parent}
    for side in (a, b):
        if side.startswith("release:"):
            paths.add(release_dir(lookup(side.removeprefix("release:"))))
        elif side != "host":
            paths.add(Path(side).resolve())
    files = sorted(corpus.iterdir()) if corpus.is_dir() else [corpus]
    paths.update(f.resolve().parent for f in files)
    if corpus.is_dir():
        paths.add(corpus)
    return sorted(str(p) for p in paths)


def measure(a: str, b: str, corpus: Path, spec: AbSpec, rzbench: Path, scratch: Path,
            log_path: Path, seconds: float, sandboxed: bool = True) -> dict[str, Any]:
    """The basketbench-ab-v1 document of B against A, measured by abchild.py in a child
    process group killed at `seconds`; AbSkipped with the reason when it fails or overruns.
    `sandboxed`: a build of a commit is among the sides or the rzbench (commit code): the
    child runs rzbench through the worker's sandbox (docs/security.md)."""
    request = scratch / "ab-request.json"
    out = scratch / "ab.json"
    out.unlink(missing_ok=True)
    # The sandbox shows the resolved folders only: a path through a symlink (a worker folder
    # linked from elsewhere, a cache entry recorded by a worker that reached it through
    # another link) would not exist inside it.
    a, b = (side if side == "host" or side.startswith("release:") else str(Path(side).resolve())
            for side in (a, b))
    rzbench = rzbench.resolve()
    request.write_text(json.dumps({
        "a": a, "b": b, "corpus": str(corpus), "settings": list(spec.settings),
        "pairs": spec.pairs, "target_ms": spec.target_ms, "rzbench": str(rzbench),
        "out": str(out), "scratch": str(scratch),
        "sandbox": sandbox_readable(a, b, corpus, rzbench) if sandboxed else None}))
    say = say_to(log_path)
    say(f"ab: B={b} against A={a}, settings {list(spec.settings)}, {spec.pairs} pairs, "
        f"corpus {corpus.name}, limit {seconds:.0f} s")
    return run_child("basketbench_workers.pipeline.abchild", request, out, seconds, log_path,
                     "ab", "the A/B")


def run_child(module: str, request: Path, out: Path, seconds: float, log_path: Path,
              prefix: str, what: str) -> dict[str, Any]:
    """Runs `python -m module request` in a process group of its own, its output appended to
    the run's log, killed at `seconds`; its document (`out`) or AbSkipped with the reason."""
    say = say_to(log_path)
    started = time.monotonic()

    def child_setup() -> None:  # pragma: no cover - runs in the child
        _die_with_parent()
        os.setpgrp()  # its own group: killed with its rzbench at the limit

    with log_path.open("a") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-m", module, str(request)],
            stdout=fh, stderr=subprocess.STDOUT, preexec_fn=child_setup)
        try:
            rc = proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AbSkipped(f"{what} took longer than its limit of {seconds:.0f} s: "
                            "stopped, nothing uploaded") from None
    if rc != 0 or not out.is_file():
        raise AbSkipped(f"{what} measurement failed (exit code {rc}); see the lines above")
    say(f"{prefix}: measured in {time.monotonic() - started:.1f} s")
    return dict(json.loads(out.read_text()))


def summary(doc: dict[str, Any]) -> list[str]:
    """One log line per (dataset, setting, direction): ratio B/A and its interval."""
    lines = []
    for r in doc.get("results", []):
        for direction in ("compress", "decompress"):
            e = r.get(direction) or {}
            if e.get("ratio") is None:
                lines.append(f"ab: {r['dataset']} {r['setting']} {direction}: no undisturbed "
                             f"pair ({e.get('disturbed_pairs')} disturbed)")
                continue
            lines.append(f"ab: {r['dataset']} {r['setting']} {direction}: B/A "
                         f"{e['ratio']:.4f} [{e['ci_low']:.4f}, {e['ci_high']:.4f}], "
                         f"{e['pairs']} pairs, {e['disturbed_pairs']} disturbed")
    lines.append(f"ab: disturbed fraction {doc.get('disturbed_fraction')}, load "
                 f"{(doc.get('load') or {}).get('loadavg_start')} -> "
                 f"{(doc.get('load') or {}).get('loadavg_end')}")
    return lines


def upload_body(doc: dict[str, Any], machine_id: int, commit: str, repository: str | None,
                run_id: int | None, reference: Reference, origin: str,
                codecs: dict[str, Any] | None) -> dict[str, Any]:
    """The POST /ab-runs envelope: where the document belongs (backend ab/schemas.py)."""
    body: dict[str, Any] = {
        "machine_id": machine_id, "commit": commit, "run_id": run_id, "origin": origin,
        "reference": {"kind": reference.kind, "commit": reference.commit,
                      "label": reference.label},
        "document": doc,
    }
    if repository:
        body["repository"] = repository
    if codecs is not None:
        body["codecs"] = codecs
    return body
