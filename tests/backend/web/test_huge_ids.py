"""Ids beyond the database's integer range are bad input (4xx), never a 500."""

from __future__ import annotations

BIG = 2**70


def test_huge_ids_are_client_errors(client, auth):
    for method, path in (("get", f"/api/v1/runs/{BIG}"), ("get", f"/api/v1/machines/{BIG}"),
                         ("get", f"/api/v1/results?run={BIG}"),
                         ("get", f"/api/v1/history?machine={BIG}&dataset=x&setting=505"),
                         ("post", f"/api/v1/machines/{BIG}/heartbeat")):
        r = getattr(client, method)(path, headers=auth)
        assert r.status_code in (400, 404), (path, r.status_code)
        assert r.json()["error"]["code"] in ("bad_request", "not_found")
    r = client.patch(f"/api/v1/runs/{BIG}", json={}, headers=auth)
    assert r.status_code in (400, 404)
