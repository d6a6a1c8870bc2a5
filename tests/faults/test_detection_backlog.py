"""Change detection under a stream of uploads, against a real API process with a small
pool: detection passes of one machine run one at a time, and a request that finds its
machine's pass running must not wait for it holding a connection (4 parallel uploads
emptied a pool of 15 that way: ingest answered 503 and passes were lost). Every document
is screened anyway, also when the API is killed between its answer and the pass."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import psycopg
import pytest

from .conftest import Api, Launcher, report, wait_for
from .test_concurrent_writers import document, post_all, sha

pytestmark = [pytest.mark.integration]

# First key of the detection lock (changes/detection/service.py DETECTION_LOCK).
DETECTION_LOCK = 0x62620002
SMALL_POOL = {"BASKETBENCH_DB_POOL_SIZE": "2", "BASKETBENCH_DB_MAX_OVERFLOW": "1",
              "BASKETBENCH_DB_POOL_TIMEOUT": "2"}


def pending(api: Api) -> int | None:
    r = httpx.get(api.api + "/health", timeout=10)
    return r.json().get("detection_pending") if r.status_code == 200 else None


def queued_rows(api: Api) -> int:
    return int(api.sql("SELECT count(*) FROM detection_queue")[0][0])


def test_uploads_while_a_pass_runs_are_answered_and_all_screened(
        module_launcher: Launcher) -> None:
    api = module_launcher.start(**SMALL_POOL)
    repo, machine = f"stream/{uuid.uuid4().hex[:8]}", f"stream-{uuid.uuid4().hex[:6]}"
    machine_id = register(api, repo, machine)
    shas = [sha() for _ in range(24)]
    calls = [lambda s=s: httpx.post(api.api + "/results", json=document(s, repo, machine),
                                    headers=api.headers, timeout=120) for s in shas]
    with holding_detection_lock(api, machine_id):
        # A long pass of this machine is running (here: this connection holds its lock)
        # while 24 documents arrive, 8 at a time.
        t0 = time.monotonic()
        answers = post_all(calls[:8]) + post_all(calls[8:16]) + post_all(calls[16:])
        report("24 uploads, 8 at a time, pool of 2+1, the machine's pass running",
               time.monotonic() - t0)
        codes = Counter(a.status_code for a in answers)
        assert codes == Counter({201: 24}), [a.text for a in answers if a.status_code != 201]
        assert pending(api) == 24
    t0 = time.monotonic()
    wait_for(lambda: pending(api) == 0, 120, "every document screened", on_timeout=api.log)
    report("24 queued documents screened after the pass ended", time.monotonic() - t0)
    assert queued_rows(api) == 0  # nothing given up either
    assert "change detection" not in api.log(), api.log()[-3000:]


def test_a_pass_left_behind_is_run_by_the_next_api_process(
        module_launcher: Launcher) -> None:
    api = module_launcher.start(**SMALL_POOL)
    repo, machine = f"stream/{uuid.uuid4().hex[:8]}", f"stream-{uuid.uuid4().hex[:6]}"
    machine_id = register(api, repo, machine)
    with holding_detection_lock(api, machine_id):
        # the request leaves its document to the running pass; then the API dies
        r = httpx.post(api.api + "/results", json=document(sha(), repo, machine),
                       headers=api.headers, timeout=60)
        assert r.status_code == 201, r.text
        assert queued_rows(api) == 1
        api.kill()
    again = module_launcher.start(database_url=api.database_url, token=api.token, **SMALL_POOL)
    t0 = time.monotonic()
    wait_for(lambda: queued_rows(again) == 0, 60, "the left-behind document screened",
             on_timeout=again.log)
    report("left-behind detection pass run by the next API process", time.monotonic() - t0)
    assert pending(again) == 0


def register(api: Api, repo: str, machine: str) -> int:
    """The machine's first document, screened; returns the machine's id."""
    first = httpx.post(api.api + "/results", json=document(sha(), repo, machine),
                       headers=api.headers, timeout=60)
    assert first.status_code == 201, first.text
    wait_for(lambda: pending(api) == 0, 60, "the first document screened", on_timeout=api.log)
    return int(first.json()["machine_id"])


@contextmanager
def holding_detection_lock(api: Api, machine_id: int) -> Iterator[None]:
    """As if a detection pass of the machine were running: its advisory lock, held by a
    connection of the test."""
    url = api.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as holder:
        holder.execute("SELECT pg_advisory_lock(%s, %s)", (DETECTION_LOCK, machine_id))
        try:
            yield
        finally:
            holder.execute("SELECT pg_advisory_unlock(%s, %s)", (DETECTION_LOCK, machine_id))
