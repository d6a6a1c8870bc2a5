"""`basketbench demo` step by step: benchmark this machine end to end and serve the
dashboard.

Embedded defaults (no database or broker configured): a SQLite file under the demo's
home (.basketbench/), and in-process execution of the same Celery task code (the API's
enqueue path calls basketbench_workers.embedded.run_inline). The run goes through the
full path: POST /api/v1/trigger -> task -> harness -> POST /api/v1/results.

What is built or measured once is reused: the corpora (cached by content), the token,
and the run for the current commit (unless --rerun).

The hardware tag is the one the worker would choose (basketbench_workers.agent.hwtag), and the
database and broker are read from the API's own Settings, so that what the demo prints
is what the API and its worker use.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
from basketbench.measure.paths import repo_root
from basketbench.measure.realroot.releases import lookup, release_commit_sha

from basketbench_devtools.demo.arena import measure_arena
from basketbench_devtools.demo.checkout import git_commit_info, resolve_commit
from basketbench_devtools.demo.console import DemoError, say
from basketbench_devtools.demo.database import demo_token, migrate, record_commit
from basketbench_devtools.demo.home import DemoPaths, demo_environment
from basketbench_devtools.demo.lossy import measure_lossy
from basketbench_devtools.demo.prerequisites import ensure_system_packages, frontend_dist
from basketbench_devtools.demo.releases import (
    DEMO_RELEASES,
    measure_io,
    measure_releases,
    releases_wanted,
)
from basketbench_devtools.demo.rntuple import convert_hzz
from basketbench_devtools.demo.runs import abandon, find_finished_run, follow, trigger
from basketbench_devtools.demo.server import (
    Server,
    ensure_port_free,
    serves_dashboard,
    stop_on_sigterm,
)
from basketbench_devtools.demo.suite import prepare_suite, write_io_suite
from basketbench_devtools.demo.summary import print_summaries

if TYPE_CHECKING:
    from basketbench.core.config import Settings


@dataclass(frozen=True)
class DemoOptions:
    """The command's options (command.py has their help)."""

    host: str
    port: int
    home: Path
    serve: bool
    rerun: bool
    quick: bool
    timeout: float
    commit: str


def run_demo(options: DemoOptions) -> None:
    """The steps in order; a DemoError stops them with its message."""
    stop_on_sigterm()
    root = repo_root()
    paths = DemoPaths(options.home.resolve())
    paths.home.mkdir(parents=True, exist_ok=True)
    url = f"http://{options.host}:{options.port}"
    ensure_port_free(options.host, options.port)

    ensure_system_packages(root)
    sha = resolve_commit(root, options.commit)
    tag = _hardware_tag()
    env = demo_environment(paths, root, url, frontend_dist(root))
    # This process reads the same settings as its children (the database, the token check).
    os.environ.update({k: v for k, v in env.items() if k.startswith("BASKETBENCH_")})
    settings = _announce(root, sha, tag)

    migrate(env)
    with_releases = releases_wanted(options.quick)
    if with_releases:
        convert_hzz()  # ROOT's own RNTuple of HZZ, with the release the demo measures anyway
    suite = prepare_suite(paths, options.quick)
    io_suite = write_io_suite(paths) if with_releases else None
    token = demo_token(env, paths)  # a user token: triggers the runs
    machine_token = demo_token(env, paths, "machine")
    env["BASKETBENCH_API_TOKEN"] = machine_token  # the embedded worker's

    say(f"starting the API on {url} (log: {paths.server_log})")
    server = Server(env, options.host, options.port, paths.server_log)
    try:
        server.wait_healthy()
        with httpx.Client(base_url=url, timeout=30) as client:

            def follow_run(run_id: int) -> dict[str, Any]:
                return follow(client, run_id, options.timeout, paths.worker / "embedded.log")

            # ROOT releases first, so the history reads 6.38.00 -> 6.40.00 -> this checkout
            release_runs = measure_releases(
                client, token, tag, suite, quick=options.quick, rerun=options.rerun,
                follow=follow_run,
            )
            io_run = None
            if io_suite is not None and release_runs:
                io_run = measure_io(client, token, tag, io_suite, rerun=options.rerun,
                                    follow=follow_run)
            # Stored after the releases: commit order follows arrival for unrelated commits.
            record_commit(settings, git_commit_info(root, sha))
            run = _measure_checkout(client, (token, machine_token), sha, tag, suite,
                                    options.rerun, follow_run, server)
            print_summaries(client, release_runs, run, sha)
            measured = {r["commit"] for r in release_runs}
            measure_lossy(client, machine_token, [v for v in DEMO_RELEASES
                                          if release_commit_sha(lookup(v)) in measured],
                          sha, rerun=options.rerun)
            measure_arena(client, machine_token, tag, rerun=options.rerun)
            if io_run is not None:
                say(f"end-to-end I/O: {io_run.get('result_count')} results (run "
                    f"{io_run['id']}); page: {url}/io")
        page = "/" if serves_dashboard(url) else "/docs"
        say(f"dashboard: {url}{page}   (API: {url}/api/v1, docs: {url}/docs)")
        if options.serve:
            server.keep_serving()
    finally:
        server.stop()


def _hardware_tag() -> str:
    from basketbench_workers.agent.hwtag import detect_tag

    return os.environ.get("BASKETBENCH_TAG") or detect_tag()


def _announce(root: Path, sha: str, tag: str) -> Settings:
    """Say what is measured and where it is stored; returns the settings it read."""
    from basketbench.core.config import Settings

    settings = Settings()
    database = settings.sqlalchemy_url.split("@")[-1]  # never print a password
    say(f"commit {sha[:12]} of {root}, hardware tag {tag}")
    if settings.broker_url:
        say(f"database: {database}; broker: {settings.broker_url.split('@')[-1]}: the run waits "
            f"for a worker on queue {tag} (basketbench worker --tag {tag}); unset "
            "BASKETBENCH_BROKER_URL to run it inside the demo")
    else:
        say(f"database: {database}; no broker: the run executes inside the API process")
    return settings


def _measure_checkout(client: httpx.Client, tokens: tuple[str, str], sha: str, tag: str,
                      suite: str, rerun: bool, follow_run: Callable[[int], dict[str, Any]],
                      server: Server) -> dict[str, Any]:
    """The run of this checkout's commit: the one measured already (unless --rerun), else a
    new one, followed to its end (marked failed on Ctrl-C, with the worker's machine token:
    the one that claimed it). ``tokens``: (user, machine)."""
    token, machine_token = tokens
    run = None if rerun else find_finished_run(client, sha, tag, suite)
    if run is not None:
        say(f"commit {sha[:12]} was measured already (run {run['id']}); --rerun to repeat")
        return run
    run_id = trigger(client, token, sha, tag, suite)
    say(f"triggered run {run_id} (suite {suite}) through POST /api/v1/trigger")
    try:
        run = follow_run(run_id)
    except KeyboardInterrupt:
        abandon(client, machine_token, run_id)
        raise
    if run["status"] != "succeeded":
        raise DemoError(f"run {run_id} {run['status']}:\n{run.get('log_tail') or ''}"
                        f"\n--- server log ---\n{server.log_tail()}")
    return run
