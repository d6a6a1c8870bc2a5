"""Shared fixtures for every test area (backend, harness, workers, deploy).

PostgreSQL (127.0.0.1:5432, user postgres, trust auth) must be running; the server
is taken from ``BASKETBENCH_TEST_PG_ADMIN`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``). Nothing here depends on data left
by an earlier run, and everything uses unique names and free ports, so areas can run
concurrently.

Fixtures
--------
``pg_admin_url`` (session)
    URL of the maintenance database, used to CREATE/DROP test databases.
``pg_url`` (function)
    A brand-new, EMPTY PostgreSQL database with a unique name, as a SQLAlchemy URL
    (``postgresql+psycopg://postgres@127.0.0.1:5432/bbtest_<hex>``); dropped (WITH FORCE)
    after the test. Not migrated: call ``basketbench db upgrade`` or
    ``basketbench.core.migrate.upgrade(Settings(database_url=pg_url))`` if you need tables.
``make_pg_database`` (function)
    Factory ``make_pg_database() -> url`` for tests needing several databases; every
    database it made is dropped afterwards.
``make_session_pg_database`` (session)
    Same factory, but the databases live until the end of the test session (for a
    migrated database shared by many tests; empty it between tests yourself).
``free_port`` (function)
    A TCP port on 127.0.0.1 that was free a moment ago.
``api_server`` (function)
    A real ``basketbench serve`` subprocess on a free port with a fresh, migrated
    PostgreSQL database, embedded mode (no broker) unless overridden, and a token.
    Runs are dispatched as ``basketbench serve`` does by default: with no broker, a
    created run goes to ``basketbench_workers.embedded.run_inline(run_id)`` in a server
    thread; ``BASKETBENCH_API_URL``/``BASKETBENCH_API_TOKEN`` point at this server and its
    token. Pass ``BASKETBENCH_DISPATCH="none"`` to keep runs 'queued' in the database.
    Yields ``ApiServer`` with ``url`` (``http://127.0.0.1:<port>``), ``api``
    (``url + "/api/v1"``), ``token`` (plain bearer token), ``headers``
    (``{"Authorization": "Bearer ..."}``), ``database_url``, ``webhook_secret``,
    ``env`` (the environment the server runs with, handy for running other
    ``basketbench`` commands against the same database) and ``log_path``.
    The server is stopped (SIGTERM, then SIGKILL) and its database dropped afterwards.
``api_server_factory`` (function)
    ``api_server_factory(**extra_env) -> ApiServer`` to start servers with other
    settings, e.g. ``api_server_factory(BASKETBENCH_BROKER_URL="redis://127.0.0.1:6379/7")``
    or ``BASKETBENCH_PRIVATE_READS="true"``. Values given as ``None`` remove the variable.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
BASKETBENCH = str(Path(sys.executable).with_name("basketbench"))
DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    return os.environ.get("BASKETBENCH_TEST_PG_ADMIN", DEFAULT_ADMIN)


def _sqlalchemy_url(admin: str, name: str) -> str:
    base = admin.rsplit("/", 1)[0]
    return base.replace("postgresql://", "postgresql+psycopg://", 1) + "/" + name


def create_database(admin: str) -> tuple[str, str]:
    name = "bbtest_" + uuid.uuid4().hex[:16]
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, _sqlalchemy_url(admin, name)


def drop_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def make_pg_database(pg_admin_url: str) -> Iterator[Callable[[], str]]:
    made: list[str] = []

    def make() -> str:
        name, url = create_database(pg_admin_url)
        made.append(name)
        return url

    yield make
    for name in made:
        drop_database(pg_admin_url, name)


@pytest.fixture(scope="session")
def make_session_pg_database(pg_admin_url: str) -> Iterator[Callable[[], str]]:
    made: list[str] = []

    def make() -> str:
        name, url = create_database(pg_admin_url)
        made.append(name)
        return url

    yield make
    for name in made:
        drop_database(pg_admin_url, name)


@pytest.fixture
def pg_url(make_pg_database: Callable[[], str]) -> str:
    return make_pg_database()


def find_free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def free_port() -> int:
    return find_free_port()


@dataclass
class ApiServer:
    url: str
    token: str
    database_url: str
    webhook_secret: str
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] = field(repr=False)

    @property
    def api(self) -> str:
        return self.url + "/api/v1"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@pytest.fixture
def api_server_factory(
    make_pg_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., ApiServer]]:
    started: list[subprocess.Popen[bytes]] = []

    def start(**extra_env: str | None) -> ApiServer:
        workdir = tmp_path_factory.mktemp("api-server")
        database_url = make_pg_database()
        secret = secrets.token_hex(16)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("BASKETBENCH_") or k == "BASKETBENCH_TEST_PG_ADMIN"}
        env.update({
            "BASKETBENCH_DATABASE_URL": database_url,
            "BASKETBENCH_WEBHOOK_SECRET": secret,
            "BASKETBENCH_DATA_DIR": str(workdir / "data"),
            "BASKETBENCH_LOG_LEVEL": "warning",
        })
        for key, value in extra_env.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        created = subprocess.run(
            # admin: the tests' server and its workers share one token (user and machine)
            [BASKETBENCH, "token", "create", "--scope", "admin", "--name", "tests"], env=env,
            cwd=workdir,
            capture_output=True, text=True, timeout=120, check=True)
        token = created.stdout.strip().splitlines()[-1]
        port = find_free_port()
        # Embedded runs (basketbench_workers.embedded) talk to this server, not to :8000.
        env.setdefault("BASKETBENCH_API_URL", f"http://127.0.0.1:{port}")
        env.setdefault("BASKETBENCH_API_TOKEN", token)
        log_path = workdir / "server.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [BASKETBENCH, "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
        started.append(proc)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"basketbench serve exited:\n{log_path.read_text()}")
            try:
                if httpx.get(url + "/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"basketbench serve did not start:\n{log_path.read_text()}")
            time.sleep(0.2)
        return ApiServer(url=url, token=token, database_url=database_url,
                         webhook_secret=env.get("BASKETBENCH_WEBHOOK_SECRET", ""), env=env,
                         log_path=log_path, process=proc)

    yield start
    for proc in started:
        _stop(proc)


@pytest.fixture
def api_server(api_server_factory: Callable[..., ApiServer]) -> ApiServer:
    return api_server_factory()
