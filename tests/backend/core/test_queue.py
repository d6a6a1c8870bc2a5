"""core/queue.py against a real Redis broker: one Celery message per run on the tag's queue."""

from __future__ import annotations

import base64
import json
import time
import uuid

import pytest
import redis
from basketbench.app import create_app
from basketbench.catalog.machines import register_machine
from basketbench.catalog.worker_tags import seen
from basketbench.core.queue import enqueue_run
from bb_factories import post_webhook, push_payload, sha
from fastapi.testclient import TestClient

REDIS_DB = 11  # our own Redis database number; keys below are unique per test anyway


@pytest.fixture
def queue_tag() -> str:
    tag = "bbtest-" + uuid.uuid4().hex[:12]
    yield tag
    r = redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB)
    r.delete(tag, f"_kombu.binding.{tag}")
    for key in r.scan_iter(f"*{tag}*"):
        r.delete(key)


def _messages(tag: str) -> list[dict]:
    r = redis.Redis(host="127.0.0.1", port=6379, db=REDIS_DB)
    out = []
    for raw in r.lrange(tag, 0, -1):
        msg = json.loads(raw)
        body = json.loads(base64.b64decode(msg["body"]))
        out.append({"task": msg["headers"]["task"], "args": body[0]})
    return out


def test_enqueue_run_sends_the_task_by_name_to_the_tag_queue(settings, queue_tag):
    s = settings.model_copy(update={"broker_url": f"redis://127.0.0.1:6379/{REDIS_DB}",
                                    "dispatch": "auto"})
    assert enqueue_run(41, queue_tag, s, generation=3) is True
    # The generation lets the worker's claim drop a stale message (runs/dispatch.py).
    assert _messages(queue_tag) == [{"task": "basketbench.run_benchmark", "args": [41, 3]}]


def test_webhook_enqueues_each_new_run(settings, session, queue_tag):
    register_machine(session, "m1", queue_tag, {"cpu": "z"}, "cccc000000000003")
    seen(session, queue_tag)  # a worker serves the tag
    session.commit()
    s = settings.model_copy(update={"broker_url": f"redis://127.0.0.1:6379/{REDIS_DB}",
                                    "dispatch": "auto"})
    with TestClient(create_app(s)) as c:
        r = post_webhook(c, "push", push_payload([sha(1, "qq"), sha(2, "qq")]), "q-1")
        assert r.status_code == 202
        # The dispatcher thread (started with the app) publishes the outbox rows.
        deadline = time.monotonic() + 30
        while len(_messages(queue_tag)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
    sent = sorted(m["args"][0] for m in _messages(queue_tag))
    assert sent == sorted(r.json()["run_ids"]) and len(sent) == 2


def test_unreachable_broker_leaves_the_run_queued(settings):
    s = settings.model_copy(update={"broker_url": "redis://127.0.0.1:1/0", "dispatch": "auto"})
    assert enqueue_run(7, "nowhere", s) is False
