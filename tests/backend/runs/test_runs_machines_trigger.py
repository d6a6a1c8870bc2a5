"""Machines (register, heartbeat), runs (list, get, PATCH), trigger, tokens, private reads."""

from __future__ import annotations

from basketbench.app import create_app
from bb_factories import MACHINE, document, sha
from fastapi.testclient import TestClient


def register(client, auth, name="bench-01", tag="haswell", fp=None):
    fp = fp or dict(MACHINE)
    return client.post("/api/v1/machines", json={"name": name, "tag": tag, "fingerprint": fp},
                       headers=auth)


def test_register_is_idempotent_and_a_new_fingerprint_is_a_new_version(client, auth):
    first = register(client, auth)
    assert first.status_code == 201 and first.json()["version"] == 1
    assert first.json()["created"] is True
    again = register(client, auth)
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    changed = dict(MACHINE, fingerprint_hash="0123456789abcdef", compiler="clang 17")
    newer = register(client, auth, fp=changed)
    assert newer.status_code == 201 and newer.json()["version"] == 2
    listed = client.get("/api/v1/machines?name=bench-01").json()
    assert [(m["version"], m["active"]) for m in listed["items"]] == [(1, False), (2, True)]
    clash = register(client, auth, tag="epyc")
    assert clash.status_code == 409 and clash.json()["error"]["code"] == "conflict"


def test_register_needs_token_and_valid_body(client, auth):
    assert register(client, {}).status_code == 401
    r = client.post("/api/v1/machines", json={"name": "x", "tag": "bad tag!",
                                              "fingerprint": {}}, headers=auth)
    assert r.status_code == 422 and r.json()["error"]["details"][0]["loc"][-1] == "tag"


def test_heartbeat(client, auth):
    mid = register(client, auth).json()["id"]
    r = client.post(f"/api/v1/machines/{mid}/heartbeat", headers=auth)
    assert r.status_code == 200 and r.json()["last_heartbeat"] is not None
    assert client.post("/api/v1/machines/999/heartbeat", headers=auth).status_code == 404
    assert client.post(f"/api/v1/machines/{mid}/heartbeat").status_code == 401
    assert client.get(f"/api/v1/machines/{mid}").json()["last_heartbeat"] is not None


def test_machine_counts_and_latest_commit(client, auth):
    client.post("/api/v1/results", json=document(commit=sha(1)), headers=auth)
    item = client.get("/api/v1/machines").json()["items"][0]
    assert item["result_count"] == 5 and item["latest_commit"] == sha(1)


def test_trigger_commits_range_and_default_tags(client, auth):
    register(client, auth)
    register(client, auth, name="arm-01", tag="armv8-crc",
             fp=dict(MACHINE, fingerprint_hash="feedfeedfeedfeed"))
    r = client.post("/api/v1/trigger", json={"commits": [sha(1), sha(2)]}, headers=auth)
    assert r.status_code == 202, r.text
    assert r.json()["tags"] == ["armv8-crc", "haswell"] and len(r.json()["run_ids"]) == 4
    # backfill: every commit between two in git order
    r = client.post("/api/v1/trigger", json={"commit_from": sha(1)[:8], "commit_to": sha(2),
                                             "tags": ["haswell"], "suite": "quick"},
                    headers=auth)
    assert r.status_code == 202 and r.json()["commits"] == [sha(1), sha(2)]
    runs = client.get("/api/v1/runs?tag=haswell").json()
    assert runs["total"] == 4
    assert {x["suite"] for x in runs["items"]} == {"default", "quick"}
    assert client.post("/api/v1/trigger", json={"commits": [sha(3)]}).status_code == 401
    assert client.post("/api/v1/trigger", json={}, headers=auth).status_code == 422
    bad = client.post("/api/v1/trigger", json={"commits": ["xyz"]}, headers=auth)
    assert bad.status_code == 422


def test_trigger_without_registered_tags_is_422(client, auth):
    r = client.post("/api/v1/trigger", json={"commits": [sha(1)]}, headers=auth)
    assert r.status_code == 422 and "tags" in r.json()["error"]["message"]


def test_worker_updates_a_run(client, auth):
    mid = register(client, auth).json()["id"]
    run_id = client.post("/api/v1/trigger", json={"commits": [sha(1)]},
                         headers=auth).json()["run_ids"][0]
    r = client.patch(f"/api/v1/runs/{run_id}", headers=auth, json={
        "status": "running", "stage": "build", "progress": 0.25, "machine_id": mid,
        "build_cache_hit": True, "timings": {"checkout_s": 1.5}})
    assert r.status_code == 200, r.text
    run = r.json()
    assert (run["status"], run["stage"], run["progress"], run["machine"], run["attempts"]) == (
        "running", "build", 0.25, "bench-01", 1)
    assert run["started_at"] is not None and run["build_cache_hit"] is True
    r = client.patch(f"/api/v1/runs/{run_id}", headers=auth, json={
        "status": "succeeded", "timings": {"bench_s": 30}, "log_tail": "done\n"})
    run = r.json()
    assert run["timings"] == {"checkout_s": 1.5, "bench_s": 30} and run["progress"] == 1.0
    assert run["finished_at"] is not None and run["log_tail"] == "done\n"
    assert client.get(f"/api/v1/runs/{run_id}").json()["status"] == "succeeded"
    assert client.get("/api/v1/runs?status=succeeded").json()["total"] == 1
    assert client.get("/api/v1/runs?status=queued").json()["total"] == 0
    assert client.get(f"/api/v1/runs?commit={sha(1)[:12]}").json()["total"] == 1
    assert client.get("/api/v1/runs?stage=build").json()["total"] == 1
    assert client.get("/api/v1/runs?stage=bench").json()["total"] == 0


def test_run_update_errors(client, auth):
    register(client, auth)
    run_id = client.post("/api/v1/trigger", json={"commits": [sha(1)]},
                         headers=auth).json()["run_ids"][0]
    assert client.patch(f"/api/v1/runs/{run_id}", json={"status": "bogus"},
                        headers=auth).status_code == 422
    assert client.patch(f"/api/v1/runs/{run_id}", json={"progress": 2},
                        headers=auth).status_code == 422
    assert client.patch(f"/api/v1/runs/{run_id}", json={"machine_id": 999},
                        headers=auth).status_code == 422
    assert client.patch("/api/v1/runs/999", json={}, headers=auth).status_code == 404
    assert client.patch(f"/api/v1/runs/{run_id}", json={}).status_code == 401
    r = client.get("/api/v1/runs/999")
    assert r.status_code == 404 and r.json() == {
        "error": {"code": "not_found", "message": "unknown run 999", "details": []}}


def test_private_reads(settings, token):
    app = create_app(settings.model_copy(update={"private_reads": True}))
    with TestClient(app) as c:
        assert c.get("/api/v1/commits").status_code == 401
        ok = c.get("/api/v1/commits", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200
        assert c.get("/api/v1/health").status_code == 200


def test_trigger_rejects_bad_tags(client, auth):
    r = client.post("/api/v1/trigger", json={"commits": [sha(1)], "tags": ["t" * 101]},
                    headers=auth)
    assert r.status_code == 422
    r = client.post("/api/v1/trigger", json={"commits": [sha(1)], "tags": ["a b"]},
                    headers=auth)
    assert r.status_code == 422
