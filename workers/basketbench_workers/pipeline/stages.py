"""One benchmark run, stage by stage: checkout -> build (cached) -> benchmark -> upload.

This is the task's logic; the Celery task (tasks/bench.py) and the embedded
runner (embedded.py) are thin shells around `execute_run`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from basketbench.measure.realroot.releases import Release
from basketbench.measure.realroot.releases import available as available_releases
from basketbench.measure.rzbench import noise
from basketbench.measure.rzbench.counting import CountingError, record_valgrind, run_counted
from basketbench.measure.rzbench.runner import run_sizes

from basketbench_workers.agent.api_client import ApiClient, ApiError, TransientApiError
from basketbench_workers.agent.attempts import AttemptCounter
from basketbench_workers.agent.redact import worker_redactor
from basketbench_workers.agent.registration import ensure_registered, load_state, state_file
from basketbench_workers.agent.reporting import TERMINAL_STATUSES, RunReporter
from basketbench_workers.build.cache import BuildCache, BuildResult
from basketbench_workers.build.cachekey import build_inputs, harness_path_skipped, harness_snapshot
from basketbench_workers.build.codecs import build_codec_set
from basketbench_workers.build.codecsets import (
    CodecSet,
    CodecSetError,
    builtin_pins,
    choose_codec_set,
    with_pins,
)
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.profiles import (
    Profile,
    ProfileError,
    choose_profile,
    load_profiles,
    with_planted_work,
)
from basketbench_workers.build.releases import release_build, release_by_id, release_by_tag
from basketbench_workers.build.toolchain import detect_toolchain
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.ab_run import AbContext, pipeline_ab, requested_ab
from basketbench_workers.pipeline.abstage import AB_SUITE_PREFIX
from basketbench_workers.pipeline.advise import run_advise
from basketbench_workers.pipeline.arenastage import pipeline_arena
from basketbench_workers.pipeline.corpora import corpus_file
from basketbench_workers.pipeline.headroomstage import pipeline_headroom
from basketbench_workers.pipeline.suites import IoSpec, Suite, SuiteError, get_suite
from basketbench_workers.procs import Deadline, StageFailed, run_logged, tail
from basketbench_workers.sandbox import Launcher, Sandbox

log = logging.getLogger(__name__)

# Runs of this suite advise on a file of the data root (advise_run.py), no commit built.
ADVISE_SUITE = "advise"
_PROGRESS = re.compile(r"^progress\s+(\d+)\s+(\d+)\s*$")


@dataclass
class WorkerIdentity:
    machine_name: str
    tag: str


def _sha(run: dict[str, Any]) -> str:
    commit = run.get("commit")
    if isinstance(commit, dict):
        commit = commit.get("sha")
    if not isinstance(commit, str) or not commit:
        raise StageFailed(f"run {run.get('id')} names no commit")
    return commit


def _repository_name(run: dict[str, Any]) -> str:
    repo = run.get("repository")
    if isinstance(repo, dict):
        repo = repo.get("name") or repo.get("url")
    return str(repo or "")


def _mirror_for(settings: WorkerSettings, run: dict[str, Any]) -> Mirror:
    source = settings.root_repo
    if not source:
        raise StageFailed("no repository configured for this worker (set BASKETBENCH_ROOT_REPO)")
    name = hashlib.sha256(source.encode()).hexdigest()[:12]
    return Mirror(source, settings.worker_dir / "mirrors" / f"{name}.git")


def run_dir(worker_dir: Path, api_url: str, run_id: int) -> Path:
    """Log and document of one run; run ids are per API, so the API is part of the path."""
    api_key = hashlib.sha256(api_url.encode()).hexdigest()[:12]
    return worker_dir / "runs" / api_key / str(run_id)


def harness(settings: WorkerSettings) -> tuple[Path, str]:
    """The worker's frozen copy of the harness sources and their hash."""
    return harness_snapshot(settings.harness_source, settings.worker_dir / "harness-src")


def build_cache(settings: WorkerSettings) -> BuildCache:
    return BuildCache(
        settings.worker_dir / "builds",
        harness(settings)[0],
        detect_toolchain(),
        settings.build_jobs,
        Sandbox.for_settings(settings),
    )


def default_rzbench(settings: WorkerSettings, log_path: Path) -> BuildResult:
    """rzbench with its own rootcompat backend (fingerprints; trees without ROOT's layout)."""
    profiles = load_profiles(settings.profiles_dir)
    profile = profiles["rootcompat"]
    inputs = build_inputs(profile, lambda _p: "n/a", detect_toolchain(), harness(settings)[1])
    deadline = Deadline("build", settings.stage_timeout("build"))
    return build_cache(settings).get_or_build(profile, inputs, None, log_path, deadline, {})


def fresh_make_build(source: Path) -> Path | None:
    """`make harness-build`'s rzbench, if it is a Release rootcompat build newer than every
    harness source file (so it was built from them), else None."""
    build = source / "build"
    binary = build / "rzbench"
    cache = build / "CMakeCache.txt"
    if not binary.is_file() or not cache.is_file():
        return None
    text = cache.read_text(errors="replace")
    wanted = ("CMAKE_BUILD_TYPE:STRING=Release", "RZBENCH_BACKEND:STRING=rootcompat")
    if not all(line in text.splitlines() for line in wanted):
        return None
    built = binary.stat().st_mtime
    for path in source.rglob("*"):
        if path.is_file() and not harness_path_skipped(path.relative_to(source)) \
                and path.stat().st_mtime > built:
            return None
    return binary


def adopt_make_build(settings: WorkerSettings, log_path: Path) -> bool:
    """Seed the build cache with the rzbench `make` just built (embedded mode: the demo),
    instead of compiling the same sources again; True when it was taken."""
    binary = fresh_make_build(settings.harness_source)
    if binary is None:
        return False
    profile = load_profiles(settings.profiles_dir)["rootcompat"]
    inputs = build_inputs(profile, lambda _p: "n/a", detect_toolchain(), harness(settings)[1])
    return build_cache(settings).adopt(profile, inputs, binary, log_path) is not None


def execute_run(
    run_id: int,
    api: ApiClient,
    settings: WorkerSettings,
    identity: WorkerIdentity,
    attempts: AttemptCounter,
    generation: int | None = None,
) -> str:
    """Run `run_id` to done/failed; returns what happened ("done", "failed", "skipped", ...).

    With a `generation` (a message from the API's outbox) the run is claimed first: a
    stale message (the run was requeued, or another worker has it) is dropped.

    TransientApiError escapes (the caller retries later); everything else ends as a
    failed run with its log tail.
    """
    try:
        run = api.get_run(run_id)
    except ApiError as exc:
        if exc.status == 404:
            log.warning("run %s does not exist (deleted?); nothing to do", run_id)
            return "missing"
        raise
    if generation is None and run.get("status") in TERMINAL_STATUSES:
        log.info("run %s is already %s; nothing to do", run_id, run.get("status"))
        return "skipped"

    reporter = RunReporter(api, run_id,
                           redact=worker_redactor(settings.data_root, settings.worker_dir))
    state = state_file(settings.worker_dir, settings.api_url, identity.tag)
    known = load_state(state)
    if generation is not None:
        try:
            run = api.claim_run(run_id, generation, int(known["machine_id"]) if known else None)
        except ApiError as exc:
            if exc.status in (404, 409):
                log.info("run %s: message for generation %s dropped: %s", run_id, generation,
                         exc)
                return "stale"
            raise
        attempt = int(run.get("attempts") or 1)
    else:
        attempt = max(attempts.next(run_id), int(run.get("attempts") or 0))
    if attempt > settings.max_attempts:
        reporter.failed(
            f"gave up after {settings.max_attempts} attempts (its worker was lost each time)"
        )
        return "gave_up"

    workdir = run_dir(settings.worker_dir, settings.api_url, run_id)
    workdir.mkdir(parents=True, exist_ok=True)
    log_path = workdir / "run.log"
    with log_path.open("a") as fh:
        fh.write(
            f"=== run {run_id} attempt {attempt} on {identity.machine_name} ({identity.tag})\n"
        )
    document = workdir / "result.json"

    reporter.start(int(known["machine_id"]) if known else None, attempt)
    beat = RunHeartbeat(api, run_id, settings.heartbeat_seconds, attempt)
    beat.start()
    try:
        if int(run.get("result_count") or 0) > 0:
            # An earlier attempt uploaded and died before saying so. Its document, if this
            # machine still has it, goes up again byte-for-byte (the API answers duplicate).
            reporter.stage("upload")
            if document.is_file():
                api.post_results(run_id, document.read_bytes())
            reporter.done()
            return "done"
        document.unlink(missing_ok=True)
        outcome = _stages(
            run, api, settings, identity, reporter, workdir, log_path, document, state, beat
        )
    except RunLost as exc:
        log.warning("run %s: %s; not uploading", run_id, exc)
        return "lost"
    except (StageFailed, ProfileError, SuiteError) as exc:  # CodecSetError is a StageFailed
        log_tail = getattr(exc, "log_tail", "") or tail(log_path)
        reporter.failed(str(exc), log_tail)
        return "failed"
    except (TransientApiError, ConnectionError):
        raise  # the task retries later; the run keeps its state
    except Exception as exc:  # a bug or an environment problem: never leave the run "running"
        # The traceback stays in this worker's own log; the run (public) gets one line.
        log.exception("run %s failed unexpectedly", run_id)
        first = (str(exc).strip().splitlines() or [""])[0][:500]
        reporter.failed(f"internal error ({type(exc).__name__}): {first}", tail(log_path))
        return "failed"
    finally:
        beat.stop()
    return outcome


class RunLost(Exception):
    """The API requeued the run (its heartbeat was missing too long): another attempt owns
    it now, so this one must not upload or report."""


class RunHeartbeat(threading.Thread):
    """While this process runs the run, tell the API every `interval` seconds (an empty
    PATCH refreshes the run's heartbeat): the API's reaper requeues a run whose heartbeat
    stopped, i.e. whose worker was killed. If the answer shows the run was requeued
    meanwhile (e.g. the API was unreachable for longer than its heartbeat timeout), `lost`
    is set and this attempt stops before it uploads."""

    def __init__(self, api: ApiClient, run_id: int, interval: float, attempt: int) -> None:
        super().__init__(name=f"run-heartbeat-{run_id}", daemon=True)
        self.api, self.run_id, self.interval, self.attempt = api, run_id, interval, attempt
        self.lost = False
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.wait(self.interval):
            self.beat()

    def beat(self) -> None:
        try:
            answer = self.api.patch_run(self.run_id)
        except (TransientApiError, ApiError) as exc:
            log.warning("run %s: heartbeat lost: %s", self.run_id, exc)
            return
        if answer.get("status") != "running" or int(answer.get("attempts") or 0) != self.attempt:
            log.warning("run %s: requeued by the API (now %s, attempt %s); attempt %s stops",
                        self.run_id, answer.get("status"), answer.get("attempts"), self.attempt)
            self.lost = True
            self.stop()

    def check(self) -> None:
        if self.lost:
            raise RunLost(f"attempt {self.attempt} was requeued by the API")

    def stop(self) -> None:
        self._stop_event.set()


def _stages(
    run: dict[str, Any],
    api: ApiClient,
    settings: WorkerSettings,
    identity: WorkerIdentity,
    reporter: RunReporter,
    workdir: Path,
    log_path: Path,
    document: Path,
    state: Path,
    beat: RunHeartbeat,
) -> str:
    run_id = int(run["id"])
    if run.get("suite") == ADVISE_SUITE:
        def rzbench() -> Path:
            reporter.stage("build")
            build = default_rzbench(settings, log_path)
            machine_id = ensure_registered(api, identity.machine_name, identity.tag,
                                           build.rzbench, state)
            reporter.patch(machine_id=machine_id, build_cache_hit=build.cache_hit)
            return build.rzbench

        def before_upload() -> None:
            beat.beat()  # a run requeued meanwhile belongs to its new attempt
            beat.check()

        run_advise(run_id, api, settings, reporter, rzbench, log_path, before_upload)
        reporter.done()
        return "done"
    suite_name = str(run.get("suite") or "quick")
    requested_reference = None
    if suite_name.startswith(AB_SUITE_PREFIX):  # an A/B asked for: "ab:<reference>"
        requested_reference = suite_name[len(AB_SUITE_PREFIX):].strip()
        suite_name = "ab"
        if not requested_reference:
            raise StageFailed("an A/B run names its reference: suite ab:<40-hex sha> or "
                              "ab:release:X.YY.ZZ")
    elif suite_name == "ab":
        raise StageFailed("an A/B run names its reference: suite ab:<40-hex sha> or "
                          "ab:release:X.YY.ZZ")
    suite = get_suite(suite_name, settings.suites_dir)

    # checkout (a ROOT release measured by its stable id needs no repository)
    deadline = Deadline("checkout", settings.stage_timeout("checkout"))
    profiles = load_profiles(settings.profiles_dir)
    release = release_by_id(_sha(run))
    ab_mirror: Mirror | None = None  # a release measured by its stable id has no repository
    if release is not None:
        sha = _sha(run).lower()
        profile = profiles["root-release"]
    else:
        mirror = ab_mirror = _mirror_for(settings, run)
        mirror.update(log_path, deadline)
        sha = mirror.resolve(_sha(run))
        if settings.profile in ("auto", "root-release"):
            release = release_by_tag(mirror, sha)
        if release is not None:
            profile = profiles["root-release"]
        else:
            profile = choose_profile(profiles, settings.profile, lambda p: mirror.has_path(sha, p))
            if profile.kind == "root-release":
                raise StageFailed(
                    f"commit {sha} is not a ROOT release (no tag such as v6-40-00 of a known "
                    f"release points at it); known releases: {available_releases()}"
                )
    codec_set = None if release is not None else _codec_set(
        run, suite.codecs, settings, profile, mirror, sha)
    with log_path.open("a") as fh:
        fh.write(
            f"commit {sha}; build profile {profile.name} v{profile.version} ({profile.supports})\n"
        )
        if codec_set is not None:
            fh.write(f"codec set {codec_set.name}: "
                     + (", ".join(f"{p.library} {p.version}" for p in codec_set.pins)
                        or "host libraries") + "\n")
        if release is not None:
            fh.write(f"ROOT release {release.version} (PyPI root=={release.wheel})\n")

    # build (cached by inputs)
    reporter.stage("build")
    deadline = Deadline("build", settings.stage_timeout("build"))
    if release is not None:
        build = release_build(release, settings, log_path)
    else:
        assert codec_set is not None
        if profile.kind == "root":
            Sandbox.for_settings(settings).check()  # none here: refused, with the reason
        build = _build(profile, mirror, sha, settings, log_path, deadline, codec_set)
    # A commit's rzbench holds the commit's code (run at every start): it runs sandboxed.
    # A release's is built from PyPI's wheel, not from what a webhook named; a rootcompat
    # profile's holds only rzbench's own backend.
    sandbox = (Sandbox.for_settings(settings)
               if release is None and profile.kind == "root" else None)
    # Results are stored under the fingerprint of the rzbench that measures them.
    machine_id = ensure_registered(api, identity.machine_name, identity.tag, build.rzbench, state,
                                   sandbox)
    ab_context = AbContext(
        run=run, api=api, settings=settings, suite=suite, sha=sha,
        release=release.version if release is not None else None,
        mirror=ab_mirror, build=build, machine_id=machine_id,
        workdir=workdir, log_path=log_path,
        build_dir_of=lambda other: _cached_build_dir(run, suite, settings, profiles, profile,
                                                     ab_mirror, other, log_path),
        build_commit=lambda other: _build_other(run, suite, settings, profiles, profile,
                                                ab_mirror, other, log_path),
        sandboxed=sandbox is not None,
    )
    if requested_reference is not None:
        reporter.patch(machine_id=machine_id, build_cache_hit=build.cache_hit)
        return requested_ab(ab_context, requested_reference, reporter, beat)

    # benchmark
    reporter.stage("benchmark", build_cache_hit=build.cache_hit, machine_id=machine_id)
    deadline = Deadline("benchmark", settings.stage_timeout("benchmark"))
    corpora = [corpus_file(spec, settings.worker_dir / "corpora") for spec in suite.corpora]
    context = {
        "commit": sha,
        "repository": _repository_name(run),
        "machine": identity.machine_name,
        "tag": identity.tag,
        "run_id": run_id,
        "suite": suite.name,
    }
    partial = document.with_suffix(".partial")
    partial.unlink(missing_ok=True)
    # What a sandboxed rzbench writes: a fresh dir of its own, never the run's log or document.
    out = workdir / "sandbox-out"
    shutil.rmtree(out, ignore_errors=True)
    written = out / "result.json" if sandbox is not None else partial
    cmd: list[str] = [str(build.rzbench), "bench", *suite.rzbench_args(corpora)]
    cmd += ["--json", str(written), "--quiet", "--progress", "--context-json", json.dumps(context)]
    if profile.kind == "root":
        cmd += ["--root-commit", sha]

    def on_line(line: str) -> None:
        match = _PROGRESS.match(line)
        if match and int(match.group(2)) > 0:
            reporter.progress(int(match.group(1)) / int(match.group(2)))

    launcher: Launcher | None = None
    load_start = noise.snapshot()
    if sandbox is None:
        rc = run_logged(cmd, log_path, deadline, cwd=workdir, on_stderr_line=on_line,
                        ok_codes=(0, 1))
    else:
        limits = sandbox.limits(deadline.seconds)
        readable = [build.rzbench.parent, *corpora]
        launcher = sandbox.launcher(readable, limits)
        with log_path.open("a") as fh:
            fh.write(sandbox.describe(limits))
        rc = sandbox.run_logged(cmd, log_path, deadline, out, readable, [out], limits,
                                on_stderr_line=on_line, ok_codes=(0, 1))
        if written.is_file():
            sandbox.reclaim(out)
            written.replace(partial)
    load_end = noise.snapshot()
    if not partial.is_file():
        raise StageFailed("rzbench wrote no result document", tail(log_path))
    if codec_set is not None:  # a release's rzbench names its own set (root-<version>)
        record_codecs(partial, codec_set)
    record_build(partial, profile, harness(settings)[1])
    if suite.io is not None:
        if release is not None:
            reporter.stage("io")  # its own stage and progress: minutes of PyROOT processes
            reporter.progress(0.0, force=True)
        run_io_stage(suite.io, release, build.rzbench, partial, context, workdir, log_path,
                     progress=reporter.progress)
    _add_load_and_counts(partial, suite.count_args(dict(zip(
        (c.name for c in suite.corpora), corpora, strict=True))), build.rzbench,
        noise.summarize(load_start, load_end), log_path, deadline, launcher)
    partial.replace(document)

    # The A/B goes up before the results: detection screens a commit's speeds when its
    # results land, and takes the A/B's effects first for the series it covers only if the
    # A/B is there by then (an A/B landing later finds those series already screened on the
    # history, on a machine quiet enough for that). The A/B never fails the run.
    if suite.ab is not None:
        reporter.stage("ab")
        pipeline_ab(ab_context, dict(zip((c.name for c in suite.corpora), corpora, strict=True)),
                    document, beat)
    # upload: one document, at the end, so a killed run never leaves half a result set
    beat.beat()  # one fresh look: a run requeued meanwhile belongs to its new attempt
    beat.check()
    reporter.stage("upload")
    answer = api.post_results(run_id, document.read_bytes())
    with log_path.open("a") as fh:
        fh.write(f"uploaded: {json.dumps(answer)}\n")
    upload_branch_sizes(api, build.rzbench, suite, corpora, sha, document, log_path, launcher)
    if suite.arena is not None:
        reporter.stage("arena")
        pipeline_arena(ab_context, suite.arena, beat)
    if suite.headroom is not None:
        reporter.stage("headroom")
        pipeline_headroom(ab_context, dict(zip((c.name for c in suite.corpora), corpora,
                                               strict=True)), document, beat)
    if rc == 1:
        reporter.failed(
            "some results failed (codec error or round-trip mismatch); stored with their error",
            tail(log_path),
        )
        return "failed"
    reporter.done(build_cache_hit=build.cache_hit)
    _cleanup(workdir)
    return "done"


def run_io_stage(spec: IoSpec, release: Release | None, rzbench: Path, document: Path,
                 context: dict[str, Any], workdir: Path, log_path: Path,
                 progress: Callable[[float], None] | None = None) -> None:
    """The suite's end-to-end ROOT I/O (basketbench run --io), merged into the run's one
    document. Only a ROOT release has PyROOT here: other builds log why it is skipped.
    `progress` gets the share of the writes and reads measured (each a PyROOT process of
    seconds to a minute: the run's bar moves with them)."""
    from basketbench.measure.realroot.io_bench import IoOptions, run_io
    from basketbench.measure.rootio import default_root_files

    threads = len(spec.threads) or (os.cpu_count() or 1)
    expected = len(spec.files) * len(spec.forms) * len(spec.settings) * threads * (
        1 + len(spec.caches) * len(spec.page_caches))
    done = 0

    def say(message: str) -> None:
        nonlocal done
        with log_path.open("a") as fh:
            fh.write(message + "\n")
        if progress is not None and (": write, " in message or ": read, " in message):
            done += 1
            progress(min(0.99, done / max(1, expected)))

    if release is None:
        say("io: skipped, end-to-end ROOT I/O needs a ROOT release (its wheel's PyROOT); this "
            "run measures a source build of the compression layer")
        return
    known = {p.name: p for p in default_root_files()}
    missing = [f for f in spec.files if f not in known]
    if missing:
        raise StageFailed(f"io: real ROOT file(s) not found: {missing}")
    doc = json.loads(document.read_text())
    started = time.monotonic()
    for name in spec.files:
        out = workdir / f"io-{name}.json"
        options = IoOptions(
            file=known[name], settings=list(spec.settings), release=release.version,
            forms=list(spec.forms), caches=list(spec.caches),
            page_caches=list(spec.page_caches), samples=spec.min_samples,
            target_ms=spec.target_ms, context=context)
        if spec.threads:
            options.threads = list(spec.threads)
        try:
            io_doc = run_io(options, out, binary=rzbench, say=say)
        except Exception as exc:  # a failed I/O stage fails the run with ROOT's message
            raise StageFailed(f"io: {name}: {exc}", tail(log_path)) from exc
        names = {d["name"] for d in doc["datasets"]}
        doc["datasets"] += [d for d in io_doc["datasets"] if d["name"] not in names]
        doc["results"] += io_doc["results"]
        doc["parameters"]["io"] = io_doc["parameters"]["io"]
    say(f"io: {len(spec.files)} file(s) in {time.monotonic() - started:.0f} s")
    document.write_text(json.dumps(doc))


def _add_load_and_counts(partial: Path, count_args: list[str] | None, rzbench: Path,
                         load: dict[str, Any], log_path: Path, deadline: Deadline,
                         launcher: Launcher | None = None) -> None:
    """The machine's load around the timed run, the valgrind version, and (when the suite asks,
    `[instructions]`) the counts of its configurations under callgrind, into the document."""
    doc = json.loads(partial.read_text())
    doc["load"] = load
    record_valgrind(doc)
    if count_args is not None:
        with log_path.open("a") as fh:
            fh.write(f"counting under valgrind: rzbench bench {' '.join(count_args)} --count\n")
        started = time.monotonic()
        try:
            run_counted(rzbench, count_args, doc, timeout=deadline.remaining(),
                        launcher=launcher)
        except (CountingError, OSError, subprocess.TimeoutExpired) as exc:
            raise StageFailed(f"instruction counting failed: {exc}", tail(log_path)) from exc
        with log_path.open("a") as fh:
            fh.write(f"counted in {time.monotonic() - started:.1f} s\n")
    partial.write_text(json.dumps(doc, indent=2) + "\n")


def _codec_set(
    run: dict[str, Any],
    suite_codecs: str | None,
    settings: WorkerSettings,
    profile: Profile,
    mirror: Mirror,
    sha: str,
) -> CodecSet:
    """The trigger's codec set, else the suite's, else the worker's default; builtin pins
    are read from the commit's own builtins/*/CMakeLists.txt."""
    requested = str(run.get("codecs") or suite_codecs or settings.codecs)
    codec_set = choose_codec_set(requested, settings.codecsets_dir)
    if codec_set.kind != "host" and profile.kind != "root":
        raise CodecSetError(
            f"codec set {codec_set.name} needs a ROOT build profile; {profile.name} builds no "
            "ROOT code to link the pinned libraries into"
        )
    if codec_set.kind == "builtin":
        codec_set = with_pins(codec_set, builtin_pins(lambda p: mirror.read_text(sha, p)))
    return codec_set


def record_build(document: Path, profile: Profile, harness_hash: str) -> None:
    """Put `build` into the document: the profile that built ROOT's compression layer and
    the hash of the harness sources rzbench was compiled from (every result's provenance)."""
    doc = json.loads(document.read_text())
    doc["build"] = {"profile": profile.name, "profile_version": profile.version,
                    "harness_hash": harness_hash}
    document.write_text(json.dumps(doc))
def upload_branch_sizes(api: ApiClient, rzbench: Path, suite: Suite, corpora: list[Path],
                        sha: str, document: Path, log_path: Path,
                        launcher: Launcher | None = None) -> None:
    """Exact compressed bytes per branch and setting of the run's datasets (`rzbench sizes`,
    one compression per basket: cheap next to the timed passes), under the codec set of the
    uploaded document. Best effort: a failure is logged; the run's results stand."""
    try:
        codecs = (json.loads(document.read_text()).get("codecs") or {}).get("set") or "host"
        datasets = run_sizes(corpora=corpora, synthetic=suite.synthetic, settings=suite.settings,
                             preconditioners=suite.preconditioners, binary=rzbench, timeout=600,
                             launcher=launcher)
        for d in datasets:
            api.post_branch_sizes(sha, d["dataset"], str(codecs), d["branches"])
        message = f"branch sizes: {len(datasets)} dataset(s) uploaded ({codecs})"
    except Exception as exc:  # never fail a measured run over its per-branch extra
        message = f"branch sizes not uploaded: {type(exc).__name__}: {exc}"
    with log_path.open("a") as fh:
        fh.write(message + "\n")


def record_codecs(document: Path, codec_set: CodecSet) -> None:
    """Put `codecs` (set + the versions rzbench reports at run time) into the document, and
    fail when a pinned library is not the one that was measured."""
    doc = json.loads(document.read_text())
    reported = (doc.get("codecs") or {}).get("libraries") or doc["machine"].get("libraries", {})
    libraries = {str(k): str(v) for k, v in reported.items()}
    for pin in codec_set.pins:
        if libraries.get(pin.library) != pin.version:
            raise StageFailed(
                f"codec set {codec_set.name} pins {pin.library} {pin.version}, but rzbench "
                f"reports {libraries.get(pin.library)!r} at run time"
            )
    doc["codecs"] = {
        "set": codec_set.name,
        "root_version": codec_set.root_version,
        "libraries": libraries,
    }
    document.write_text(json.dumps(doc))


def _build(
    profile: Profile,
    mirror: Mirror,
    sha: str,
    settings: WorkerSettings,
    log_path: Path,
    deadline: Deadline,
    codec_set: CodecSet,
) -> BuildResult:
    toolchain = detect_toolchain()
    profile = with_planted_work(profile, settings.test_planted_work_percent)
    inputs = build_inputs(
        profile,
        lambda p: mirror.tree_id(sha, p),
        toolchain,
        harness(settings)[1],
        tuple(codec_set.signature()) if codec_set.pins else (),
    )

    def codecs() -> tuple[Any, ...]:
        return tuple(
            build_codec_set(
                codec_set, settings.codec_cache, toolchain, log_path, deadline,
                settings.build_jobs,
            )
        )

    def export(dest: Path) -> None:
        paths = sorted({*profile.tree_paths, *profile.detect_requires})
        mirror.export(sha, paths, dest, log_path, deadline)

    start = time.monotonic()
    result = build_cache(settings).get_or_build(
        profile, inputs, export, log_path, deadline, {"ROOT_COMMIT": sha},
        codecs if codec_set.pins else None,
    )
    log.info(
        "run build %s key %s in %.3f s",
        "cache hit" if result.cache_hit else "built",
        result.key[:16],
        time.monotonic() - start,
    )
    return result


def _profile_of(profiles: dict[str, Profile], settings: WorkerSettings, run_profile: Profile,
                mirror: Mirror, sha: str) -> Profile:
    """The profile `sha` is built with on this worker: the run's, or under "auto" the one
    its own tree selects (a history crossing a layout change, e.g. ROOT 6.14 -> 6.18, built
    each side with its own profile). ProfileError when its tree matches none."""
    if settings.profile not in ("auto", "root-release") or run_profile.kind == "root-release":
        return run_profile
    return choose_profile(profiles, "auto", lambda p: mirror.has_path(sha, p))


def _build_other(run: dict[str, Any], suite: Suite, settings: WorkerSettings,
                 profiles: dict[str, Profile], run_profile: Profile, mirror: Mirror | None,
                 sha: str, log_path: Path) -> BuildResult:
    """Another commit's build (an A/B reference), built with its own profile if missing."""
    if mirror is None:
        raise StageFailed(f"no repository to build {sha[:12]} from")
    profile = _profile_of(profiles, settings, run_profile, mirror, sha)
    if profile.kind == "root-release":
        raise StageFailed(f"{sha[:12]} is not a ROOT release, and its run's profile builds "
                          "none")
    return _build(profile, mirror, sha, settings, log_path,
                  Deadline("build", settings.stage_timeout("build")),
                  _codec_set(run, suite.codecs, settings, profile, mirror, sha))


def _cached_build_dir(run: dict[str, Any], suite: Suite, settings: WorkerSettings,
                      profiles: dict[str, Profile], run_profile: Profile, mirror: Mirror | None,
                      sha: str, log_path: Path) -> Path | None:
    """The build directory (with its loadable layer) this machine has cached for `sha` under
    its profile (the run's, or its own under "auto") and the run's codec set, None when it
    has none: never builds."""
    if mirror is None:
        return None
    try:
        profile = _profile_of(profiles, settings, run_profile, mirror, sha)
    except ProfileError:
        return None
    if profile.kind == "root-release":
        return None
    try:
        codec_set = _codec_set(run, suite.codecs, settings, profile, mirror, sha)
    except (StageFailed, CodecSetError):
        return None
    planted = with_planted_work(profile, settings.test_planted_work_percent)
    inputs = build_inputs(planted, lambda p: mirror.tree_id(sha, p), detect_toolchain(),
                          harness(settings)[1],
                          tuple(codec_set.signature()) if codec_set.pins else ())
    layer = build_cache(settings).cached_layer(
        inputs.key(), planted, log_path, Deadline("ab", 120), sha)
    return layer.parent.parent if layer is not None else None


def _cleanup(workdir: Path) -> None:
    # Keep the log and the document of the last runs for inspection; drop scratch files.
    for child in workdir.iterdir():
        if child.is_dir():
            shutil.rmtree(child, ignore_errors=True)
