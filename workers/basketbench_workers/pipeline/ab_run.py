"""The A/B stage inside a run (abstage.py has the pieces):

- `pipeline_ab`: after a run's benchmark, its commit against the reference abstage picks
  (parent / previous / pinned release); skipped with a logged reason when there is none, and
  never fails the run (its results are already stored);
- `requested_ab`: a run whose suite is "ab:<reference>" (compare page / API) measures only the
  A/B of its commit against that reference, building either side if this machine has no build,
  and fails when the A/B cannot be measured (it is the run's whole purpose).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from basketbench_workers.agent.api_client import ApiClient, ApiError
from basketbench_workers.agent.reporting import RunReporter
from basketbench_workers.build.cache import BuildResult
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.releases import release_by_tag
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.abstage import (
    AbSkipped,
    Reference,
    corpus_argument,
    distinct_sides,
    first_parent_ancestors,
    installed_release,
    measure,
    pipeline_reference,
    say_to,
    summary,
    upload_body,
)
from basketbench_workers.pipeline.corpora import corpus_file
from basketbench_workers.pipeline.suites import AbSpec, Suite
from basketbench_workers.procs import StageFailed

RELEASE_PREFIX = "release:"


class Heartbeat(Protocol):
    def beat(self) -> None: ...
    def check(self) -> None: ...


@dataclass
class AbContext:
    """What the A/B needs of the run that is executing it (stages.py builds it)."""

    run: dict[str, Any]
    api: ApiClient
    settings: WorkerSettings
    suite: Suite
    sha: str
    release: str | None  # the commit is this ROOT release (measured with its own libCore)
    mirror: Mirror | None
    build: BuildResult
    machine_id: int
    workdir: Path
    log_path: Path
    build_dir_of: Callable[[str], Path | None]  # a commit's cached build dir, never building
    build_commit: Callable[[str], BuildResult]  # a commit's build, built when missing
    # the run's rzbench or a side holds a commit's code: measured through the sandbox
    sandboxed: bool = True

    @property
    def side_b(self) -> str | None:
        if self.release is not None:
            return f"{RELEASE_PREFIX}{self.release}"
        entry = self.build.entry
        return str(entry) if entry is not None else None

    @property
    def seconds(self) -> float:
        spec = self.suite.ab
        limit = self.settings.stage_timeout("ab")
        return min(spec.timeout_seconds, limit) if spec is not None else limit


def pipeline_ab(ctx: AbContext, corpus_files: dict[str, Path], document: Path,
                beat: Heartbeat) -> None:
    spec = ctx.suite.ab
    assert spec is not None
    say = say_to(ctx.log_path)
    try:
        side_b = ctx.side_b
        if side_b is None:
            raise AbSkipped("this commit's build has no loadable compression layer (its "
                            "profile compiles none, or linking it failed: see above)")
        ancestors = (first_parent_ancestors(ctx.mirror, ctx.sha, spec.lookback)
                     if ctx.mirror is not None and ctx.release is None else [])
        reference = (_parent_release(ctx) if ctx.release is not None else None) or \
            pipeline_reference(ctx.sha, spec, ancestors, ctx.build_dir_of,
                               own_release=ctx.release)
        say(f"ab: reference {reference.kind} {reference.label} ({reference.build})")
        doc = _measure(ctx, spec, reference, side_b, corpus_files)
    except AbSkipped as exc:
        say(f"ab: skipped: {exc}")
        return
    beat.beat()  # a run requeued meanwhile belongs to its new attempt
    beat.check()
    try:
        answer = ctx.api.post_ab_run(upload_body(
            doc, ctx.machine_id, ctx.sha, repository_of(ctx.run), int(ctx.run["id"]), reference,
            "pipeline", codecs_of(document)))
    except ApiError as exc:  # a refused document: the run's results stand, the log says why
        say(f"ab: upload refused: {exc}")
        return
    say(f"ab: uploaded: {json.dumps(answer)}")


def requested_ab(ctx: AbContext, reference_text: str, reporter: RunReporter,
                 beat: Heartbeat) -> str:
    spec = ctx.suite.ab
    if spec is None:
        raise StageFailed(f"suite {ctx.suite.name} has no [ab] table to measure an A/B with")
    reference = _requested_reference(ctx, reference_text)
    side_b = ctx.side_b
    if side_b is None:
        raise StageFailed("this commit's build has no loadable compression layer (its profile "
                          "compiles none, or linking it failed: see the log)")
    reporter.stage("ab", machine_id=ctx.machine_id)
    corpus_files = {c.name: corpus_file(c, ctx.settings.worker_dir / "corpora")
                    for c in ctx.suite.corpora if c.name in spec.corpora}
    try:
        doc = _measure(ctx, spec, reference, side_b, corpus_files)
    except AbSkipped as exc:
        raise StageFailed(str(exc)) from exc
    beat.beat()
    beat.check()
    reporter.stage("upload")
    answer = ctx.api.post_ab_run(upload_body(
        doc, ctx.machine_id, ctx.sha, repository_of(ctx.run), int(ctx.run["id"]), reference,
        "compare", None))
    say_to(ctx.log_path)(f"ab: uploaded: {json.dumps(answer)}")
    reporter.done(build_cache_hit=ctx.build.cache_hit)
    return "done"


def _parent_release(ctx: AbContext) -> Reference | None:
    """A tagged ROOT release whose first parent is another tagged release (a history of
    releases, as `basketbench replay` writes): that release's libCore, as the parent's
    build, when its wheel is installed here. None otherwise."""
    if ctx.mirror is None:
        return None
    parents = first_parent_ancestors(ctx.mirror, ctx.sha, 1)
    release = release_by_tag(ctx.mirror, parents[0]) if parents else None
    if release is None or release.version == ctx.release \
            or installed_release(release.version) is None:
        return None
    return Reference("parent", parents[0], f"{parents[0][:12]} (ROOT {release.version})",
                     f"{RELEASE_PREFIX}{release.version}")


def _requested_reference(ctx: AbContext, text: str) -> Reference:
    if text.startswith(RELEASE_PREFIX):
        version = text[len(RELEASE_PREFIX):]
        return Reference("release", None, version, text)
    if ctx.mirror is None:
        raise StageFailed(f"commit {ctx.sha[:12]} is a ROOT release measured by its id: no "
                          f"repository to build the reference {text} from")
    reference_sha = ctx.mirror.resolve(text)
    tagged = release_by_tag(ctx.mirror, reference_sha)
    if tagged is not None and reference_sha != ctx.sha:  # a tagged release: its libCore
        if installed_release(tagged.version) is None:
            raise StageFailed(f"the reference {reference_sha[:12]} is ROOT {tagged.version}, "
                              "whose wheel is not installed on this machine")
        return Reference("commit", reference_sha, f"{reference_sha[:12]} (ROOT "
                         f"{tagged.version})", f"{RELEASE_PREFIX}{tagged.version}")
    build = ctx.build_commit(reference_sha)
    if build.entry is None:
        raise StageFailed(f"the reference {reference_sha[:12]}'s build has no loadable layer")
    kind = "self" if reference_sha == ctx.sha else "commit"
    return Reference(kind, reference_sha, reference_sha[:12], str(build.entry))


def _measure(ctx: AbContext, spec: AbSpec, reference: Reference, side_b: str,
             corpus_files: dict[str, Path]) -> dict[str, Any]:
    reference = distinct_sides(reference, side_b, ctx.workdir)
    corpus = corpus_argument(spec.corpora, corpus_files, ctx.workdir)
    doc = measure(reference.build, side_b, corpus, spec, ctx.build.rzbench, ctx.workdir,
                  ctx.log_path, ctx.seconds, ctx.sandboxed)
    say = say_to(ctx.log_path)
    for line in summary(doc):
        say(line)
    return doc


def repository_of(run: dict[str, Any]) -> str | None:
    repo = run.get("repository")
    if isinstance(repo, dict):
        repo = repo.get("name")
    return str(repo) if repo else None


def codecs_of(document: Path) -> dict[str, Any] | None:
    """The codec set the run's results were filed under (so A/B and results share it)."""
    try:
        codecs = json.loads(document.read_text()).get("codecs")
    except (OSError, ValueError):
        return None
    if not isinstance(codecs, dict) or not codecs.get("set"):
        return None
    return {"set": str(codecs["set"]), "root_version": codecs.get("root_version"),
            "libraries": {str(k): str(v) for k, v in (codecs.get("libraries") or {}).items()}}
