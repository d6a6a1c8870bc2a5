"""The broker refuses, or accepts connections and never answers, or the API is SIGKILLed
with runs not yet sent: /trigger and the webhook still answer at once, and every run
reaches its queue exactly once when the broker is back (the outbox)."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from collections import Counter
from typing import Any

import httpx
import pytest

from .conftest import (
    Api,
    Launcher,
    clear_queue,
    queue_messages,
    report,
    timed,
    unique_tag,
    wait_for,
)
from .proxy import FaultProxy

pytestmark = [pytest.mark.integration]

GOAL_SECONDS = 1.0  # what a caller (GitHub gives up after 10 s) should see
BOUND_SECONDS = 5.0  # asserted: generous for a loaded 2-core machine


def broker_env(proxy: FaultProxy, db: int, **extra: str) -> dict[str, str]:
    return {
        "BASKETBENCH_BROKER_URL": f"redis://127.0.0.1:{proxy.port}/{db}",
        "BASKETBENCH_DISPATCH": "auto",
        "BASKETBENCH_BROKER_TIMEOUT": "1",
        "BASKETBENCH_DISPATCH_INTERVAL": "0.5",
        "BASKETBENCH_DISPATCH_BACKOFF_MIN": "0.5",
        "BASKETBENCH_DISPATCH_BACKOFF_MAX": "2",
        "BASKETBENCH_REAP_INTERVAL": "1",
        **extra,
    }


@pytest.fixture(scope="module")
def api(module_launcher: Launcher, redis_proxy: FaultProxy, redis_db: int) -> Api:
    return module_launcher.start(**broker_env(redis_proxy, redis_db))


def trigger(api: Api, tag: str, n: int) -> httpx.Response:
    commits = [hashlib.sha1(uuid.uuid4().bytes).hexdigest() for _ in range(n)]
    return httpx.post(api.api + "/trigger", headers=api.headers, timeout=60,
                      json={"repository": "faults/broker", "commits": commits, "tags": [tag]})


def push(api: Api, n: int, delivery: str | None = None,
         payload: dict[str, Any] | None = None) -> tuple[httpx.Response, dict[str, Any], str]:
    delivery = delivery or str(uuid.uuid4())
    if payload is None:
        shas = [hashlib.sha1(uuid.uuid4().bytes).hexdigest() for _ in range(n)]
        payload = {"ref": "refs/heads/master", "before": "0" * 40, "after": shas[-1],
                   "repository": {"full_name": "faults/hook"},
                   "commits": [{"id": s, "message": "m", "timestamp": "2026-03-02T10:00:00Z",
                                "author": {"name": "a", "email": "a@b.invalid"}}
                               for s in shas]}
    body = json.dumps(payload).encode()
    sig = hmac.new(b"fault-secret", body, hashlib.sha256).hexdigest()
    answer = httpx.post(api.api + "/webhooks/github", content=body, timeout=60, headers={
        "Content-Type": "application/json", "X-GitHub-Event": "push",
        "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": f"sha256={sig}"})
    return answer, payload, delivery


def register(api: Api, tag: str) -> None:
    r = httpx.post(api.api + "/machines", headers=api.headers, timeout=30,
                   json={"name": f"m-{tag}", "tag": tag, "fingerprint": {"cpu": tag}})
    assert r.status_code in (200, 201), r.text


def pending(api: Api, run_ids: list[int]) -> list[tuple[Any, ...]]:
    return api.sql("SELECT run_id, tries, last_error FROM run_dispatches "
                   "WHERE sent_at IS NULL AND run_id = ANY(%s)", run_ids)


def sent_exactly_once(db: int, tag: str, run_ids: list[int]) -> bool:
    counts = Counter(args[0] for args in queue_messages(db, tag))
    assert all(c == 1 for c in counts.values()), counts  # never twice
    return set(counts) == set(run_ids)


@pytest.mark.parametrize("mode", ["refuse", "blackhole"])
def test_trigger_and_webhook_answer_at_once_and_runs_go_when_the_broker_is_back(
    mode: str, api: Api, redis_proxy: FaultProxy, redis_db: int,
) -> None:
    tag = unique_tag()
    register(api, tag)
    try:
        redis_proxy.set_mode(mode)  # type: ignore[arg-type]
        answer, seconds = timed(lambda: trigger(api, tag, 3))
        report(f"broker {mode}: POST /trigger (3 runs)", seconds)
        assert answer.status_code == 202, answer.text
        assert seconds < BOUND_SECONDS
        hook, hook_seconds = timed(lambda: push(api, 2)[0])
        report(f"broker {mode}: signed push webhook (2 commits)", hook_seconds)
        assert hook.status_code == 202, hook.text
        assert hook_seconds < BOUND_SECONDS
        # The webhook makes a run for every registered tag: keep this test's.
        mine = [i for i in hook.json()["run_ids"]
                if httpx.get(f"{api.api}/runs/{i}", timeout=10).json()["tag"] == tag]
        run_ids = answer.json()["run_ids"] + mine
        assert len(run_ids) == 5

        # Nothing reaches the queue; the dispatcher has tried and keeps every run pending.
        wait_for(lambda: any(row[1] >= 1 for row in pending(api, run_ids))
                 and len(pending(api, run_ids)) == 5, 60,
                 "the dispatcher to try and fail", on_timeout=api.log)
        assert queue_messages(redis_db, tag) == []
        runs = [httpx.get(f"{api.api}/runs/{i}", timeout=10).json() for i in run_ids]
        assert {r["status"] for r in runs} == {"queued"}

        back = time.monotonic()
        redis_proxy.set_mode("pass")
        wait_for(lambda: sent_exactly_once(redis_db, tag, run_ids), 60,
                 "every run in its queue", on_timeout=api.log)
        report(f"broker {mode}: back -> all 5 runs in the queue", time.monotonic() - back)
        # The dispatcher marks a run sent after the broker took its message: on a busy
        # machine the queue can hold all five a moment before the outbox says so.
        wait_for(lambda: not pending(api, run_ids), 30, "every run marked sent",
                 on_timeout=api.log)
        time.sleep(2 * 0.5 + 0.5)  # a few more dispatcher passes: still nothing sent twice
        assert sent_exactly_once(redis_db, tag, run_ids)
        assert [a[1] for a in queue_messages(redis_db, tag)] == [0] * 5  # generation 0
    finally:
        redis_proxy.set_mode("pass")
        for (name,) in api.sql("SELECT DISTINCT tag FROM runs"):
            clear_queue(redis_db, name)


def test_redelivery_of_a_delivery_whose_runs_were_never_sent_sends_them(
    api: Api, redis_proxy: FaultProxy, redis_db: int,
) -> None:
    tag = unique_tag()
    register(api, tag)
    try:
        redis_proxy.set_mode("refuse")
        first, payload, delivery = push(api, 2)
        assert first.status_code == 202, first.text
        run_ids = first.json()["run_ids"]
        wait_for(lambda: len(pending(api, run_ids)) == len(run_ids)
                 and any(row[1] >= 1 for row in pending(api, run_ids)), 60,
                 "the failed first try", on_timeout=api.log)
        # As after many failures: the next try is an hour away (dispatch_backoff_max).
        api.sql("UPDATE run_dispatches SET due_at = now() + interval '1 hour' "
                "WHERE sent_at IS NULL AND run_id = ANY(%s)", run_ids)
        redis_proxy.set_mode("pass")
        time.sleep(1.5)  # three dispatcher passes: nothing is due
        assert queue_messages(redis_db, tag) == []
        again, seconds = timed(lambda: push(api, 0, delivery=delivery, payload=payload)[0])
        assert again.status_code == 202 and again.json()["duplicate"] is True, again.text
        assert again.json()["run_ids"] == run_ids  # nothing created twice
        t0 = time.monotonic()
        mine = [i for i in run_ids if api.sql("SELECT tag FROM runs WHERE id = %s", i)[0][0]
                == tag]
        wait_for(lambda: sent_exactly_once(redis_db, tag, mine), 30,
                 "the redelivery to send the runs", on_timeout=api.log)
        report("webhook redelivery -> pending runs sent", time.monotonic() - t0 + seconds)
        wait_for(lambda: not pending(api, run_ids), 30, "every tag's runs to be sent")
    finally:
        redis_proxy.set_mode("pass")
        for (name,) in api.sql("SELECT DISTINCT tag FROM runs"):
            clear_queue(redis_db, name)


def test_a_worker_whose_run_was_requeued_finds_out_before_uploading(
    api: Api, redis_db: int,
) -> None:
    """A worker that could not reach the API for longer than the heartbeat timeout: the
    reaper requeued its run, and its next heartbeat answer tells it to stop (it would
    otherwise upload a second result set)."""
    from basketbench_workers.agent.api_client import ApiClient
    from basketbench_workers.pipeline.stages import RunHeartbeat, RunLost

    tag = unique_tag()
    register(api, tag)
    try:
        answer = trigger(api, tag, 1)
        (run_id,) = answer.json()["run_ids"]
        wait_for(lambda: sent_exactly_once(redis_db, tag, [run_id]), 30, "the message")
        with ApiClient(api.url, api.token) as client:
            claimed = client.claim_run(run_id, 0, None)  # what the worker does first
            beat = RunHeartbeat(client, run_id, interval=60, attempt=claimed["attempts"])
            beat.beat()
            beat.check()  # still ours
            # The worker goes silent longer than BASKETBENCH_RUN_HEARTBEAT_TIMEOUT.
            api.sql("UPDATE runs SET heartbeat_at = now() - interval '1 hour' WHERE id = %s",
                    run_id)
            wait_for(lambda: api.sql("SELECT generation FROM runs WHERE id = %s",
                                     run_id)[0][0] == 1, 30, "the reaper to requeue the run",
                     on_timeout=api.log)
            beat.beat()
            with pytest.raises(RunLost):
                beat.check()
            assert client.claim_run(run_id, 1, None)["attempts"] == 2  # the new attempt
        # The generation-1 outbox row is settled: sent, or dropped as obsolete when the
        # claim above came first; never left pending.
        wait_for(lambda: api.sql("SELECT count(*) FROM run_dispatches WHERE run_id = %s "
                                 "AND generation = 1 AND sent_at IS NOT NULL", run_id)[0][0]
                 == 1, 30, "the generation-1 outbox row to be settled")
    finally:
        for (name,) in api.sql("SELECT DISTINCT tag FROM runs"):
            clear_queue(redis_db, name)


def test_sigkill_of_the_api_loses_no_run(
    api: Api, module_launcher: Launcher, redis_proxy: FaultProxy, redis_db: int,
) -> None:
    """Runs committed while the broker never answers, then kill -9 of the API: a new API
    process on the same database sends every one of them, once. (Last in this module:
    it kills the module's API.)"""
    tag = unique_tag()
    register(api, tag)
    try:
        redis_proxy.set_mode("blackhole")
        run_ids: list[int] = []
        for _ in range(4):
            answer = trigger(api, tag, 2)
            assert answer.status_code == 202, answer.text
            run_ids += answer.json()["run_ids"]
        api.kill()
        redis_proxy.set_mode("pass")
        assert len(pending(api, run_ids)) == 8
        t0 = time.monotonic()
        module_launcher.start(database_url=api.database_url, token=api.token,
                              **broker_env(redis_proxy, redis_db))
        ready = time.monotonic()
        wait_for(lambda: sent_exactly_once(redis_db, tag, run_ids), 60,
                 "the new API process to send the runs")
        report("API SIGKILLed with 8 unsent runs: next API start-up", ready - t0)
        report("API SIGKILLed with 8 unsent runs: next API ready -> all 8 sent",
               time.monotonic() - ready)
    finally:
        redis_proxy.set_mode("pass")
        for (name,) in api.sql("SELECT DISTINCT tag FROM runs"):
            clear_queue(redis_db, name)
