"""Issue 38: a hostile commit through a real worker (PostgreSQL, Redis, `basketbench serve`,
`basketbench worker`). One commit's codec source carries a static initializer that, whenever
its rzbench starts, looks for the worker's token in its environment and in /proc of its
parents, sends what it found to a listener on 127.0.0.1, writes it to a file under /tmp and
into the worker's directory, and forks without bound. Another commit's sources #include a file
of the worker's holding the token and /proc/1/environ (the worker itself in a container),
so that their compile errors would quote them. Every attempt fails, the
run log says so (the sandbox's own line and the code's `hostile:` lines), and the token is
nowhere: not in the logs, the results, the listener or the filesystem."""

from __future__ import annotations

import os
import socket
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench_workers.pipeline.stages import run_dir

from . import hostile
from .conftest import (
    FINAL,
    LayoutRepo,
    WorkerProcess,
    push_payload,
    send_push,
    unique_tag,
    wait_for,
)
from .gitrepo import commit_files, git

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TINY_SUITE = """
name = "sandbox-tiny"
description = "one setting on one synthetic dataset and HZZ: enough to start rzbench"
synthetic = ["event"]
settings = [101]
min_samples = 3
target_ms = 5

[[corpora]]
name = "hzz"
files = ["uproot-HZZ-zlib.root"]
"""


class Listener(threading.Thread):
    """What anyone sends to 127.0.0.1:<port> while the runs last."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.5)
        self.port = self.server.getsockname()[1]
        self.received: list[bytes] = []
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                chunks = [b"connection"]
                try:
                    while data := conn.recv(65536):
                        chunks.append(data)
                except OSError:
                    pass
                self.received.append(b"".join(chunks))

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=5)
        self.server.close()


def side_commit(repo: LayoutRepo, files: dict[str, str | bytes], message: str) -> str:
    git(repo.path, "checkout", "-q", "-b", f"hostile-{unique_tag()}", repo.base)
    try:
        sha = commit_files(repo.path, files, message)
    finally:
        git(repo.path, "checkout", "-q", "master")
    repo.messages[sha] = message
    return sha


def get(api: Any, path: str, **params: Any) -> Any:
    response = httpx.get(api.api + path, params=params, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.timeout(1500)
def test_hostile_commit_gets_nothing(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    worker_dir: Path,
    tmp_path: Path,
) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "sandbox-tiny.toml").write_text(TINY_SUITE)
    outside = Path("/tmp") / f"basketbench-hostile-{uuid.uuid4().hex}"
    inside_worker = worker_dir / f"hostile-{uuid.uuid4().hex}"
    api = api_server_factory(BASKETBENCH_BROKER_URL=broker_url,
                             BASKETBENCH_FRONTEND_DIST=str(tmp_path),
                             BASKETBENCH_DEFAULT_SUITE="sandbox-tiny")
    token = api.token
    listener = Listener()
    listener.start()

    rzip = "core/zip/src/rzip.cpp"  # linked into every rzbench of the tree
    base_rzip = git(layout_repo.path, "show", f"{layout_repo.base}:{rzip}")
    at_load = side_commit(
        layout_repo,
        {rzip: base_rzip + "\n" + hostile.at_load(listener.port, str(outside), str(inside_worker))},
        "zip: a static initializer that steals the worker's token",
    )
    # A file the worker can read, holding the token (as a header: an error would quote it).
    worker_secret = tmp_path / "worker-secret.h"
    worker_secret.write_text(f"stolen_{token} x;\n")
    at_build = side_commit(
        layout_repo, hostile.at_build(str(worker_secret)),
        "zstd: sources that read the worker's files into their compile errors",
    )

    tag = unique_tag()
    worker = start_worker(api, broker_url, tag, BASKETBENCH_SUITES_DIR=str(suites))
    try:
        wait_for(lambda: get(api, "/machines", tag=tag)["items"], 600, "the worker to register",
                 on_timeout=worker.log)
        answer = send_push(api, push_payload(layout_repo, [at_build, at_load],
                                             before=layout_repo.base))
        assert answer.status_code == 202, answer.text
        build_id, load_id = answer.json()["run_ids"]

        def finished() -> list[dict[str, Any]] | None:
            runs = [get(api, f"/runs/{i}") for i in (build_id, load_id)]
            return runs if all(r["status"] in FINAL for r in runs) else None

        build_run, load_run = wait_for(finished, 1200, "both hostile runs to finish",
                                       interval=2, on_timeout=worker.log)
    finally:
        listener.stop()

    logs = {run_id: (run_dir(worker_dir, api.url, run_id) / "run.log").read_text()
            for run_id in (build_id, load_id)}

    # The code that runs at load: the run succeeds (the sandbox let rzbench measure) and
    # every attempt failed, each in its own words.
    assert load_run["status"] == "succeeded", (load_run["log_tail"], worker.log()[-4000:])
    log = logs[load_id]
    assert "sandbox: commit code runs as uid" in log and "no network" in log
    lines = [line for line in log.splitlines() if line.startswith("hostile: ")]
    assert "hostile: environment: no BASKETBENCH_API_TOKEN, 0 variables naming a token or " \
           "secret" in lines
    parents = [line for line in lines if "environ of parents" in line]
    assert parents and all("no token" in line for line in parents), parents
    assert any(f"connect 127.0.0.1:{listener.port}: Connection refused" in line
               for line in lines), lines
    assert any(f"write {inside_worker}: No such file or directory" in line
               or f"write {inside_worker}: Read-only file system" in line
               for line in lines), lines
    forks = [line for line in lines if "fork without bound" in line]
    assert forks and all("stopped after" in line and "Resource temporarily unavailable" in line
                         for line in forks), forks
    assert listener.received == []
    assert not outside.exists() and not inside_worker.exists()
    assert get(api, "/results", run=load_id, limit=10)["total"] > 0

    # The sources that read at build: the worker's file is not there, and PID 1 is the
    # sandbox's (root-owned when the worker is root; holding no environment otherwise).
    assert build_run["status"] == "failed"
    assert "steal.cpp" in build_run["log_tail"] or "environ.cpp" in build_run["log_tail"]
    assert f"{worker_secret}: No such file or directory" in logs[build_id]
    if os.geteuid() == 0:
        assert "/proc/1/environ: Permission denied" in logs[build_id]

    for where, text in [*logs.items(), ("load tail", load_run["log_tail"]),
                        ("build tail", build_run["log_tail"]),
                        ("results", httpx.get(api.api + "/results", params={"run": load_id},
                                              timeout=30).text)]:
        assert token not in (text or ""), where
    # What the sandboxed commands print names no directory of the worker.
    sandboxed = [line for text in logs.values() for line in text.splitlines()
                 if line.startswith(("hostile: ", "sandbox: ", "$ c++", "$ cmake"))
                 or "environ.cpp" in line or "/proc/" in line]
    assert sandboxed and not [line for line in sandboxed
                              if str(worker_dir) in line and "hostile: write" not in line]
    print(f"\nhostile: {len(lines)} attempts refused; " + "; ".join(sorted(set(
        line.split(": ", 1)[1].split(":")[0] for line in lines))))
