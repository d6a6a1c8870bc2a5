"""PostgreSQL refuses, or stops answering, behind a proxy: /health says 503 within a second,
every other request 503 with Retry-After within seconds (never a 500, never a hang), and
the API recovers by itself when the database is back. 50 readers on a small pool get
answers or quick 503s."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from .conftest import Api, Launcher, report, timed, wait_for
from .proxy import FaultProxy

pytestmark = [pytest.mark.integration]

HEALTH_BOUND = 5.0  # the goal is 1 s; asserted generously for a loaded machine
REQUEST_BOUND = 12.0  # statement deadline 2 s + 2 s guard (or connect 2 s) + load
# A small pool (2 connections, 1 s wait for one) and short database timeouts.
DB_ENV = {"BASKETBENCH_DB_STATEMENT_TIMEOUT": "2", "BASKETBENCH_DB_CONNECT_TIMEOUT": "2",
          "BASKETBENCH_DB_POOL_TIMEOUT": "1", "BASKETBENCH_DB_POOL_SIZE": "2",
          "BASKETBENCH_DB_MAX_OVERFLOW": "0"}


@pytest.fixture(scope="module")
def api(module_launcher: Launcher, pg_proxy: FaultProxy) -> Api:
    """One API for the module, reaching PostgreSQL through the proxy."""
    return module_launcher.start(db_port=pg_proxy.port, **DB_ENV)


def requests(api: Api) -> dict[str, Callable[[], httpx.Response]]:
    return {
        "GET /runs": lambda: httpx.get(api.api + "/runs", timeout=60),
        "GET /commits": lambda: httpx.get(api.api + "/commits", timeout=60),
        "POST /trigger": lambda: httpx.post(
            api.api + "/trigger", headers=api.headers, timeout=60,
            json={"commits": ["a" * 40], "tags": ["x"]}),
    }


@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
def test_database_outage_gives_quick_503s_and_recovers_without_restart(
    mode: str, api: Api, pg_proxy: FaultProxy,
) -> None:
    assert httpx.get(api.api + "/runs", timeout=30).status_code == 200  # pool warmed

    pg_proxy.set_mode(mode)  # type: ignore[arg-type]
    health, seconds = timed(lambda: httpx.get(api.api + "/health", timeout=60))
    report(f"database {mode}: GET /health", seconds)
    assert health.status_code == 503, health.text
    assert health.json()["database"] == "unavailable"
    assert seconds < HEALTH_BOUND
    for name, call in requests(api).items():
        answer, seconds = timed(call)
        report(f"database {mode}: {name}", seconds)
        assert answer.status_code == 503, (name, answer.status_code, answer.text)
        assert answer.json()["error"]["code"] == "unavailable"
        assert int(answer.headers["Retry-After"]) > 0
        assert seconds < REQUEST_BOUND, name
    # Still quick once the pool's connections are all gone.
    health, seconds = timed(lambda: httpx.get(api.api + "/health", timeout=60))
    report(f"database {mode}: GET /health again", seconds)
    assert health.status_code == 503 and seconds < HEALTH_BOUND

    back = time.monotonic()
    pg_proxy.set_mode("pass")
    wait_for(lambda: httpx.get(api.api + "/health", timeout=30).status_code == 200, 30,
             "/health to recover", on_timeout=api.log)
    wait_for(lambda: httpx.get(api.api + "/runs", timeout=30).status_code == 200, 30,
             "reads to recover", on_timeout=api.log)
    report(f"database {mode}: back -> /health and reads 200", time.monotonic() - back)
    assert api.process.poll() is None  # the same process: no restart
    assert "Traceback" not in api.log() and "unhandled error" not in api.log()


def test_fifty_readers_on_a_small_pool_get_answers_or_quick_503s(
    api: Api, pg_proxy: FaultProxy,
) -> None:
    """A pool of 2 connections with a 1 s wait for one, 50 concurrent readers: while the
    database does not answer they all get 503 quickly (none piles up behind a hung
    connection); once it is back, answers are 200 or 503, never a 500 or a hang."""
    pg_proxy.set_mode("blackhole")

    def read(_: int) -> tuple[int, float, str]:
        answer, seconds = timed(lambda: httpx.get(api.api + "/runs", timeout=120))
        return answer.status_code, seconds, answer.headers.get("Retry-After", "")

    t0 = time.monotonic()
    with ThreadPoolExecutor(50) as pool:
        answers = list(pool.map(read, range(50)))
    wall = time.monotonic() - t0
    codes = Counter(code for code, _, _ in answers)
    slowest = max(seconds for _, seconds, _ in answers)
    report(f"50 readers, database not answering, pool 2: codes {dict(codes)}, slowest", slowest)
    report("50 readers: wall time", wall)
    assert set(codes) == {503}, codes
    assert all(retry for _, _, retry in answers)
    assert slowest < 30.0

    pg_proxy.set_mode("pass")
    wait_for(lambda: httpx.get(api.api + "/health", timeout=30).status_code == 200, 30,
             "/health to recover", on_timeout=api.log)

    with ThreadPoolExecutor(50) as pool:
        healthy = list(pool.map(read, range(50)))
    codes = Counter(code for code, _, _ in healthy)
    report(f"50 readers, database up, pool 2: codes {dict(codes)}, slowest",
           max(seconds for _, seconds, _ in healthy))
    assert set(codes) <= {200, 503}, codes  # never a 500
    assert codes[200] > 0
