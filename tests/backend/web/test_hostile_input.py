"""Issue 13: hostile input gets a 4xx with a reason, never a 500; bodies and work bounded."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import logging

import httpx
import orjson
import pytest
from basketbench.models import Commit, Machine, WebhookDelivery
from basketbench.web import errors, guards
from bb_factories import post_webhook, push_payload, sha
from fastapi import HTTPException
from sqlalchemy import func, select

JSON = {"Content-Type": "application/json"}


def nested(depth: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(depth):
        value = {"x": value}
    return value


def count(session, model) -> int:
    session.expire_all()
    return int(session.scalar(select(func.count()).select_from(model)))


def assert_4xx(r: httpx.Response, status: int, words: str) -> None:
    assert r.status_code == status, r.text
    assert words in r.json()["error"]["message"], r.text


def test_signed_webhook_nested_1000_deep_is_400_and_not_recorded(client, session):
    body = b'{"ref":' + b"[" * 1000 + b"]" * 1000 + b"}"
    r = post_webhook(client, "push", None, "deep-1", raw=body)
    assert_4xx(r, 400, "nested deeper than 64")
    assert count(session, WebhookDelivery) == 0


@pytest.mark.parametrize("where", ["fingerprint", "timings"])
def test_300_deep_fingerprint_or_timings_is_400(client, auth, session, where):
    if where == "fingerprint":
        r = client.post("/api/v1/machines", headers=auth,
                        json={"name": "m", "tag": "t", "fingerprint": nested(300)})
    else:
        run = client.post("/api/v1/trigger", headers=auth,
                          json={"commits": [sha(1)], "tags": ["t"]}).json()["run_ids"][0]
        r = client.patch(f"/api/v1/runs/{run}", headers=auth, json={"timings": nested(300)})
    assert_4xx(r, 400, "nested deeper than 64")
    assert count(session, Machine) == 0


def test_lone_surrogates_are_400_on_trigger_patch_and_webhook(client, auth, session):
    raw = b'{"repository": "a/\\ud800", "commits": ["' + sha(2).encode() + b'"], "tags": ["t"]}'
    r = client.post("/api/v1/trigger", headers={**auth, **JSON}, content=raw)
    assert_4xx(r, 400, "surrogate")
    assert count(session, Commit) == 0

    run = client.post("/api/v1/trigger", headers=auth,
                      json={"commits": [sha(3)], "tags": ["t"]}).json()["run_ids"][0]
    for field in (b'{"log_tail": "x\\ud800"}', b'{"stage": "\\udc00"}',
                  b'{"timings": {"\\ud800": 1}}'):
        r = client.patch(f"/api/v1/runs/{run}", headers={**auth, **JSON}, content=field)
        assert_4xx(r, 400, "surrogate")

    payload = json.dumps(push_payload([sha(4)])).replace('"commit 0', '"\\ud800 0').encode()
    r = post_webhook(client, "push", None, "sur-1", raw=payload)
    assert_4xx(r, 400, "surrogate")
    assert count(session, WebhookDelivery) == 0


def test_integers_beyond_64_bits_in_json_bodies_are_400(client, auth):
    """Found by schemathesis: the stdlib keeps 10**30 exact, the JSON column cannot."""
    run = client.post("/api/v1/trigger", headers=auth,
                      json={"commits": [sha(7)], "tags": ["t"]}).json()["run_ids"][0]
    r = client.patch(f"/api/v1/runs/{run}", headers={**auth, **JSON},
                     content=b'{"timings": {"build": 1000000000000000000000000000000}}')
    assert_4xx(r, 400, "outside the 64-bit range")
    r = client.post("/api/v1/machines", headers={**auth, **JSON},
                    content=b'{"name": "m", "tag": "t", '
                            b'"fingerprint": {"n": -99999999999999999999}}')
    assert_4xx(r, 400, "outside the 64-bit range")


def test_push_of_more_than_65535_commits_is_422_and_stores_nothing(client, session):
    shas = [f"{i:040x}" for i in range(1, 65_540)]
    r = post_webhook(client, "push", push_payload(shas), "huge-1")
    assert_4xx(r, 422, "at most 2048 commits")
    assert count(session, Commit) == 0 and count(session, WebhookDelivery) == 0


def test_4mb_log_line_is_413_and_a_large_one_is_cut_to_the_tail(client, auth):
    run = client.post("/api/v1/trigger", headers=auth,
                      json={"commits": [sha(5)], "tags": ["t"]}).json()["run_ids"][0]
    r = client.patch(f"/api/v1/runs/{run}", headers=auth, json={"log_tail": "y" * (4 << 20)})
    assert_4xx(r, 413, "larger than 2 MB")
    r = client.patch(f"/api/v1/runs/{run}", headers=auth,
                     json={"log_tail": "a" * 1_000_000 + "the end"})
    assert r.status_code == 200, r.text
    tail = r.json()["log_tail"]
    assert len(tail) == 20_000 and tail.endswith("the end")


def test_webhook_refuses_unsigned_or_declared_too_large_bodies_before_reading(client, session):
    headers = {"X-GitHub-Event": "push", "X-GitHub-Delivery": "big-1", **JSON,
               "X-Hub-Signature-256": "sha256=" + "0" * 64}
    r = client.post("/api/v1/webhooks/github", content=b"{}",
                    headers={**headers, "Content-Length": str(300 << 20)})
    assert_4xx(r, 413, "larger than 25 MB")
    r = client.post("/api/v1/webhooks/github", content=b"{}",
                    headers={"X-GitHub-Event": "push", "X-GitHub-Delivery": "u-1", **JSON})
    assert_4xx(r, 401, "X-Hub-Signature-256")
    assert count(session, WebhookDelivery) == 0


def test_ingest_rejects_deep_and_invalid_json_with_the_reason(client, auth):
    r = client.post("/api/v1/results/gbench?commit=" + sha(6), headers={**auth, **JSON},
                    content=b'{"context": ' + b"[" * 500 + b"]" * 500 + b"}")
    assert_4xx(r, 400, "nested deeper than 64")
    r = client.post("/api/v1/results", headers={**auth, **JSON}, content=b'{"a": "\\udfff"}')
    assert_4xx(r, 400, "surrogate")


def test_unhandled_error_logs_are_bounded(caplog):
    try:
        raise RuntimeError("SELECT " + ", ".join(f"%(p{i})s" for i in range(65_540)))
    except RuntimeError as exc:
        text = errors.bounded_traceback(exc)
    assert len(text) <= errors.MAX_LOG_RECORD + 20
    assert "more chars" in text and "RuntimeError" in text
    with caplog.at_level(logging.ERROR):
        logging.getLogger("x").error("%s", text)
    assert max(len(r.getMessage()) for r in caplog.records) < 20_000


def test_json_depth_is_iterative_and_exact():
    assert guards.json_depth({"a": [1, {"b": []}]}) == 4
    assert guards.json_depth(5) == 0
    deep: list[object] = []
    for _ in range(5000):  # deeper than Python's recursion limit
        deep = [deep]
    assert guards.json_depth(deep) == guards.MAX_JSON_DEPTH + 1


@pytest.mark.parametrize("text", [
    b"5", b"[]", b'{"a": [1, {"b": []}]}', b'{"[[[": "]]]", "b": [["{"]]}',
    b'["}", "", "[", ["]", [""]]]', '{"é[": ["x"]}'.encode(), b'[[[[[[[[]]]]]]]]',
])
def test_raw_json_depth_is_the_parsed_depth(text: bytes):
    """The byte-level count (ingest's fast path) agrees with the walk, brackets in
    strings included; a backslash sends it to the walk."""
    assert guards.raw_json_depth(text) == guards.json_depth(orjson.loads(text))
    assert guards.raw_json_depth(b'["\\"[", [1]]') is None
    deep = b"[" * 70 + b'"]]]]"' + b"]" * 70
    with pytest.raises(HTTPException, match="nested deeper than 64"):
        guards.loads(deep)


def test_in_flight_and_export_caps_answer_at_once_with_retry_after():
    """Two held requests fill the caps; the next ones get 503 / 429 immediately."""

    async def scenario() -> list[httpx.Response]:
        release = asyncio.Event()
        entered = asyncio.Semaphore(0)

        async def slow_app(scope, receive, send):  # type: ignore[no-untyped-def]
            entered.release()
            await release.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})

        app = guards.GuardMiddleware(slow_app, guards.Limits(max_in_flight=2, max_exports=1))
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            held = asyncio.create_task(c.get("/api/v1/results?format=csv"))
            await entered.acquire()
            export = await c.get("/api/v1/runs", headers={"Accept": "text/csv"})
            held2 = asyncio.create_task(c.get("/api/v1/runs"))
            await entered.acquire()
            overloaded = await c.get("/api/v1/commits")
            static = asyncio.create_task(c.get("/index.html"))  # not counted
            await entered.acquire()
            release.set()
            done = [await held, await held2, await static]
            after = await c.get("/api/v1/results?format=csv")
        return [export, overloaded, *done, after]

    export, overloaded, *done, after = asyncio.run(scenario())
    assert export.status_code == 429 and export.headers["retry-after"] == "2"
    assert "CSV exports" in export.json()["error"]["message"]
    assert overloaded.status_code == 503 and overloaded.headers["retry-after"] == "2"
    assert [r.status_code for r in done] == [200, 200, 200] and after.status_code == 200


def test_results_csv_is_streamed_in_chunks_and_equals_the_json_pages(client, auth,
                                                                     monkeypatch):
    from basketbench.web import listing
    from bb_factories import document

    monkeypatch.setattr(listing, "STREAM_CHUNK", 7)  # several cursor fetches
    for i in range(3):
        doc = document(commit=sha(i, "csv"), seed=i, datasets=("nanoaod", "physlite"))
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    pages = client.get("/api/v1/results?limit=1000").json()
    assert pages["total"] >= 20
    with client.stream("GET", "/api/v1/results?format=csv&limit=100000") as r:
        assert r.status_code == 200 and "content-length" not in r.headers
        text = "".join(r.iter_text())
    table = list(csv.DictReader(io.StringIO(text)))
    assert [int(t["id"]) for t in table] == [p["id"] for p in pages["items"]]
    first, item = table[0], pages["items"][0]
    assert float(first["compress_mbps.median"]) == item["compress_mbps"]["median"]
    assert json.loads(first["compress_mbps.samples"]) == item["compress_mbps"]["samples"]
    assert first["commit"] == item["commit"] and first["ratio"] == str(item["ratio"])
    part = client.get("/api/v1/results?format=csv&limit=5&offset=3").text
    assert [int(t["id"]) for t in csv.DictReader(io.StringIO(part))] == \
        [p["id"] for p in pages["items"][3:8]]
