"""Notifications about confirmed changes, received by a real local HTTP server that
answers like Slack/Mattermost and GitHub's API: retries after 5xx, waits out a rate
limit, records every attempt, gives up on a final error. Deliveries go through the
outbox: the API's notification dispatcher sends them after detection, so the tests wait
for the deliveries' final states."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.tokens import create_token
from bb_factories import make_settings, sha
from changes_support import changes, ingest, make_doc
from fake_services import FakeServer, fake_server
from fastapi.testclient import TestClient

REPO = "root-project/root"


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        yield server


def start(db_url: str, fake: FakeServer, **extra: Any) -> tuple[TestClient, dict[str, str]]:
    values: dict[str, Any] = {
        "notify_webhook_url": f"{fake.url}/hooks/abc", "github_token": "ghp_test",
        "github_api_url": fake.url, "public_url": "http://bench.example",
        "notify_max_wait": 5.0, "notify_backoff_min": 0.2}
    values.update(extra)
    client = TestClient(create_app(make_settings(db_url, **values)))
    client.__enter__()
    with client.app.state.sessionmaker() as session:  # type: ignore[attr-defined]
        _, token = create_token(session, "tests")
    return client, {"Authorization": f"Bearer {token}"}


def until(check: Callable[[], Any], timeout: float = 60.0) -> Any:
    """Poll until check() gives something true (a state, not a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, "timed out waiting for a state"
        time.sleep(0.05)


def final_deliveries(client: TestClient, change_id: int, count: int
                     ) -> dict[str, dict[str, Any]]:
    """The change's deliveries by channel once ``count`` of them are sent or failed."""
    def done() -> dict[str, dict[str, Any]] | None:
        got = client.get(f"/api/v1/changes/{change_id}").json()["deliveries"]
        if len(got) == count and all(d["status"] in ("sent", "failed") for d in got):
            return {d["channel"]: d for d in got}
        return None
    return dict(until(done))


def raise_exact_change(client: TestClient, auth: dict[str, str]) -> list[dict[str, Any]]:
    ingest(client, auth, make_doc(0))
    ingest(client, auth, make_doc(1, size_scale=1.04))
    return changes(client)


def test_webhook_and_github_with_retries_and_rate_limit(clean_db: str, fake: FakeServer) -> None:
    commit = sha(1)
    fake.on("POST", "/hooks/abc", (500, {}, {"error": "try later"}), (200, {}, "ok"))
    reset = str(int(time.time()) + 1)
    fake.on("POST", f"/repos/{REPO}/statuses/{commit}",
            (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset},
             {"message": "API rate limit exceeded"}),
            (201, {}, {"id": 1, "state": "failure"}))
    fake.on("GET", f"/repos/{REPO}/commits/{commit}/pulls", (200, {}, [{"number": 42}]))
    fake.on("POST", f"/repos/{REPO}/issues/42/comments", (201, {}, {"id": 7}))
    client, auth = start(clean_db, fake)
    try:
        found = raise_exact_change(client, auth)
        assert len(found) == 4
        by_channel = final_deliveries(client, found[0]["id"], 4)

        hooks = fake.calls("POST", "/hooks/abc")
        assert len(hooks) == 2  # one 500, retried
        text = hooks[-1].body["text"]
        # 2 datasets: a size row and a ratio row each, one changed series each
        assert "2 regression(s), 0 improvement(s)" in text
        assert f"https://github.com/{REPO}/commit/{commit}" in text
        assert "http://bench.example/history?" in text

        statuses = fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")
        assert len(statuses) == 2  # rate limited once, then sent after the reset
        assert statuses[-1].headers["Authorization"] == "Bearer ghp_test"
        assert statuses[-1].body["state"] == "failure"
        assert statuses[-1].body["context"] == "basketbench/haswell"
        assert statuses[-1].body["target_url"].startswith("http://bench.example/changes?")

        comments = fake.calls("POST", f"/repos/{REPO}/issues/42/comments")
        assert len(comments) == 1
        body = comments[0].body["body"]
        assert "| series | metric | change |" in body
        assert body.count("\n| ") >= 4  # header separator + one row per change
        assert "+4.00 %" in body and "[history](http://bench.example/history?" in body

        assert by_channel["webhook"]["status"] == "sent"
        assert by_channel["webhook"]["attempts"] == 2
        assert [a["code"] for a in by_channel["webhook"]["attempt_log"]] == [500, 200]
        assert by_channel["webhook"]["attempt_log"][0]["retry_in"] == pytest.approx(0.2)
        status = by_channel["github-status"]
        assert status["attempts"] == 2 and status["attempt_log"][0]["code"] == 403
        assert 0 <= status["attempt_log"][0]["retry_in"] <= 1.5  # until the reset
        assert by_channel["github-pulls"]["status"] == "sent"
        assert by_channel["github-comment"]["response_code"] == 201
        assert all(d["next_attempt_at"] is None and d["sent_at"] for d in by_channel.values())
        detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
        assert detail["notified_at"] is not None
    finally:
        client.__exit__(None, None, None)


def test_final_errors_are_recorded_not_retried_forever(clean_db: str, fake: FakeServer) -> None:
    commit = sha(1)
    fake.on("POST", "/hooks/abc", (404, {}, {"error": "no such hook"}))
    fake.on("POST", f"/repos/{REPO}/statuses/{commit}",
            (422, {}, {"message": "Validation Failed"}))
    fake.on("GET", f"/repos/{REPO}/commits/{commit}/pulls", (502, {}, {"message": "Bad Gateway"}))
    client, auth = start(clean_db, fake, notify_attempts=3)
    try:
        found = raise_exact_change(client, auth)
        by_channel = final_deliveries(client, found[0]["id"], 3)
        assert len(fake.calls("POST", "/hooks/abc")) == 1  # a 404 is final
        assert len(fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")) == 1
        assert len(fake.calls("GET", f"/repos/{REPO}/commits/{commit}/pulls")) == 3
        assert fake.calls("POST", f"/repos/{REPO}/issues/42/comments") == []
        assert by_channel["webhook"]["status"] == "failed"
        assert by_channel["webhook"]["response_code"] == 404
        assert by_channel["github-status"]["error"].startswith("HTTP 422")
        pulls = by_channel["github-pulls"]
        assert pulls["status"] == "failed" and pulls["attempts"] == 3
        # back-off doubles: 0.2 s, 0.4 s, then no retry left
        assert [a["retry_in"] for a in pulls["attempt_log"]] == [
            pytest.approx(0.2), pytest.approx(0.4), None]
        # the changes themselves are stored and listed whatever the notifications did
        assert all(c["state"] == "confirmed" for c in found)
        assert client.get(f"/api/v1/changes/{found[0]['id']}").json()["notified_at"] is None
    finally:
        client.__exit__(None, None, None)


def test_rate_limit_longer_than_allowed_is_not_waited_for(clean_db: str,
                                                          fake: FakeServer) -> None:
    commit = sha(1)
    fake.on("POST", "/hooks/abc", (200, {}, "ok"))
    fake.on("POST", f"/repos/{REPO}/statuses/{commit}",
            (429, {"retry-after": "3600"}, {"message": "secondary rate limit"}))
    fake.on("GET", f"/repos/{REPO}/commits/{commit}/pulls", (200, {}, []))
    client, auth = start(clean_db, fake)
    try:
        found = raise_exact_change(client, auth)
        by_channel = final_deliveries(client, found[0]["id"], 3)
        assert len(fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")) == 1
        status = by_channel["github-status"]
        assert status["status"] == "failed" and "rate limited" in status["error"]
        assert "3600" in status["error"]
        assert by_channel["webhook"]["status"] == "sent"
    finally:
        client.__exit__(None, None, None)


def test_the_outbox_works_on_sqlite(tmp_path: Any, fake: FakeServer) -> None:
    """The demo's database: one process, no row locks; retried and sent once."""
    url = f"sqlite:///{tmp_path / 'bb.sqlite'}"
    migrate.upgrade(make_settings(url))
    fake.on("POST", "/hooks/abc", (503, {}, {"error": "busy"}), (200, {}, "ok"))
    client, auth = start(url, fake, github_token=None)
    try:
        found = raise_exact_change(client, auth)
        by_channel = final_deliveries(client, found[0]["id"], 1)
        assert by_channel["webhook"]["status"] == "sent"
        assert [a["code"] for a in by_channel["webhook"]["attempt_log"]] == [503, 200]
        assert len(fake.calls("POST", "/hooks/abc")) == 2
    finally:
        client.__exit__(None, None, None)


def test_a_finished_bisection_tells_about_the_culprit(clean_db: str, fake: FakeServer) -> None:
    """Detected at 6 (parent 2 measured, 3-5 not): a bisection isolates 4; the culprit's
    pull request gets the comment saying where it was detected."""
    from changes_support import runs

    good, bad, culprit = 2, 6, 4
    for i in (bad, culprit):
        fake.on("GET", f"/repos/{REPO}/commits/{sha(i)}/pulls", (200, {}, [{"number": 40 + i}]))
        fake.on("POST", f"/repos/{REPO}/statuses/{sha(i)}", (201, {}, {"id": i}))
        fake.on("POST", f"/repos/{REPO}/issues/{40 + i}/comments", (201, {}, {"id": i}))
    fake.on("POST", "/hooks/abc", (200, {}, "ok"))
    client, auth = start(clean_db, fake)
    try:
        for i in range(good + 1):
            ingest(client, auth, make_doc(i))
        ingest(client, auth, make_doc(bad, size_scale=1.03))
        found = changes(client)
        final_deliveries(client, found[0]["id"], 4)  # told about the detection at 6
        lead = client.get(f"/api/v1/changes/{found[0]['id']}").json()["bisection"]["lead"]
        body = {"commits": [{"sha": sha(i), "parents": [sha(i - 1)], "message": f"c{i}"}
                            for i in range(good + 1, bad + 1)]}
        answer = client.post(f"/api/v1/changes/{lead}/bisection/range", json=body, headers=auth)
        assert answer.status_code == 200, answer.text
        for _ in range(5):
            pending = [r for r in runs(client)
                       if r["trigger"] == "bisect" and r["result_count"] == 0]
            if not pending:
                break
            i = next(k for k in range(good, bad + 1) if sha(k) == pending[0]["commit"])
            ingest(client, auth, make_doc(i, run_id=pending[0]["id"],
                                          size_scale=1.03 if i >= culprit else 1.0))
        moved = client.get(f"/api/v1/changes/{lead}").json()
        assert moved["commit"]["sha"] == sha(culprit) and moved["bisection"]["status"] == "done"
        told = final_deliveries(client, lead, 4)  # the culprit's own deliveries
        assert told["github-comment"]["target"].endswith(f"/issues/{40 + culprit}/comments")
        comment = fake.calls("POST", f"/repos/{REPO}/issues/{40 + culprit}/comments")
        assert len(comment) == 1
        assert f"Detected at `{sha(bad)[:12]}`" in comment[0].body["body"]
        hooks = fake.calls("POST", "/hooks/abc")
        assert len(hooks) == 2 and "culprit found by bisection" in hooks[-1].body["text"]
        assert sha(culprit)[:12] in hooks[-1].body["text"]
    finally:
        client.__exit__(None, None, None)
