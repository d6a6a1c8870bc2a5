"""Through the real `basketbench serve` subprocess (conftest's api_server fixture)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from bb_factories import document, push_payload, sha, sign

pytestmark = pytest.mark.integration

BASKETBENCH = str(Path(sys.executable).with_name("basketbench"))


def cli(server, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BASKETBENCH, *args], env=server.env, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture
def api_server(api_server_factory):
    # Runs stay queued: these tests are about the API, not the embedded runner.
    return api_server_factory(BASKETBENCH_DISPATCH="none")


def test_served_api_ingests_queries_and_takes_webhooks(api_server):
    with httpx.Client(base_url=api_server.api, timeout=30) as http:
        health = http.get("/health").json()
        assert health["status"] == "ok" and health["database"] == "ok"
        assert http.get("/openapi.json").json()["paths"]["/api/v1/history"]
        assert "swagger" in httpx.get(api_server.url + "/docs").text.lower()

        assert http.post("/results", json=document()).status_code == 401
        r = http.post("/results", json=document(commit=sha(1, "s")), headers=api_server.headers)
        assert r.status_code == 201, r.text
        again = http.post("/results", json=document(commit=sha(1, "s")),
                          headers=api_server.headers)
        assert again.status_code == 200 and again.json()["duplicate"]
        tradeoff = http.get("/tradeoff", params={"commit": sha(1, "s")[:10],
                                                 "machine": "bench-01", "dataset": "nanoaod"})
        assert len(tradeoff.json()["points"]) == 5

        # bench-01 came by ingest only: its tag gets runs once declared a worker tag
        assert http.put("/worker-tags/haswell", headers=api_server.headers).status_code == 200
        body = json.dumps(push_payload([sha(2, "s")])).encode()
        headers = {"X-GitHub-Event": "push", "X-GitHub-Delivery": "serve-1",
                   "Content-Type": "application/json"}
        bad = http.post("/webhooks/github", content=body,
                        headers={**headers, "X-Hub-Signature-256": "sha256=" + "0" * 64})
        assert bad.status_code == 401
        ok = http.post("/webhooks/github", content=body,
                       headers={**headers, "X-Hub-Signature-256": sign(
                           body, api_server.webhook_secret)})
        assert ok.status_code == 202
        # haswell is a worker tag, so the new commit got one run
        assert len(ok.json()["run_ids"]) == 1
        assert http.get("/commits").json()["total"] == 2
        csv_text = http.get("/results", params={"format": "csv"}).text
        assert csv_text.splitlines()[0].startswith("id,") and len(csv_text.splitlines()) == 6


def test_token_commands_against_the_served_database(api_server):
    unscoped = cli(api_server, "token", "create", "--name", "ci")
    assert unscoped.returncode == 2 and "--scope" in unscoped.stderr  # a scope is chosen
    machine = cli(api_server, "token", "create", "--scope", "machine", "--tag", "x",
                  "--name", "bench-01")
    assert machine.returncode == 0, machine.stderr
    assert "machine token" in machine.stderr and "tags x" in machine.stderr
    bad = cli(api_server, "token", "create", "--scope", "user", "--tag", "x")
    assert bad.returncode == 2 and "machine tokens only" in bad.stderr
    created = cli(api_server, "token", "create", "--scope", "user", "--name", "ci")
    assert created.returncode == 0, created.stderr
    token = created.stdout.strip().splitlines()[-1]
    assert token.startswith("bb_") and len(token) > 40
    auth = {"Authorization": f"Bearer {token}"}
    url = api_server.api + "/trigger"
    assert httpx.post(url, json={"commits": [sha(9)], "tags": ["x"]}, headers=auth
                      ).status_code == 202
    machine_auth = {"Authorization": f"Bearer {machine.stdout.strip().splitlines()[-1]}"}
    assert httpx.post(url, json={"commits": [sha(9)], "tags": ["x"]}, headers=machine_auth
                      ).status_code == 403  # a machine token cannot trigger
    listed = cli(api_server, "token", "list").stdout
    assert "ci" in listed and "tests" in listed and token not in listed
    assert "\tci\tuser\t" in listed and "\tbench-01\tmachine\ttags x\t" in listed
    assert cli(api_server, "token", "revoke", "ci").returncode == 0
    assert httpx.post(url, json={"commits": [sha(9)], "tags": ["x"]}, headers=auth
                      ).status_code == 401
    missing = cli(api_server, "token", "revoke", "no-such-token")
    assert missing.returncode == 1 and "no active token" in missing.stderr


def test_serves_the_built_frontend_with_history_fallback(api_server_factory, tmp_path):
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><div id=root>basketbench-spa</div>")
    (dist / "assets" / "app.js").write_text("console.log('spa')")
    (dist / "favicon.svg").write_text("<svg/>")
    server = api_server_factory(BASKETBENCH_FRONTEND_DIST=str(dist), BASKETBENCH_DISPATCH="none")
    assert "basketbench-spa" in httpx.get(server.url + "/").text
    assert "basketbench-spa" in httpx.get(server.url + "/history/bench-01/nanoaod").text
    js = httpx.get(server.url + "/assets/app.js")
    assert js.status_code == 200 and "spa" in js.text
    assert httpx.get(server.url + "/favicon.svg").text == "<svg/>"
    big = "console.log('a bundle well above the gzip threshold');\n" * 200
    (dist / "assets" / "big.js").write_text(big)
    zipped = httpx.get(server.url + "/assets/big.js", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["content-encoding"] == "gzip" and zipped.text == big
    assert zipped.num_bytes_downloaded < len(big) / 10
    assert "basketbench-spa" in httpx.get(server.url + "/../../etc/passwd").text
    missing = httpx.get(server.api + "/no-such-endpoint")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


def test_embedded_sqlite_when_no_database_url(api_server_factory):
    server = api_server_factory(BASKETBENCH_DATABASE_URL=None, BASKETBENCH_DISPATCH="none")
    data_dir = Path(server.env["BASKETBENCH_DATA_DIR"])
    assert (data_dir / "basketbench.sqlite").is_file()
    r = httpx.post(server.api + "/results", json=document(commit=sha(3)),
                   headers=server.headers, timeout=30)
    assert r.status_code == 201, r.text
    history = httpx.get(server.api + "/history", params={
        "machine": "bench-01", "dataset": "nanoaod", "setting": 505}).json()
    assert history["total_points"] == 1 and httpx.get(server.api + "/health").json()["embedded"]


def _worker_processes(parent: int) -> list[int]:
    """uvicorn's worker processes under ``parent`` (multiprocessing spawn children)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and b"spawn_main" in cmdline:
            found.append(int(stat.parent.name))
    return found


def test_two_api_processes_share_the_database(api_server_factory):
    """BASKETBENCH_API_WORKERS=2: two processes answer; concurrent uploads of new commits
    and of one same document are each stored once."""
    server = api_server_factory(BASKETBENCH_DISPATCH="none", BASKETBENCH_API_WORKERS="2")
    deadline = time.monotonic() + 60
    while len(_worker_processes(server.process.pid)) < 2:  # the second may still start
        assert time.monotonic() < deadline, server.log()
        time.sleep(0.1)
    docs = [document(commit=sha(i, "w2")) for i in range(6)] + [document(commit=sha(0, "w2"))]

    def post(doc):
        with httpx.Client(base_url=server.api, timeout=60) as http:
            return http.post("/results", json=doc, headers=server.headers)

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(post, docs))
    assert sorted(a.status_code for a in answers) == [200] + [201] * 6, [a.text for a in answers]
    assert len({a.json()["document_id"] for a in answers}) == 6
    commits = httpx.get(server.api + "/commits", params={"limit": 50}).json()
    assert commits["total"] == 6
    history = httpx.get(server.api + "/history", params={
        "machine": "bench-01", "dataset": "nanoaod", "setting": 505}).json()
    assert history["total_points"] == 6
