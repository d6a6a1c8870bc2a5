"""Fixtures for the worker integration tests: a ROOT-layout git repository, a broker
database of our own, and real `basketbench worker` processes."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import secrets
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from .gitrepo import commit_files, init_repo
from .layout import lz4_source_path, rootcompat_layout_files, slow_down_lz4

REPO_ROOT = Path(__file__).resolve().parents[2]
BASKETBENCH = str(REPO_ROOT / ".venv" / "bin" / "basketbench")
FINAL = ("succeeded", "failed", "cancelled")


@dataclass
class LayoutRepo:
    path: Path
    full_name: str
    base: str  # rootcompat sources in ROOT's layout
    docs: str  # touches no compression file
    slow: str  # LZ4 decoding does extra passes over every byte
    messages: dict[str, str] = field(default_factory=dict)


@pytest.fixture(scope="module")
def layout_repo(tmp_path_factory: pytest.TempPathFactory) -> LayoutRepo:
    repo = init_repo(tmp_path_factory.mktemp("rootlike") / "root")
    files = rootcompat_layout_files()
    messages = {}
    base = commit_files(repo, files, "core: compression layer in ROOT's layout")
    messages[base] = "core: compression layer in ROOT's layout"
    docs = commit_files(repo, {"README.md": "Docs only: no compression change.\n"}, "docs")
    messages[docs] = "docs"
    lz4 = lz4_source_path(files)
    slow = commit_files(
        repo, {lz4: slow_down_lz4((repo / lz4).read_text())}, "lz4: extra pass per byte"
    )
    messages[slow] = "lz4: extra pass per byte"
    return LayoutRepo(repo, f"bbtest/rootlike-{uuid.uuid4().hex[:6]}", base, docs, slow, messages)


@pytest.fixture
def broker_url() -> str:
    # A Redis database away from the default one; queue names (tags) are unique per test.
    return f"redis://127.0.0.1:6379/{random.randint(8, 15)}"


@pytest.fixture(scope="session")
def worker_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One worker machine's persistent directory (mirror, build cache, corpora), shared by
    the test modules like a real machine's across runs."""
    return tmp_path_factory.mktemp("worker")


@dataclass
class WorkerProcess:
    proc: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole worker (main process, pool child, compiler/rzbench children)."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def start_worker(
    tmp_path: Path, worker_dir: Path, layout_repo: LayoutRepo
) -> Iterator[Callable[..., WorkerProcess]]:
    started: list[WorkerProcess] = []

    def start(api: Any, broker: str, tag: str, **extra_env: str) -> WorkerProcess:
        env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
        env.update(
            {
                "BASKETBENCH_API_URL": api.url,
                "BASKETBENCH_API_TOKEN": api.token,
                "BASKETBENCH_BROKER_URL": broker,
                "BASKETBENCH_ROOT_REPO": str(layout_repo.path),
                "BASKETBENCH_WORKER_DIR": str(worker_dir),
                "BASKETBENCH_PROFILE": "test-layout",
                "BASKETBENCH_HEARTBEAT_SECONDS": "5",
                **extra_env,
            }
        )
        log_path = tmp_path / f"worker-{len(started)}.log"
        with log_path.open("wb") as log:
            proc = subprocess.Popen(
                [BASKETBENCH, "worker", "--tag", tag],
                env=env,
                cwd=tmp_path,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, killed as a whole
            )
        worker = WorkerProcess(proc, log_path)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def wait_for(
    check: Callable[[], Any],
    timeout: float,
    what: str,
    interval: float = 0.5,
    on_timeout: Callable[[], str] = lambda: "",
) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout:.0f} s waiting for {what}\n" + on_timeout()[-6000:]
            )
        time.sleep(interval)


def push_payload(repo: LayoutRepo, shas: list[str], before: str = "0" * 40) -> dict[str, Any]:
    return {
        "ref": "refs/heads/master",
        "before": before,
        "after": shas[-1],
        "repository": {"full_name": repo.full_name, "name": repo.full_name.split("/")[1]},
        "commits": [
            {
                "id": sha,
                "message": repo.messages.get(sha, ""),
                "timestamp": "2026-03-02T10:00:00+00:00",
                "author": {"name": "basketbench test", "email": "test@basketbench.invalid"},
            }
            for sha in shas
        ],
    }


def send_push(api: Any, payload: dict[str, Any]) -> httpx.Response:
    body = json.dumps(payload).encode()
    signature = hmac.new(api.webhook_secret.encode(), body, hashlib.sha256).hexdigest()
    return httpx.post(
        api.api + "/webhooks/github",
        content=body,
        headers={
            "Content-Type": "application/json",
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.uuid4()),
            "X-Hub-Signature-256": f"sha256={signature}",
        },
        timeout=30,
    )


def unique_tag() -> str:
    return "itest-" + secrets.token_hex(4)
