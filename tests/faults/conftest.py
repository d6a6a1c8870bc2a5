"""Fault-injection fixtures: TCP proxies in front of PostgreSQL and Redis, and real
`basketbench serve` processes that reach the database and the broker through them.

Bounds asserted in these tests are generous (the CI machine is loaded); the measured
times are printed (`pytest -s tests/faults`) and recorded in docs/perf/faults.md.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
import redis

from .proxy import FaultProxy

BASKETBENCH = str(Path(sys.executable).with_name("basketbench"))


@pytest.fixture(scope="module")
def pg_proxy() -> Iterator[FaultProxy]:
    proxy = FaultProxy("127.0.0.1", 5432).start()
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def redis_proxy() -> Iterator[FaultProxy]:
    proxy = FaultProxy("127.0.0.1", 6379).start()
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def redis_db() -> Iterator[int]:
    """A Redis database number for this test's queues (queue names are unique too)."""
    yield random.randint(8, 15)


def via(url: str, port: int) -> str:
    """The same database URL, through the proxy's port."""
    return url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{port}/")


@dataclass
class Api:
    url: str
    token: str
    database_url: str  # direct, not through a proxy
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

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def sql(self, query: str, *params: Any) -> list[tuple[Any, ...]]:
        url = self.database_url.replace("postgresql+psycopg://", "postgresql://")
        with psycopg.connect(url, autocommit=True) as conn:
            cur = conn.execute(query, params)
            return list(cur.fetchall()) if cur.description else []


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Launcher:
    """start(db_port=None, database_url=None, token=None, **env) -> Api. The server
    migrates and gets its token on the direct URL; it serves through the proxy's port
    when given. Small pools: PostgreSQL's connections are shared by everyone here."""

    def __init__(self, make_db: Callable[[], str], tmp: pytest.TempPathFactory) -> None:
        self.make_db, self.tmp = make_db, tmp
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, db_port: int | None = None, database_url: str | None = None,
              token: str | None = None, **extra_env: str) -> Api:
        workdir = self.tmp.mktemp("fault-api")
        direct = database_url or self.make_db()
        env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
        env.update({
            "BASKETBENCH_DATABASE_URL": direct,
            "BASKETBENCH_WEBHOOK_SECRET": "fault-secret",
            "BASKETBENCH_DATA_DIR": str(workdir / "data"),
            "BASKETBENCH_FRONTEND_DIST": str(workdir),
            "BASKETBENCH_LOG_LEVEL": "warning",
            "BASKETBENCH_DB_POOL_SIZE": "3",
            "BASKETBENCH_DB_MAX_OVERFLOW": "2",
            "BASKETBENCH_DISPATCH": "none",
        })
        if token is None:
            token = _migrate_and_make_token(direct)
        env.update(extra_env)
        if db_port is not None:
            env["BASKETBENCH_DATABASE_URL"] = via(direct, db_port)
        port = _free_port()
        log_path = workdir / "server.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [BASKETBENCH, "serve", "--host", "127.0.0.1", "--port", str(port),
                 "--no-migrate"], env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT)
        self.started.append(proc)
        api = Api(f"http://127.0.0.1:{port}", token, direct, env, log_path, proc)
        wait_for(lambda: _healthy(api), 90, "the API to start", on_timeout=api.log)
        return api

    def stop_all(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait(timeout=10)


@pytest.fixture
def start_api(
    make_pg_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[..., Api]]:
    launcher = Launcher(make_pg_database, tmp_path_factory)
    yield launcher.start
    launcher.stop_all()


@pytest.fixture(scope="module")
def module_launcher(
    make_session_pg_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Launcher]:
    """For an API shared by a module's tests (starting one costs seconds)."""
    launcher = Launcher(make_session_pg_database, tmp_path_factory)
    yield launcher
    launcher.stop_all()


def _migrate_and_make_token(database_url: str) -> str:
    """What `basketbench token create` does, in this process (saves a slow start-up)."""
    from basketbench.core import migrate
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.core.tokens import create_token

    settings = Settings(database_url=database_url, db_pool_size=1, db_max_overflow=0)
    migrate.upgrade(settings)
    engine = make_engine(settings)
    try:
        with make_sessionmaker(engine)() as session:
            _, plain = create_token(session, "faults")
    finally:
        engine.dispose()
    return plain


def _healthy(api: Api) -> bool:
    if api.process.poll() is not None:
        raise AssertionError(f"the API exited:\n{api.log()[-4000:]}")
    try:
        return httpx.get(api.api + "/health", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


def wait_for(check: Callable[[], Any], timeout: float, what: str, interval: float = 0.2,
             on_timeout: Callable[[], str] = lambda: "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}\n"
                                 + on_timeout()[-4000:])
        time.sleep(interval)


def timed(fn: Callable[[], httpx.Response]) -> tuple[httpx.Response, float]:
    t0 = time.monotonic()
    response = fn()
    return response, time.monotonic() - t0


def report(what: str, seconds: float) -> None:
    """Measured times go to the output (`pytest -s`), for docs/perf/faults.md."""
    print(f"\nFAULT-TIME {what}: {seconds:.3f} s")


def queue_messages(db: int, tag: str) -> list[list[Any]]:
    """The task arguments of the messages waiting in a tag's queue, read from Redis itself."""
    import base64
    import json

    r = redis.Redis(host="127.0.0.1", port=6379, db=db)
    out = []
    for raw in r.lrange(tag, 0, -1):
        msg = json.loads(raw)
        out.append(json.loads(base64.b64decode(msg["body"]))[0])
    return out


def clear_queue(db: int, tag: str) -> None:
    r = redis.Redis(host="127.0.0.1", port=6379, db=db)
    r.delete(tag, f"_kombu.binding.{tag}")


def unique_tag() -> str:
    return "fault-" + uuid.uuid4().hex[:10]
