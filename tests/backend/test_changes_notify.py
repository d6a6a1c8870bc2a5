"""Notifications about confirmed changes, received by a real local HTTP server that
answers like Slack/Mattermost and GitHub's API: retries after 5xx, waits out a rate
limit, records every delivery, gives up on a final error."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from basketbench.main import create_app
from basketbench.services.tokens import create_token
from bb_factories import make_settings, sha
from changes_support import changes, ingest, make_doc
from fake_services import FakeServer, fake_server
from fastapi.testclient import TestClient

REPO = "root-project/root"


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    with fake_server() as server:
        yield server


def start(clean_db: str, fake: FakeServer, **extra: Any) -> tuple[TestClient, dict[str, str]]:
    settings = make_settings(clean_db, notify_webhook_url=f"{fake.url}/hooks/abc",
                             github_token="ghp_test", github_api_url=fake.url,
                             public_url="http://bench.example", notify_max_wait=5.0, **extra)
    client = TestClient(create_app(settings))
    client.__enter__()
    with client.app.state.sessionmaker() as session:  # type: ignore[attr-defined]
        _, token = create_token(session, "tests")
    return client, {"Authorization": f"Bearer {token}"}


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

        hooks = fake.calls("POST", "/hooks/abc")
        assert len(hooks) == 2  # one 500, retried
        text = hooks[-1].body["text"]
        assert "4 regression(s), 0 improvement(s)" in text
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

        detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
        by_channel = {d["channel"]: d for d in detail["deliveries"]}
        assert by_channel["webhook"]["status"] == "sent"
        assert by_channel["webhook"]["attempts"] == 2
        assert by_channel["github-status"]["attempts"] == 2
        assert by_channel["github-comment"]["response_code"] == 201
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
        assert len(fake.calls("POST", "/hooks/abc")) == 1  # a 404 is final
        assert len(fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")) == 1
        assert len(fake.calls("GET", f"/repos/{REPO}/commits/{commit}/pulls")) == 3
        assert fake.calls("POST", f"/repos/{REPO}/issues/42/comments") == []
        detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
        by_channel = {d["channel"]: d for d in detail["deliveries"]}
        assert by_channel["webhook"]["status"] == "failed"
        assert by_channel["webhook"]["response_code"] == 404
        assert by_channel["github-status"]["error"].startswith("HTTP 422")
        assert by_channel["github-pulls"]["attempts"] == 3
        # the changes themselves are stored and listed whatever the notifications did
        assert all(c["state"] == "confirmed" for c in found)
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
        assert len(fake.calls("POST", f"/repos/{REPO}/statuses/{commit}")) == 1
        detail = client.get(f"/api/v1/changes/{found[0]['id']}").json()
        status = next(d for d in detail["deliveries"] if d["channel"] == "github-status")
        assert status["status"] == "failed" and "rate limited" in status["error"]
        assert "3600" in status["error"]
    finally:
        client.__exit__(None, None, None)
