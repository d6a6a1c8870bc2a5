"""POST /webhooks/github: signatures, redelivery, malformed payloads, git-graph order."""

from __future__ import annotations

import json

import pytest
from basketbench.app import create_app
from basketbench.catalog.machines import register_machine
from basketbench.catalog.worker_tags import seen
from basketbench.models import Commit, Run, WebhookDelivery
from bb_factories import post_webhook, push_payload, sha
from fastapi.testclient import TestClient
from sqlalchemy import func, select


@pytest.fixture
def tags(session) -> list[str]:
    register_machine(session, "bench-01", "haswell", {"cpu": "x"}, "aaaa000000000001")
    register_machine(session, "bench-02", "epyc", {"cpu": "y"}, "bbbb000000000002")
    for tag in ("haswell", "epyc"):  # as their workers' registration through the API does
        seen(session, tag)
    session.commit()
    return ["epyc", "haswell"]


def runs(session) -> list[Run]:
    session.expire_all()
    return list(session.scalars(select(Run).order_by(Run.id)))


def test_signed_push_stores_commits_and_queues_one_run_per_commit_and_tag(client, session,
                                                                          tags):
    shas = [sha(i) for i in range(3)]
    r = post_webhook(client, "push", push_payload(shas), "d-1")
    assert r.status_code == 202, r.text
    body = r.json()
    assert body["delivery"] == "d-1" and len(body["run_ids"]) == 6
    stored = runs(session)
    assert {(run.tag, run.status, run.trigger) for run in stored} == {
        ("haswell", "queued", "github:push"), ("epyc", "queued", "github:push")}
    commits = client.get("/api/v1/commits?repository=root-project/root").json()["items"]
    # newest first, ordered by the graph: each commit is its predecessor's child
    assert [c["sha"] for c in commits] == list(reversed(shas))
    assert [c["order"] for c in commits] == [2, 1, 0]
    assert commits[0]["parents"] == [shas[1]] and commits[-1]["parents"] == []
    assert commits[0]["branch"] == "master" and commits[0]["author"] == "Dev"


def test_second_push_continues_the_graph_and_only_new_commits_get_runs(client, session, tags):
    first = [sha(i) for i in range(2)]
    post_webhook(client, "push", push_payload(first), "d-1")
    nxt = [sha(i) for i in range(2, 4)]
    r = post_webhook(client, "push", push_payload(first[-1:] + nxt, before=first[0]), "d-2")
    assert r.status_code == 202
    assert len(r.json()["run_ids"]) == 4  # 2 new commits x 2 tags; first[-1] already known
    order = {c.sha: c.order for c in session.scalars(select(Commit))}
    assert order[nxt[0]] == order[first[-1]] + 1 and order[nxt[1]] == order[first[-1]] + 2


def test_redelivery_creates_nothing_twice(client, session, tags):
    payload = push_payload([sha(1)])
    first = post_webhook(client, "push", payload, "same-id")
    again = post_webhook(client, "push", payload, "same-id")
    assert first.status_code == again.status_code == 202
    assert again.json()["duplicate"] is True
    assert again.json()["run_ids"] == first.json()["run_ids"]
    assert len(runs(session)) == 2
    assert session.scalar(select(func.count()).select_from(WebhookDelivery)) == 1


def test_wrong_and_missing_signatures_are_401(client, session, tags):
    payload = push_payload([sha(1)])
    wrong = post_webhook(client, "push", payload, "d-1", secret="not-the-secret")
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    missing = post_webhook(client, "push", payload, "d-2", signature=None)
    assert missing.status_code == 401
    garbage = post_webhook(client, "push", payload, "d-3", signature="sha1=abc")
    assert garbage.status_code == 401
    assert runs(session) == []
    assert session.scalar(select(func.count()).select_from(Commit)) == 0


def test_body_changed_after_signing_is_401(client, session, tags):
    body = json.dumps(push_payload([sha(1)])).encode()
    from bb_factories import sign

    r = post_webhook(client, "push", None, "d-1", raw=body + b" ", signature=sign(body))
    assert r.status_code == 401


def test_ping_is_accepted_and_enqueues_nothing(client, session, tags):
    r = post_webhook(client, "ping", {"zen": "Keep it logically awesome.", "hook_id": 1}, "p-1")
    assert r.status_code == 200 and r.json()["run_ids"] == []
    assert runs(session) == []


def test_missing_fields_are_422_and_store_nothing(client, session, tags):
    payload = push_payload([sha(1)])
    del payload["repository"]
    r = post_webhook(client, "push", payload, "m-1")
    assert r.status_code == 422 and "repository.full_name" in r.json()["error"]["message"]
    payload = push_payload([sha(1)])
    del payload["commits"][0]["id"]
    r = post_webhook(client, "push", payload, "m-2")
    assert r.status_code == 422
    payload = push_payload(["not-a-sha"])
    assert post_webhook(client, "push", payload, "m-3").status_code == 422
    assert post_webhook(client, "pull_request", {"action": "opened"}, "m-4").status_code == 422
    assert post_webhook(client, "push", [1, 2], "m-5").status_code == 422
    assert runs(session) == [] and session.scalar(select(func.count()).select_from(Commit)) == 0
    # a rejected delivery was not recorded: fixing and redelivering it works
    assert post_webhook(client, "push", push_payload([sha(1)]), "m-1").status_code == 202


def test_non_json_body_is_400(client, session, tags):
    r = post_webhook(client, "push", None, "n-1", raw=b"payload=%7B%7D")
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request"
    r = post_webhook(client, "push", None, "n-2", raw=b"\xff\xfe")
    assert r.status_code == 400


def test_form_encoded_deliveries_are_accepted(client, session, tags):
    from urllib.parse import urlencode

    from bb_factories import sign

    body = urlencode({"payload": json.dumps(push_payload([sha(5)]))}).encode()
    r = client.post("/api/v1/webhooks/github", content=body, headers={
        "X-GitHub-Event": "push", "X-GitHub-Delivery": "f-1", "X-Hub-Signature-256": sign(body),
        "Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 202 and len(r.json()["run_ids"]) == 2


def test_missing_event_or_delivery_header_is_400(client, tags):
    body = json.dumps(push_payload([sha(1)])).encode()
    from bb_factories import sign

    r = client.post("/api/v1/webhooks/github", content=body,
                    headers={"X-Hub-Signature-256": sign(body), "X-GitHub-Event": "push"})
    assert r.status_code == 400


def test_pull_request_queues_its_head(client, session, tags):
    base, head = sha(1, "base"), sha(2, "head")
    post_webhook(client, "push", push_payload([base]), "pr-0")
    payload = {
        "action": "synchronize", "number": 42,
        "repository": {"full_name": "root-project/root"},
        "pull_request": {"number": 42, "title": "io: faster zstd", "user": {"login": "dev"},
                         "updated_at": "2026-11-20T10:00:00Z",
                         "head": {"sha": head, "ref": "zstd-speed"},
                         "base": {"sha": base, "ref": "master"}},
    }
    r = post_webhook(client, "pull_request", payload, "pr-1")
    assert r.status_code == 202 and len(r.json()["run_ids"]) == 2
    c = client.get(f"/api/v1/commits/{head[:10]}").json()
    assert c["branch"] == "pr/42" and c["parents"] == [base] and c["message"] == "io: faster zstd"
    closed = dict(payload, action="closed")
    r = post_webhook(client, "pull_request", closed, "pr-2")
    assert r.status_code == 202 and r.json()["run_ids"] == []


def test_other_events_and_tag_pushes_are_ignored(client, session, tags):
    r = post_webhook(client, "issues", {"action": "opened"}, "o-1")
    assert r.status_code == 202 and r.json()["ignored"] is True
    payload = push_payload([sha(1)])
    payload["ref"] = "refs/tags/v6-32-00"
    r = post_webhook(client, "push", payload, "o-2")
    assert r.status_code == 202 and r.json()["run_ids"] == []


def test_webhook_without_configured_secret_is_refused(settings):
    app = create_app(settings.model_copy(update={"webhook_secret": None}))
    with TestClient(app) as c:
        r = post_webhook(c, "push", push_payload([sha(1)]), "x-1")
    assert r.status_code == 403


def test_over_long_payload_fields_never_fail(client, session, tags):
    payload = push_payload([sha(7)], branch="b" * 300)
    payload["commits"][0]["author"]["name"] = "n" * 500
    r = post_webhook(client, "push", payload, "long-1")
    assert r.status_code == 202
    c = client.get(f"/api/v1/commits/{sha(7)}").json()
    assert len(c["branch"]) == 200 and len(c["author"]) == 200
    payload = push_payload([sha(8)], repo="o/" + "r" * 300)
    assert post_webhook(client, "push", payload, "long-2").status_code == 422
    assert post_webhook(client, "x" * 60, {}, "long-3").status_code == 400
