"""The inbox at scale: one line per commit, machine and cause, paged with totals, and one
status for many changes at once (all or none)."""

from __future__ import annotations

from bb_factories import sha
from changes_support import changes, ingest, make_doc
from fastapi.testclient import TestClient


def test_summary_lines_and_bulk_status(client: TestClient, auth: dict[str, str]) -> None:
    for i in range(4):
        ingest(client, auth, make_doc(i))
    ingest(client, auth, make_doc(4, size_scale=1.03))  # ZSTD-5 sizes +3 % on 2 datasets
    rows = changes(client)
    assert len(rows) == 4
    page = client.get("/api/v1/changes/summary").json()
    assert page["total"] == 2 and page["changes"] == 4 and page["offset"] == 0
    by_metric = {ln["metric"]: ln for ln in page["items"]}
    size = by_metric["compressed_bytes"]
    assert size["commit"]["sha"] == sha(4) and size["direction"] == "regression"
    assert size["codec"] == "zstd" and size["datasets"] == ["hzz", "nanoaod"]
    assert size["changes"] == 2 and size["statuses"] == {"open": 2}
    assert size["line"].startswith("ZSTD compressed size +3.00 %")
    assert size["line"].endswith("2 series on 2 datasets, bench-01")
    ids = {r["id"] for r in rows if r["metric"] == "compressed_bytes"}
    assert set(size["change_ids"]) == ids
    # filters and paging
    assert client.get("/api/v1/changes/summary?metric=ratio").json()["total"] == 1
    assert client.get("/api/v1/changes/summary?codec=zlib").json()["total"] == 0
    assert client.get("/api/v1/changes/summary?dataset=hzz").json()["changes"] == 2
    second = client.get("/api/v1/changes/summary?limit=1&offset=1").json()
    assert second["total"] == 2 and [ln["line"] for ln in second["items"]] == [
        page["items"][1]["line"]]
    assert len(changes(client, codec="zstd")) == 4 and not changes(client, codec="lz4")
    assert client.get("/api/v1/changes/summary?limit=0").status_code == 422

    url = "/api/v1/changes/status"
    body = {"change_ids": sorted(ids), "status": "ignored", "reason": "planted step"}
    assert client.post(url, json=body).status_code == 401
    no_reason = client.post(url, json={**body, "reason": " "}, headers=auth)
    assert no_reason.status_code == 400 and "reason" in no_reason.json()["error"]["message"]
    unknown = client.post(url, json={**body, "change_ids": [*ids, 999_999]}, headers=auth)
    assert unknown.status_code == 404 and "999999" in unknown.json()["error"]["message"]
    assert {r["status"] for r in changes(client)} == {"open"}  # nothing half written
    done = client.post(url, json=body, headers=auth)
    assert done.status_code == 200 and done.json()["updated"] == 2
    after = {r["id"]: r for r in changes(client, status="ignored")}
    assert set(after) == ids and {r["status_reason"] for r in after.values()} == {
        "planted step"}
    assert client.get("/api/v1/changes/summary?status=open").json()["changes"] == 2
