"""docker/worker-healthcheck.py against a real Redis and a real Celery worker process."""

from __future__ import annotations

import os
import random
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .support import REPO, VENV_BIN

SCRIPT = REPO / "docker" / "worker-healthcheck.py"


def _env(broker: str, machine: str, tag: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env |= {"BASKETBENCH_BROKER_URL": broker, "BASKETBENCH_MACHINE_NAME": machine,
            "BASKETBENCH_TAG": tag, "BASKETBENCH_HEALTHCHECK_TIMEOUT": "3"}
    return env


def healthcheck(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=90,
        check=False,
    )


@pytest.fixture
def broker() -> str:
    # A Redis database of its own, so other tests' workers never answer our pings.
    return f"redis://127.0.0.1:6379/{random.randint(8, 15)}"


@pytest.fixture
def identity() -> tuple[str, str]:
    return "hc-" + secrets.token_hex(4), "tag" + secrets.token_hex(2)


@pytest.fixture
def worker(broker: str, identity: tuple[str, str], tmp_path: Path) -> Iterator[None]:
    machine, tag = identity
    node = f"{machine}-{tag}-{os.getpid()}@{socket.gethostname()}"
    log = (tmp_path / "celery.log").open("wb")
    proc = subprocess.Popen(
        [str(VENV_BIN / "celery"), "-A", "basketbench_workers.celery_app", "worker",
         "--queues", f"q-{machine}", "--hostname", node, "--pool", "solo",
         "--without-gossip", "--without-mingle", "--loglevel", "INFO"],
        env=_env(broker, machine, tag), stdout=log, stderr=subprocess.STDOUT, cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 60
        while b"ready." not in (tmp_path / "celery.log").read_bytes():
            assert proc.poll() is None, (tmp_path / "celery.log").read_text()
            assert time.monotonic() < deadline, "the Celery worker did not start"
            time.sleep(0.3)
        yield
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.mark.integration
def test_healthy_when_this_hosts_worker_answers(
    broker: str, identity: tuple[str, str], worker: None
) -> None:
    done = healthcheck(_env(broker, *identity))
    assert done.returncode == 0, done.stderr


@pytest.mark.integration
def test_another_machines_worker_does_not_count(
    broker: str, identity: tuple[str, str], worker: None
) -> None:
    machine, tag = identity
    done = healthcheck(_env(broker, machine, "other-tag"))
    assert done.returncode == 1
    assert f"no worker {machine}-other-tag-*@" in done.stderr
    assert f"{machine}-{tag}-" in done.stderr  # it lists who did answer


@pytest.mark.integration
def test_unhealthy_without_a_worker(broker: str, identity: tuple[str, str]) -> None:
    done = healthcheck(_env(broker, *identity))
    assert done.returncode == 1
    assert "no worker" in done.stderr


def test_unhealthy_when_the_broker_is_down(identity: tuple[str, str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nothing listens there
    started = time.monotonic()
    done = healthcheck(_env(f"redis://127.0.0.1:{port}/0", *identity))
    assert done.returncode == 1
    assert "cannot reach the broker" in done.stderr, done.stderr
    assert time.monotonic() - started < 60
