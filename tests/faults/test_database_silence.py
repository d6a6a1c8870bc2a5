"""Issue 22: a database that refuses, or accepts and never answers (with a warm pool or a
cold one), gives 503 + Retry-After within seconds on every path (reads, CSV export,
ingest before and during its COPY, the webhook), and nothing is half-written."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from .conftest import Api, Launcher, report, timed, wait_for
from .proxy import FaultProxy
from .test_concurrent_writers import document, sha

pytestmark = [pytest.mark.integration]

# Statement deadline 8 s (+2 s client guard), ping 1 s, connect 2 s: a silent database
# costs a request ping + connect (~3 s) before any statement, 10 s during its COPY. The
# statement deadline is well above BOUND: a checkout ping that waited for it (before
# issue 22) fails the test.
DB_ENV = {"BASKETBENCH_DB_STATEMENT_TIMEOUT": "8", "BASKETBENCH_DB_CONNECT_TIMEOUT": "2",
          "BASKETBENCH_DB_PING_TIMEOUT": "1", "BASKETBENCH_DB_POOL_TIMEOUT": "1",
          "BASKETBENCH_DB_POOL_SIZE": "3", "BASKETBENCH_DB_MAX_OVERFLOW": "0"}
BOUND = 9.0  # the goal is ~3 s; asserted generously for a loaded 2-core machine
COPY_BOUND = 16.0  # the statement deadline + 2 s guard, + load
REPO = "faults/silence"


@pytest.fixture(scope="module")
def api(module_launcher: Launcher, pg_proxy: FaultProxy) -> Api:
    return module_launcher.start(db_port=pg_proxy.port, **DB_ENV)


def push(api: Api) -> httpx.Response:
    payload = {"ref": "refs/heads/master", "before": "0" * 40, "after": sha(),
               "repository": {"full_name": REPO},
               "commits": [{"id": sha(), "message": "m", "timestamp": "2026-03-02T10:00:00Z",
                            "author": {"name": "a", "email": "a@b.invalid"}}]}
    body = json.dumps(payload).encode()
    sig = hmac.new(b"fault-secret", body, hashlib.sha256).hexdigest()
    return httpx.post(api.api + "/webhooks/github", content=body, timeout=60, headers={
        "Content-Type": "application/json", "X-GitHub-Event": "push",
        "X-GitHub-Delivery": str(uuid.uuid4()), "X-Hub-Signature-256": f"sha256={sig}"})


def ingest(api: Api, commit: str) -> httpx.Response:
    return httpx.post(api.api + "/results", json=document(commit, REPO), timeout=60,
                      headers=api.headers)


def calls(api: Api, commit: str) -> dict[str, Callable[[], httpx.Response]]:
    return {
        "GET /runs": lambda: httpx.get(api.api + "/runs", timeout=60),
        "GET /results?format=csv": lambda: httpx.get(api.api + "/results?format=csv",
                                                     timeout=60),
        "POST /results (before COPY)": lambda: ingest(api, commit),
        "signed push webhook": lambda: push(api),
    }


def stored(api: Api, commit: str) -> int:
    return int(api.sql("SELECT count(*) FROM result_documents d JOIN commits c "
                       "ON c.id = d.commit_id WHERE c.sha = %s", commit)[0][0])


def warm(api: Api) -> bool:
    """Concurrent reads until every pooled connection is open: a request then gets a warm
    connection (one the background detection sweep is not holding)."""
    with ThreadPoolExecutor(12) as pool:
        codes = set(pool.map(lambda _: httpx.get(api.api + "/runs", timeout=30).status_code,
                             range(24)))
    assert codes <= {200, 503}, codes
    db = api.database_url.rsplit("/", 1)[1]
    opened = api.sql("SELECT count(*) FROM pg_stat_activity WHERE datname = %s "
                     "AND pid <> pg_backend_pid()", db)[0][0]
    return int(opened) >= int(DB_ENV["BASKETBENCH_DB_POOL_SIZE"])


def back(api: Api, proxy: FaultProxy) -> None:
    proxy.set_mode("pass")
    wait_for(lambda: httpx.get(api.api + "/health", timeout=30).status_code == 200, 30,
             "/health to recover", on_timeout=api.log)


def assert_unavailable(answer: httpx.Response, seconds: float, what: str,
                       bound: float = BOUND) -> None:
    assert answer.status_code == 503, (what, answer.status_code, answer.text[:300])
    assert answer.json()["error"]["code"] == "unavailable", what
    assert int(answer.headers["Retry-After"]) > 0, what
    assert seconds < bound, (what, seconds)


@pytest.mark.parametrize("mode", ["refuse", "silent-cold", "silent-warm"])
def test_every_path_answers_503_within_seconds(mode: str, api: Api,
                                               pg_proxy: FaultProxy) -> None:
    wait_for(lambda: warm(api), 60, "every pooled connection to be open")
    if mode == "silent-cold":
        # Every pooled connection reset: each request must open a new one, which hangs.
        pg_proxy.set_mode("refuse")
        assert httpx.get(api.api + "/health", timeout=30).status_code == 503
    pg_proxy.set_mode("refuse" if mode == "refuse" else "blackhole")
    commit = sha()
    for name, call in calls(api, commit).items():
        answer, seconds = timed(call)
        report(f"database {mode}: {name}", seconds)
        assert_unavailable(answer, seconds, name)
    back(api, pg_proxy)
    assert stored(api, commit) == 0
    assert api.process.poll() is None
    assert "unhandled error" not in api.log()


@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
def test_ingest_cut_during_its_copy_is_503_and_stores_nothing(mode: str, api: Api,
                                                             pg_proxy: FaultProxy) -> None:
    assert ingest(api, sha()).status_code == 201  # the ids are cached, the pool warm
    commit = sha()
    pg_proxy.arm(b"COPY results", mode)  # type: ignore[arg-type]
    answer, seconds = timed(lambda: ingest(api, commit))
    label = "refuse" if mode == "refuse" else "silent"
    report(f"database {label} during COPY: POST /results", seconds)
    assert pg_proxy.mode == mode  # the fault did hit the COPY
    assert_unavailable(answer, seconds, "ingest during COPY", COPY_BOUND)
    back(api, pg_proxy)
    assert stored(api, commit) == 0
    t0 = time.monotonic()
    assert ingest(api, commit).status_code == 201  # and the same document goes in after
    report(f"database {label} during COPY: back -> the same document stored",
           time.monotonic() - t0)
    assert stored(api, commit) == 1
    assert "unhandled error" not in api.log()


def _peak_rss_mb(api: Api) -> float:
    """The API process's peak resident set (VmHWM) so far."""
    status = Path(f"/proc/{api.process.pid}/status").read_text()
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


@pytest.mark.parametrize("entries", [50_000, 1_000_000])
def test_many_invalid_results_cost_bounded_time_and_memory(entries: int, api: Api) -> None:
    """Before issue 22: 50 000 empty results (202 KB) took 34 s and a 3.57 GB peak before
    its 422; 1 000 000 (4 MB) grew the API past 9.9 GB without an answer."""
    doc = document(sha(), REPO)
    doc["results"] = [{}] * entries
    body = json.dumps(doc).encode()
    before = _peak_rss_mb(api)
    answer, seconds = timed(lambda: httpx.post(
        api.api + "/results", content=body, timeout=120,
        headers={**api.headers, "Content-Type": "application/json"}))
    peak = _peak_rss_mb(api)
    report(f"{entries} empty results ({len(body) // 1024} KB): 422", seconds)
    print(f"RSS-PEAK {entries} empty results: {before:.0f} MB before, {peak:.0f} MB after")
    assert answer.status_code == 422, answer.text[:300]
    assert len(answer.content) < 5000
    assert seconds < 15.0
    assert peak < before + 200, (before, peak)  # 1 000 000 x {}: ~120 MB of parsed JSON
