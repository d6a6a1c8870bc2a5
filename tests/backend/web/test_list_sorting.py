"""Lists sorted, filtered and counted on the server over every row, not one page of them."""

from __future__ import annotations

import pytest
from bb_factories import MACHINE, document, post_webhook, push_payload, sha


@pytest.fixture
def two_machines(client, auth):
    shas = [sha(i, "s") for i in range(3)]
    assert post_webhook(client, "push", push_payload(shas), "sort").status_code == 202
    other = dict(MACHINE, hostname="epyc-01", fingerprint_hash="e1e1e1e1e1e1e1e1")
    for i, s in enumerate(shas):
        doc = document(commit=s, seed=i, datasets=("nanoaod", "physlite"))
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
        doc = document(commit=s, machine="epyc-01", tag="epyc", scale=1.3, seed=10 + i)
        doc["machine"] = other
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    for tag in ("haswell", "epyc"):  # ingest alone makes no worker tag
        assert client.put(f"/api/v1/worker-tags/{tag}", headers=auth).status_code == 200
    return shas


def test_latest_is_sorted_over_all_rows_before_paging(client, two_machines):
    everything = client.get("/api/v1/configurations/latest?limit=1000").json()
    n = everything["total"]
    assert n == 15  # 5 settings x (2 datasets on bench-01 + 1 on epyc-01)
    speeds = sorted((r["compress_mbps"] for r in everything["items"]), reverse=True)
    page1 = client.get("/api/v1/configurations/latest?limit=4&sort=-compress_mbps").json()
    assert page1["total"] == n
    assert [r["compress_mbps"] for r in page1["items"]] == speeds[:4]
    page2 = client.get("/api/v1/configurations/latest?limit=4&offset=4&sort=-compress_mbps")
    assert [r["compress_mbps"] for r in page2.json()["items"]] == speeds[4:8]
    # Sorted by machine, page 1 of 5 rows holds epyc-01's rows even though it comes second
    # in the default order (the "page 1 had no haswell rows" bug).
    by_machine = client.get("/api/v1/configurations/latest?limit=5&sort=machine").json()
    assert {r["machine"]["name"] for r in by_machine["items"]} == {"bench-01"}
    last = client.get("/api/v1/configurations/latest?limit=5&sort=-machine").json()
    assert {r["machine"]["name"] for r in last["items"]} == {"epyc-01"}


def test_unknown_sort_key_is_a_clear_422(client, two_machines):
    r = client.get("/api/v1/configurations/latest?sort=colour")
    assert r.status_code == 422
    assert "unknown sort key 'colour'" in r.text and "compress_mbps" in r.text
    r = client.get("/api/v1/runs?sort=-colour")
    assert r.status_code == 422 and "unknown sort key" in r.text


def test_runs_sort_and_queue_counts_over_every_run(client, auth, two_machines):
    # 3 commits x 2 registered tags = 6 runs; move some along as a worker would.
    created = client.post("/api/v1/trigger", json={"commits": two_machines},
                          headers=auth).json()["run_ids"]
    assert len(created) == 6
    runs = {r["id"]: r for r in client.get("/api/v1/runs?limit=1000").json()["items"]}
    haswell = sorted(i for i in created if runs[i]["tag"] == "haswell")
    assert client.patch(f"/api/v1/runs/{haswell[0]}", json={"status": "running", "stage": "build",
                                                            "progress": 0.25},
                        headers=auth).status_code == 200
    assert client.patch(f"/api/v1/runs/{haswell[1]}", json={"status": "failed"},
                        headers=auth).status_code == 200
    # A page of 1 run does not change the counts: they are computed over all runs.
    assert client.get("/api/v1/runs?limit=1").json()["total"] == 6
    queues = {q["tag"]: q for q in client.get("/api/v1/runs/queues").json()}
    assert queues["haswell"]["counts"] == {"queued": 1, "running": 1, "failed": 1}
    assert queues["epyc"]["counts"] == {"queued": 3}
    assert [r["id"] for r in queues["haswell"]["running"]] == [haswell[0]]
    assert queues["haswell"]["running"][0]["progress"] == 0.25
    ascending = client.get("/api/v1/runs?sort=id&limit=2").json()["items"]
    assert [r["id"] for r in ascending] == sorted(created)[:2]
    by_status = client.get("/api/v1/runs?sort=status&limit=1000").json()["items"]
    assert [r["status"] for r in by_status] == sorted(r["status"] for r in by_status)


def test_commit_search_covers_the_whole_history(client, auth):
    shas = [sha(i, "h") for i in range(1200)]
    payload = push_payload(shas)
    for i, c in enumerate(payload["commits"]):
        c["timestamp"] = f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}+00:00"
        c["author"] = {"name": "Ada Quillfeather" if i == 3 else "Dev", "email": "a@example.org"}
    assert post_webhook(client, "push", payload, "h1").status_code == 202
    assert client.get("/api/v1/commits?limit=5").json()["total"] == 1200
    # the oldest commits lie beyond the newest 1000 (one page) and are still found:
    # by sha prefix, by author and by message
    found = client.get(f"/api/v1/commits?q={shas[0][:8]}").json()
    assert [c["sha"] for c in found["items"]] == [shas[0]]
    by_author = client.get("/api/v1/commits?q=quillfeather").json()
    assert [c["sha"] for c in by_author["items"]] == [shas[3]]
    by_message = client.get("/api/v1/commits?q=commit 7%0A").json()
    assert shas[7] in [c["sha"] for c in by_message["items"]]


def test_dimensions_tell_synthetic_from_real_datasets(client, auth):
    doc = document(commit=sha(1, "syn"), datasets=("nanoaod", "event"))
    doc["datasets"][1]["source"] = "synthetic:event"
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
    dims = client.get("/api/v1/configurations/dimensions").json()
    assert dims["datasets"] == ["event", "nanoaod"]
    assert dims["synthetic_datasets"] == ["event"]
