"""The Docker Compose stack, really up: built, started, used, restarted and removed.

Runs only under `make compose-e2e` (BASKETBENCH_COMPOSE_E2E=1, DOCKER_HOST set), which starts
a Docker engine and makes the local base images (docker/e2e/engine.sh). The stack is the
project's docker-compose.yml plus docker/e2e/compose.e2e.yml (PostgreSQL and Redis from
Debian's packages); the test talks to it only through the API port published on 127.0.0.1.
The tests run in file order and share one stack.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import secrets
import shutil
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

REPO = Path(__file__).resolve().parents[2]
MAIN = REPO / "docker-compose.yml"
OVERRIDE = REPO / "docker" / "e2e" / "compose.e2e.yml"
WORKER_ONLY = REPO / "docker" / "compose.worker.yml"
WORKER_OVERRIDE = REPO / "docker" / "e2e" / "compose.worker.e2e.yml"
DOCKER = "/usr/bin/docker"
SUITE = "compose-e2e"  # docker/e2e/suites/compose-e2e.toml
FINAL = ("succeeded", "failed", "cancelled")
# Cold builds on a loaded 2-core machine with vfs: generous, the make target has its own limit.
BUILD_TIMEOUT = 1500

pytestmark = pytest.mark.skipif(
    os.environ.get("BASKETBENCH_COMPOSE_E2E") != "1",
    reason="the Docker Compose end-to-end test runs with `make compose-e2e`",
)


def _load(name: str) -> ModuleType:
    """A helper module of the worker tests (ROOT-layout test repositories), by path."""
    path = REPO / "tests" / "workers" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"compose_e2e_{name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def wait_for(check: Callable[[], Any], timeout: float, what: str,
             diagnose: Callable[[], str] = lambda: "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}\n"
                                 + diagnose()[-8000:])
        time.sleep(2)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Project:
    """One compose project: its files, its environment, and commands on it."""

    name: str
    files: list[Path]
    env: dict[str, str]
    env_file: Path

    def command(self, *args: str) -> list[str]:
        cmd = ["docker-compose", "--env-file", str(self.env_file), "-p", self.name]
        for file in self.files:
            cmd += ["-f", str(file)]
        return [*cmd, *args]

    def run(self, *args: str, timeout: float = 600, check: bool = True,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(self.command(*args), capture_output=True, text=True,
                              env=self.env if env is None else env, cwd=REPO,
                              timeout=timeout, check=False)
        if check and done.returncode != 0:
            raise AssertionError(f"docker-compose {' '.join(args)} failed "
                                 f"({done.returncode}):\n{done.stdout[-4000:]}\n{done.stderr[-8000:]}")
        return done

    def containers(self) -> list[str]:
        out = self.run("ps", "-q").stdout
        return [line for line in out.split() if line]

    def health(self) -> dict[str, str]:
        """service -> health status (or the state of a container without a healthcheck)."""
        states: dict[str, str] = {}
        ids = self.containers()
        if not ids:
            return states
        fmt = ('{{index .Config.Labels "com.docker.compose.service"}} '
               '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}')
        out = docker("inspect", "--format", fmt, *ids)
        for line in out.splitlines():
            service, _, state = line.partition(" ")
            states[service] = state
        return states

    def wait_healthy(self, services: set[str], timeout: float = 600) -> None:
        def check() -> bool:
            states = self.health()
            return set(states) >= services and all(states[s] == "healthy" for s in services)

        wait_for(check, timeout, f"{sorted(services)} healthy in {self.name}",
                 lambda: f"states: {self.health()}\n{self.logs()}")

    def logs(self) -> str:
        return self.run("logs", "--no-color", "--tail", "80", check=False).stdout


def docker(*args: str) -> str:
    done = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, f"docker {' '.join(args)}: {done.stderr}"
    return done.stdout


@dataclass
class RootlikeRepo:
    path: Path
    full_name: str
    base: str
    slow: str


@pytest.fixture(scope="module")
def test_repo(tmp_path_factory: pytest.TempPathFactory) -> RootlikeRepo:
    """A ROOT-layout git repository (rootcompat sources), as the worker tests make it."""
    gitrepo, layout = _load("gitrepo"), _load("layout")
    repo = gitrepo.init_repo(tmp_path_factory.mktemp("rootlike") / "root")
    files = layout.rootcompat_layout_files()
    base = gitrepo.commit_files(repo, files, "core: compression layer in ROOT's layout")
    lz4 = layout.lz4_source_path(files)
    slow = gitrepo.commit_files(
        repo, {lz4: layout.slow_down_lz4((repo / lz4).read_text())}, "lz4: extra pass per byte")
    # The worker runs as uid 10001 and clones from a read-only mount: make it readable.
    for path in [repo, *repo.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o055)
    for parent in repo.parents:
        if parent == Path(tmp_path_factory.getbasetemp()).parent:
            break
        parent.chmod(parent.stat().st_mode | 0o055)
    return RootlikeRepo(repo, f"bbtest/rootlike-{uuid.uuid4().hex[:6]}", base, slow)


@dataclass
class Stack:
    project: Project
    url: str  # http://127.0.0.1:PORT
    webhook_secret: str
    worker_token: str
    network: str

    @property
    def api(self) -> str:
        return self.url + "/api/v1"


def _base_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "DOCKER_HOST")
    return {k: v for k, v in os.environ.items() if k in keep}


@pytest.fixture(scope="module")
def secrets_env(test_repo: RootlikeRepo) -> dict[str, str]:
    return {
        **_base_env(),
        "POSTGRES_PASSWORD": secrets.token_hex(16),
        "BASKETBENCH_WEBHOOK_SECRET": secrets.token_hex(16),
        "BASKETBENCH_WORKER_TOKEN": secrets.token_hex(32),
        "BASKETBENCH_TAG": "e2e-central",
        "BASKETBENCH_BIND_ADDRESS": "127.0.0.1",
        "BASKETBENCH_PORT": str(_free_port()),
        "BASKETBENCH_VERSION": "e2e",
        "BASKETBENCH_DEFAULT_SUITE": SUITE,
        "BASKETBENCH_ROOT_REPO": "/srv/rootlike",
        "BASKETBENCH_E2E_REPO": str(test_repo.path),
        "COMPOSE_HTTP_TIMEOUT": "300",
        "DOCKER_BUILDKIT": "0",
    }


@pytest.fixture(scope="module")
def project(
    secrets_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Project]:
    env_file = tmp_path_factory.mktemp("compose") / "empty.env"  # never a developer's .env
    env_file.write_text("")
    name = "bbe2e" + secrets.token_hex(3)
    proj = Project(name, [MAIN, OVERRIDE], secrets_env, env_file)
    yield proj
    proj.run("down", "-v", "--remove-orphans", "--timeout", "20", check=False, timeout=300)


@pytest.fixture(scope="module")
def stack(project: Project, secrets_env: dict[str, str]) -> Stack:
    project.run("build", timeout=BUILD_TIMEOUT)
    project.run("up", "-d", timeout=600)
    return Stack(project, f"http://127.0.0.1:{secrets_env['BASKETBENCH_PORT']}",
                 secrets_env["BASKETBENCH_WEBHOOK_SECRET"],
                 secrets_env["BASKETBENCH_WORKER_TOKEN"], f"{project.name}_default")


def _signed_push(stack: Stack, repo: RootlikeRepo, shas: list[str]) -> httpx.Response:
    payload = {
        "ref": "refs/heads/master",
        "before": "0" * 40,
        "after": shas[-1],
        "repository": {"full_name": repo.full_name, "name": repo.full_name.split("/")[1]},
        "commits": [{"id": sha, "message": "e2e", "timestamp": "2026-03-02T10:00:00+00:00",
                     "author": {"name": "e2e", "email": "e2e@basketbench.invalid"}}
                    for sha in shas],
    }
    body = json.dumps(payload).encode()
    signature = hmac.new(stack.webhook_secret.encode(), body, hashlib.sha256).hexdigest()
    return httpx.post(stack.api + "/webhooks/github", content=body, timeout=60, headers={
        "Content-Type": "application/json",
        "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": f"sha256={signature}",
    })


def _run(stack: Stack, run_id: int) -> dict[str, Any]:
    response = httpx.get(f"{stack.api}/runs/{run_id}", timeout=30)
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def _results(stack: Stack, run_id: int) -> list[dict[str, Any]]:
    response = httpx.get(f"{stack.api}/results", params={"run": run_id, "limit": 1000},
                         timeout=30)
    assert response.status_code == 200, response.text
    items: list[dict[str, Any]] = response.json()["items"]
    return items


def _wait_run(stack: Stack, project: Project, run_id: int, timeout: float = 900) -> dict[str, Any]:
    run = wait_for(lambda: (r := _run(stack, run_id))["status"] in FINAL and r, timeout,
                   f"run {run_id} to finish", project.logs)
    assert run["status"] == "succeeded", (run, project.logs())
    return dict(run)


STATE: dict[str, Any] = {}  # what one step hands to the next (the tests run in file order)


def test_a_missing_secret_stops_up_with_the_documented_message(
    project: Project, secrets_env: dict[str, str]
) -> None:
    env = {k: v for k, v in secrets_env.items() if k != "BASKETBENCH_WEBHOOK_SECRET"}
    done = project.run("up", "-d", "--no-build", check=False, env=env, timeout=120)
    assert done.returncode != 0
    assert "set BASKETBENCH_WEBHOOK_SECRET in .env (see .env.example)" in done.stderr, done.stderr
    assert project.containers() == []  # nothing was started


def test_all_services_become_healthy(stack: Stack) -> None:
    stack.project.wait_healthy({"postgres", "redis", "api", "worker"})
    health = httpx.get(stack.api + "/health", timeout=30)
    assert health.status_code == 200, health.text
    # Published on the loopback only.
    port = docker("port", stack.project.run("ps", "-q", "api").stdout.strip(), "8000/tcp")
    assert port.strip().startswith("127.0.0.1:"), port


def test_a_token_is_made_and_accepted(stack: Stack) -> None:
    done = stack.project.run("exec", "-T", "api", "basketbench", "token", "create",
                             "--scope", "user", "--name", "compose-e2e")
    token = done.stdout.strip().splitlines()[-1]
    assert len(token) >= 24
    bad = httpx.post(stack.api + "/trigger", json={"commits": ["0" * 40]},
                     headers={"Authorization": "Bearer not-a-token"}, timeout=30)
    assert bad.status_code == 401, bad.text
    # The workers' shared token (bootstrapped as a machine token) cannot trigger runs.
    machine = httpx.post(stack.api + "/trigger", json={"commits": ["0" * 40]},
                         headers={"Authorization": f"Bearer {stack.worker_token}"}, timeout=30)
    assert machine.status_code == 403, machine.text
    STATE["token"] = token


def test_a_signed_push_is_measured_by_the_worker(stack: Stack, test_repo: RootlikeRepo) -> None:
    # The worker registers its tag when it starts: a push makes one run per registered tag.
    machines = httpx.get(stack.api + "/machines", timeout=30).json()["items"]
    assert {m["tag"] for m in machines} >= {"e2e-central"}, machines
    response = _signed_push(stack, test_repo, [test_repo.base])
    assert response.status_code == 202, response.text
    run_ids = response.json()["run_ids"]
    assert len(run_ids) == 1, response.json()
    run = _wait_run(stack, stack.project, run_ids[0])
    assert run["tag"] == "e2e-central" and run["suite"] == SUITE, run
    results = _results(stack, run_ids[0])
    assert results, "a succeeded run without results"
    assert {r["setting"] for r in results} >= {101, 404}, results[0]
    assert all(r["roundtrip_ok"] and r["compress_mbps"]["median"] > 0 for r in results), results
    STATE["run_id"] = run_ids[0]
    STATE["results"] = sorted(json.dumps(r, sort_keys=True) for r in results)


def test_the_dashboard_page_loads(stack: Stack, tmp_path: Path) -> None:
    page = httpx.get(stack.url + "/", timeout=30)
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    node = shutil.which("node")
    assert node, "node is needed for the browser check (make setup)"
    shot = tmp_path / "dashboard.png"
    done = subprocess.run(
        [node, str(REPO / "tests" / "deploy" / "dashboard_check.mjs"), str(REPO / "frontend"),
         stack.url + "/", str(shot)],
        capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["points"] > 0, seen  # the run's results, plotted
    assert not seen["console_errors"], seen
    assert shot.stat().st_size > 0


def test_results_survive_a_restart_of_every_service(stack: Stack) -> None:
    stack.project.run("restart", timeout=600)
    stack.project.wait_healthy({"postgres", "redis", "api", "worker"})
    run = _run(stack, STATE["run_id"])
    assert run["status"] == "succeeded"
    again = sorted(json.dumps(r, sort_keys=True) for r in _results(stack, STATE["run_id"]))
    assert again == STATE["results"]


def test_the_worker_only_file_serves_the_same_api(
    stack: Stack, test_repo: RootlikeRepo, secrets_env: dict[str, str]
) -> None:
    env = {
        **_base_env(),
        "BASKETBENCH_TAG": "e2e-remote",
        "BASKETBENCH_API_URL": "http://api:8000",
        "BASKETBENCH_WORKER_TOKEN": secrets_env["BASKETBENCH_WORKER_TOKEN"],
        "BASKETBENCH_BROKER_URL": "redis://redis:6379/0",
        "BASKETBENCH_ROOT_REPO": "/srv/rootlike",
        "BASKETBENCH_MACHINE_NAME": "remote-bench",
        "BASKETBENCH_VERSION": "e2e",
        "BASKETBENCH_E2E_REPO": str(test_repo.path),
        "BASKETBENCH_E2E_NETWORK": stack.network,
        "COMPOSE_HTTP_TIMEOUT": "300",
        "DOCKER_BUILDKIT": "0",
    }
    remote = Project(stack.project.name + "w", [WORKER_ONLY, WORKER_OVERRIDE], env,
                     stack.project.env_file)
    try:
        missing = {k: v for k, v in env.items() if k != "BASKETBENCH_API_URL"}
        refused = remote.run("up", "-d", "--no-build", check=False, env=missing, timeout=120)
        assert refused.returncode != 0 and "set BASKETBENCH_API_URL" in refused.stderr
        remote.run("up", "-d", timeout=BUILD_TIMEOUT)
        remote.wait_healthy({"worker"})
        # The token from `basketbench token create` triggers a run on the remote tag only.
        response = httpx.post(
            stack.api + "/trigger",
            json={"repository": test_repo.full_name, "commits": [test_repo.slow],
                  "tags": ["e2e-remote"], "suite": SUITE},
            headers={"Authorization": f"Bearer {STATE['token']}"}, timeout=60)
        assert response.status_code == 202, response.text
        (run_id,) = response.json()["run_ids"]
        run = _wait_run(stack, remote, run_id)
        assert run["tag"] == "e2e-remote", run
        assert _results(stack, run_id)
        machines = httpx.get(stack.api + "/machines", timeout=30).json()["items"]
        assert "remote-bench" in {m["name"] for m in machines}, machines
        remote.run("restart", timeout=300)
        remote.wait_healthy({"worker"})
    finally:
        remote.run("down", "-v", "--timeout", "20", check=False, timeout=300)
    label = f"label=com.docker.compose.project={remote.name}"
    assert docker("volume", "ls", "-q", "--filter", label).strip() == ""
    assert docker("ps", "-aq", "--filter", label).strip() == ""


def test_down_v_removes_everything(stack: Stack) -> None:
    name = stack.project.name
    stack.project.run("down", "-v", "--remove-orphans", "--timeout", "20", timeout=300)
    label = f"label=com.docker.compose.project={name}"
    assert docker("ps", "-aq", "--filter", label).strip() == ""
    assert docker("volume", "ls", "-q", "--filter", label).strip() == ""
    assert docker("network", "ls", "-q", "--filter", label).strip() == ""
    with pytest.raises(httpx.TransportError):
        httpx.get(stack.api + "/health", timeout=5)
