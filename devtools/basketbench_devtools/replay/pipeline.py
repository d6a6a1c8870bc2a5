"""`basketbench replay` step by step: ROOT's released sources through the real pipeline.

1. the releases: cppyy-cling sdists (sources.py) and the PyPI `root` wheels, cached;
2. their history in ROOT's layout, a git repository under the cache (history.py);
3. the API as the demo starts it (embedded defaults: SQLite, runs executed in the API
   process by the same task code as a Celery worker), its worker pointed at that
   repository (BASKETBENCH_ROOT_REPO, build profile chosen per commit);
4. one signed GitHub push webhook with the whole history (commits, parents, dates), then
   one run per commit through POST /trigger: checkout from the mirror, build of the
   commit's compression layer (or the release's own libCore for a tagged wheel release),
   measurement, upload, detection;
5. the changes detection found, named by release, and what was measured (report.py).

With BASKETBENCH_DATABASE_URL / BROKER_URL set, the same steps run against that stack: a
`basketbench worker --tag <the replay's tag>` must then serve it with BASKETBENCH_ROOT_REPO
= the replay's repository (<cache>/replay/history-quick.git or -full.git),
BASKETBENCH_PROFILE=auto, BASKETBENCH_SUITES_DIR=<home>/suites and, to reuse the builds,
BASKETBENCH_WORKER_DIR=<home>/worker (tests/deploy/test_replay.py does exactly that).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from basketbench.measure.paths import repo_root
from basketbench.measure.realroot.releases import install, lookup

from basketbench_devtools.demo.console import DemoError, say
from basketbench_devtools.demo.database import demo_token, migrate
from basketbench_devtools.demo.home import DemoPaths, demo_environment
from basketbench_devtools.demo.runs import follow, json_or_error, trigger
from basketbench_devtools.demo.server import Server, ensure_port_free
from basketbench_devtools.replay.history import Commit, ReplayRelease, build_history
from basketbench_devtools.replay.report import replay_document
from basketbench_devtools.replay.sources import SourceError, fetch_index, replay_cache, source_tree
from basketbench_devtools.replay.suites import RELEASES_SUITE, SOURCES_SUITE, write_suites

REPLAY_REPOSITORY = "root-replay"
# Quick form: the Cloudflare adoption (6.14 -> 6.18, with 6.14/02 whose compression sources
# are 6.14/00's: no change expected) and the codec updates of 6.40 (6.38 -> 6.40 wheels).
QUICK_SDISTS = ("6.14.0.0", "6.14.2.1", "6.18.0.0")
WHEELS = ("6.38.00", "6.40.00")


@dataclass(frozen=True)
class ReplayOptions:
    quick: bool
    json_out: Path | None
    host: str = "127.0.0.1"
    port: int = 8137
    home: Path | None = None  # default <cache>/replay/home
    timeout: float = 3600.0


def select_releases(quick: bool, cache: Path) -> list[ReplayRelease]:
    """The sdist releases (quick: QUICK_SDISTS; full: the newest sdist of every ROOT
    release that ships core/zip's RZip.cxx), then the wheel releases."""
    index = fetch_index(cache, say)
    chosen = [s for s in index if not quick or s.version in QUICK_SDISTS]
    by_release: dict[str, ReplayRelease] = {}
    for sdist in chosen:
        try:
            tree = source_tree(sdist, cache, say)
        except SourceError as exc:
            say(f"cppyy-cling {sdist.version} left out: {exc}")
            continue
        if not (tree.path / "core/zip/src/RZip.cxx").is_file():
            say(f"{tree.label} left out: its sdist ships no core/zip/src/RZip.cxx")
            continue
        # Several sdists of one ROOT release: the newest (cppyy's fixes) stands for it.
        by_release[tree.release] = ReplayRelease(
            tree.release, tree.date, f"cppyy-cling {sdist.version} sdist", tree=tree.path)
    releases = sorted(by_release.values(), key=lambda r: r.date)
    for version in WHEELS:
        wheel = lookup(version)
        date = datetime.strptime(wheel.date, "%Y-%m-%d").replace(hour=12, tzinfo=UTC)
        releases.append(ReplayRelease(version, date, f"PyPI root {wheel.wheel} wheel",
                                      wheel=wheel))
    return releases


def _prepare_home(paths: DemoPaths, worker: Path, url: str, tag: str) -> None:
    """A fresh embedded database for each replay (its changes are this history's only),
    and the worker folder shared by every replay home (<cache>/replay/worker: its build
    cache, corpora and mirror are kept; home/worker links to it). The worker's machine id
    and run folders for this API address belong to the old database, so they go with it."""
    from basketbench_workers.agent.registration import state_file
    from basketbench_workers.pipeline.stages import run_dir

    paths.home.mkdir(parents=True, exist_ok=True)
    worker.mkdir(parents=True, exist_ok=True)
    if paths.worker.is_dir() and not paths.worker.is_symlink():
        raise DemoError(f"{paths.worker} is a folder of its own; the replay's worker folder "
                        f"is {worker} (home/worker links to it): move or remove it")
    if not paths.worker.is_symlink() or paths.worker.resolve() != worker.resolve():
        paths.worker.unlink(missing_ok=True)
        paths.worker.symlink_to(worker, target_is_directory=True)
    if "BASKETBENCH_DATABASE_URL" in os.environ:
        return  # a configured stack: its database is the operator's
    (paths.home / "basketbench.sqlite").unlink(missing_ok=True)
    paths.token.unlink(missing_ok=True)
    paths.machine_token.unlink(missing_ok=True)
    state_file(worker, url, tag).unlink(missing_ok=True)
    shutil.rmtree(run_dir(worker, url, 0).parent, ignore_errors=True)


def push_history(client: httpx.Client, secret: str, commits: list[Commit]) -> dict[str, Any]:
    """The whole history as one GitHub push (oldest first), signed as GitHub signs it."""
    payload = {
        "ref": "refs/heads/master",
        "before": "0" * 40,
        "after": commits[-1].sha,
        "repository": {"full_name": REPLAY_REPOSITORY},
        "commits": [{
            "id": c.sha,
            "message": f"ROOT {c.release.name} ({c.release.origin})",
            "timestamp": c.release.date.isoformat(),
            "author": {"name": "ROOT release replay", "email": "replay@basketbench.invalid"},
        } for c in commits],
    }
    body = json.dumps(payload).encode()
    signature = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    response = client.post("/api/v1/webhooks/github", content=body, headers={
        "Content-Type": "application/json", "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()), "X-Hub-Signature-256": f"sha256={signature}"})
    return dict(json_or_error(response, "POST /api/v1/webhooks/github"))


def wait_idle(client: httpx.Client, timeout: float) -> None:
    """Until no run is queued or running and detection's backlog is empty, seen twice in a
    row: detection screens a run's last upload after its answer, and may then queue a
    confirming A/B (a run again); the document is read only when both are quiet."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline:
        busy = 0
        for status in ("queued", "running"):
            page = json_or_error(client.get("/api/v1/runs", params={
                "status": status, "limit": 1000}), "GET /api/v1/runs")
            busy += int(page["total"])
        health = json_or_error(client.get("/api/v1/health"), "GET /api/v1/health")
        busy += int(health.get("detection_pending") or 0)
        quiet = quiet + 1 if busy == 0 else 0
        if quiet == 2:
            return
        time.sleep(2.0)
    raise DemoError(f"runs or detection still busy after {timeout:.0f} s")


def _hardware_tag() -> str:
    from basketbench_workers.agent.hwtag import detect_tag

    return os.environ.get("BASKETBENCH_TAG") or detect_tag()


def run_replay(options: ReplayOptions, log: Callable[[str], None] = say) -> dict[str, Any]:
    """Every step; returns the replay document (also written to options.json_out)."""
    cache = replay_cache()
    started = time.monotonic()
    load_start = list(os.getloadavg())
    releases = select_releases(options.quick, cache)
    wheel_prefix = {r.name: install(r.wheel, log) for r in releases if r.wheel is not None}
    repo = cache / ("history-quick.git" if options.quick else "history-full.git")
    commits = build_history(repo, releases, wheel_prefix)
    log(f"history: {len(commits)} releases in {repo} "
        f"({', '.join(c.release.name for c in commits)})")

    paths = DemoPaths((options.home or cache / "home").resolve())
    url = f"http://{options.host}:{options.port}"
    ensure_port_free(options.host, options.port)
    tag = _hardware_tag()
    _prepare_home(paths, cache / "worker", url, tag)
    env = demo_environment(paths, repo_root(), url, None)
    secret = secrets.token_hex(16)
    env.update({"BASKETBENCH_ROOT_REPO": str(repo), "BASKETBENCH_PROFILE": "auto",
                "BASKETBENCH_WEBHOOK_SECRET": secret,
                # the shared folder itself, not home/worker's link to it: the build cache
                # records absolute paths, and every replay home must find the same ones
                "BASKETBENCH_WORKER_DIR": str((cache / "worker").resolve())})
    os.environ.update({k: v for k, v in env.items() if k.startswith("BASKETBENCH_")})
    migrate(env)
    token = demo_token(env, paths)  # a user token: triggers the runs
    env["BASKETBENCH_API_TOKEN"] = demo_token(env, paths, "machine")  # the embedded worker's
    write_suites(paths)

    log(f"starting the API on {url} (log: {paths.server_log})")
    server = Server(env, options.host, options.port, paths.server_log)
    runs: dict[str, dict[str, Any]] = {}
    failed: list[dict[str, Any]] = []
    try:
        server.wait_healthy()
        with httpx.Client(base_url=url, timeout=60) as client:
            pushed = push_history(client, secret, commits)
            log(f"push webhook: {len(commits)} commits stored (delivery {pushed['delivery']}, "
                f"{len(pushed.get('run_ids') or [])} runs queued by it)")
            for commit in commits:
                suite = RELEASES_SUITE if commit.release.wheel is not None else SOURCES_SUITE
                run_id = trigger(client, token, commit.sha, tag, suite,
                                 repository=REPLAY_REPOSITORY)
                log(f"ROOT {commit.release.name}: run {run_id} (suite {suite}, commit "
                    f"{commit.sha[:12]})")
                run = follow(client, run_id, options.timeout, paths.worker / "embedded.log")
                if run["status"] != "succeeded":
                    # e.g. a layout no build profile knows (6.10's zlib in core/zip): said,
                    # and the history goes on without it
                    reason = (run.get("log_tail") or "").strip()[-1500:]
                    log(f"ROOT {commit.release.name}: run {run_id} {run['status']}:\n{reason}")
                    failed.append({"release": commit.release.name, "run": run_id,
                                   "status": run["status"], "reason": reason})
                    continue
                runs[commit.sha] = run
            wait_idle(client, options.timeout)
            document = replay_document(client, repo, commits, runs, options.quick,
                                       REPLAY_REPOSITORY)
    finally:
        server.stop()
    document["failed"] = failed
    document["load"] = {"loadavg_start": load_start, "loadavg_end": list(os.getloadavg()),
                        "cpus": os.cpu_count()}
    document["seconds"] = round(time.monotonic() - started, 1)
    if options.json_out is not None:
        options.json_out.write_text(json.dumps(document, indent=2) + "\n")
    return document
