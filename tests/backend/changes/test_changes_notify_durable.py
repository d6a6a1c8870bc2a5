"""Durable notifications with real processes: `basketbench serve` on PostgreSQL and a
local HTTP server on 127.0.0.1 standing in for Slack and GitHub.

- An API process is SIGKILLed while the receiver is failing and the deliveries are
  being retried; a new API process on the same database finishes every delivery, each
  answered by the receiver exactly once, with the dead process's attempts kept.
- Two API processes on one database send a batch of deliveries together: each is sent
  once, and both processes were seen sending at the same time.
"""

from __future__ import annotations

import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from bb_factories import sha
from changes_support import make_doc
from fake_services import Answer, FakeServer, fake_server

REPO = "root-project/root"


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        yield server


def until(check: Callable[[], Any], timeout: float = 90.0, what: str = "a state") -> Any:
    """Poll until check() gives something true (a state, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def notify_env(fake: FakeServer, **extra: str) -> dict[str, str]:
    return {"BASKETBENCH_NOTIFY_WEBHOOK_URL": f"{fake.url}/hooks/abc",
            "BASKETBENCH_GITHUB_TOKEN": "ghp_test", "BASKETBENCH_GITHUB_API_URL": fake.url,
            "BASKETBENCH_PUBLIC_URL": "http://bench.example", "BASKETBENCH_DISPATCH": "none",
            **extra}


def ingest(api: str, headers: dict[str, str], doc: dict[str, Any]) -> None:
    answer = httpx.post(f"{api}/results", json=doc, headers=headers, timeout=60)
    assert answer.status_code == 201, answer.text


def deliveries(api: str, change_id: int) -> list[dict[str, Any]]:
    answer = httpx.get(f"{api}/changes/{change_id}", timeout=30)
    assert answer.status_code == 200, answer.text
    return list(answer.json()["deliveries"])


def confirmed_change(api: str) -> int:
    def first() -> int | None:
        items = httpx.get(f"{api}/changes", timeout=30).json()["items"]
        return int(items[0]["id"]) if items else None
    return int(until(first, what="the change to be confirmed"))


def test_an_api_killed_during_the_retries_is_finished_by_the_next_one(
        api_server_factory: Callable[..., Any], fake: FakeServer) -> None:
    commit = sha(1)
    failing = threading.Event()
    failing.set()

    def while_failing(ok: Answer) -> Callable[[], Answer]:
        return lambda: (502, {}, {"error": "down"}) if failing.is_set() else ok

    fake.on("POST", "/hooks/abc", while_failing((200, {}, "ok")))
    fake.on("POST", f"/repos/{REPO}/statuses/{commit}", while_failing((201, {}, {"id": 1})))
    fake.on("GET", f"/repos/{REPO}/commits/{commit}/pulls",
            while_failing((200, {}, [{"number": 42}])))
    fake.on("POST", f"/repos/{REPO}/issues/42/comments", (201, {}, {"id": 7}))
    # Retries every 0.5-1 s, many attempts; a killed holder's claim lapses after 4 s.
    env = notify_env(fake, BASKETBENCH_NOTIFY_BACKOFF_MIN="0.5",
                     BASKETBENCH_NOTIFY_MAX_WAIT="1", BASKETBENCH_NOTIFY_ATTEMPTS="200",
                     BASKETBENCH_NOTIFY_LEASE="4")
    first = api_server_factory(**env)
    ingest(first.api, first.headers, make_doc(0))
    ingest(first.api, first.headers, make_doc(1, size_scale=1.04))  # 4 exact changes
    change_id = confirmed_change(first.api)

    def retrying() -> bool:
        return (len(fake.calls("POST", "/hooks/abc")) >= 3
                and len(fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")) >= 3
                and len(fake.calls("GET", f"/repos/{REPO}/commits/{commit}/pulls")) >= 3)
    until(retrying, what="the first API to retry every delivery")
    first.process.send_signal(signal.SIGKILL)
    first.process.wait(timeout=30)
    before = len(fake.received)
    failing.clear()  # the receiver is back; nothing sends until a new API starts

    second = api_server_factory(**env, BASKETBENCH_DATABASE_URL=first.database_url)

    def all_sent() -> list[dict[str, Any]] | None:
        got = deliveries(second.api, change_id)
        return got if len(got) == 4 and all(d["status"] == "sent" for d in got) else None
    sent = {d["channel"]: d for d in until(all_sent, what="the second API to send")}

    after = fake.received[before:]
    # Exactly once each: one successful answer per delivery after the receiver came back.
    for method, path in (("POST", "/hooks/abc"), ("POST", f"/repos/{REPO}/statuses/{commit}"),
                         ("GET", f"/repos/{REPO}/commits/{commit}/pulls"),
                         ("POST", f"/repos/{REPO}/issues/42/comments")):
        assert len([r for r in after if r.method == method and r.path == path]) == 1, path
    assert len(fake.calls("POST", f"/repos/{REPO}/issues/42/comments")) == 1
    hook = sent["webhook"]
    codes = [a["code"] for a in hook["attempt_log"]]
    assert codes[-1] == 200 and set(codes[:-1]) == {502} and len(codes) >= 4
    assert hook["attempts"] == len(codes)
    # The killed process's attempts are kept; the last one was made by the new process.
    assert len({a["by"] for a in hook["attempt_log"]}) == 2
    # A request the killed process made but could not record is the only possible gap.
    assert len(fake.calls("POST", "/hooks/abc")) - hook["attempts"] in (0, 1)
    assert "2 regression(s)" in fake.calls("POST", "/hooks/abc")[-1].body["text"]
    assert sent["github-comment"]["response_code"] == 201
    detail = httpx.get(f"{second.api}/changes/{change_id}", timeout=30).json()
    assert detail["notified_at"] is not None


def test_two_api_processes_send_each_delivery_once(
        api_server_factory: Callable[..., Any], fake: FakeServer) -> None:
    # The first request waits until a second one is in flight: only a second process can
    # send it (one process sends one row at a time), so both are seen sending at once.
    overlap = threading.Event()
    arrived = threading.Semaphore(0)
    lock = threading.Lock()
    in_flight = [0]

    def slow_ok() -> Answer:
        with lock:
            in_flight[0] += 1
            if in_flight[0] >= 2:
                overlap.set()
        arrived.release()
        overlap.wait(timeout=5)  # under the API's 10 s request timeout
        with lock:
            in_flight[0] -= 1
        return 200, {}, "ok"

    fake.on("POST", "/hooks/abc", slow_ok)
    env = notify_env(fake, BASKETBENCH_GITHUB_TOKEN=None)  # type: ignore[arg-type]
    one = api_server_factory(**env)
    two = api_server_factory(**env, BASKETBENCH_DATABASE_URL=one.database_url)
    commits = 8
    ingest(one.api, one.headers, make_doc(0))
    for i in range(1, commits + 1):  # a size change at every commit: one webhook each
        server = one if i % 2 else two
        ingest(server.api, server.headers, make_doc(i, size_scale=1.0 + 0.01 * i))

    def all_sent() -> list[dict[str, Any]] | None:
        items = httpx.get(f"{one.api}/changes", params={"limit": 1000}, timeout=30).json()["items"]
        by_commit = {c["commit"]["sha"]: c["id"] for c in items}
        if len(by_commit) < commits:
            return None
        got = [d for cid in by_commit.values() for d in deliveries(one.api, cid)]
        unique = {d["id"]: d for d in got}
        return (list(unique.values()) if len(unique) == commits
                and all(d["status"] == "sent" for d in unique.values()) else None)
    sent = until(all_sent, what="every delivery to be sent")

    assert overlap.is_set(), "the two processes never sent at the same time"
    hooks = fake.calls("POST", "/hooks/abc")
    shas = [re.search(r"@([0-9a-f]{12})>", h.body["text"]).group(1)  # type: ignore[union-attr]
            for h in hooks]
    assert sorted(shas) == sorted(sha(i)[:12] for i in range(1, commits + 1))  # once each
    assert all(d["attempts"] == 1 for d in sent)
    assert len({d["attempt_log"][0]["by"] for d in sent}) == 2
