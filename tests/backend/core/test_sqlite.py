"""The embedded default: the same API on a SQLite file (no PostgreSQL involved)."""

from __future__ import annotations

from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.tokens import create_token
from bb_factories import MACHINE, document, make_settings, post_webhook, push_payload, sha
from fastapi.testclient import TestClient


def test_every_query_kind_on_sqlite(tmp_path):
    settings = make_settings(f"sqlite:///{tmp_path / 'bb.sqlite'}")
    migrate.upgrade(settings)
    app = create_app(settings)
    with TestClient(app) as client:
        with app.state.sessionmaker() as session:
            _, token = create_token(session, "t")
        auth = {"Authorization": f"Bearer {token}"}
        shas = [sha(i, "lite") for i in range(3)]
        assert client.post("/api/v1/machines", headers=auth, json={
            "name": "bench-01", "tag": "haswell", "fingerprint": MACHINE}).status_code == 201
        r = post_webhook(client, "push", push_payload(shas), "lite-1")
        assert r.status_code == 202 and len(r.json()["run_ids"]) == 3
        for i, s in enumerate(shas):
            doc = document(commit=s, scale=0.9 if i == 2 else 1.0, seed=i)
            assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
        assert client.post("/api/v1/results", json=document(commit=shas[0], seed=0),
                           headers=auth).json()["duplicate"] is True
        # Change detection queued confirmation reruns of commits 1 and 2: upload them.
        confirm = [r for r in client.get("/api/v1/runs").json()["items"]
                   if r["trigger"] == "confirm"]
        assert len(confirm) == 4
        for k, run in enumerate(confirm):
            doc = document(commit=run["commit"], scale=0.9 if run["commit"] == shas[2] else 1.0,
                           seed=10 + k, run_id=run["id"])
            assert client.post("/api/v1/results", json=doc, headers=auth).status_code == 201
        hist = client.get("/api/v1/history?machine=bench-01&dataset=nanoaod&setting=505").json()
        assert hist["total_points"] == 3 and [c["sha"] for c in hist["changes"]] == [shas[2]]
        trade = client.get(f"/api/v1/tradeoff?commit={shas[0]}&machine=bench-01"
                           "&dataset=nanoaod&reference=505").json()
        assert len(trade["points"]) == 5
        comp = client.get(f"/api/v1/compare?base_commit={shas[0]}&head_commit={shas[2]}"
                          "&machine=bench-01&metric=compress_mbps").json()
        # two runs at different times, no A/B or counts: the -10 %, no verdict (issue 32)
        assert all(row["evidence"] == {"kind": "none"} and not row["significant"]
                   and row["delta_pct"] < -8 for row in comp["rows"]
                   if row["configuration"]["codec"] != "memcpy")
        assert client.get("/api/v1/configurations/latest").json()["total"] == 5
        assert client.get(f"/api/v1/configurations?commit_from={shas[1]}&dataset=nanoaod"
                          ).json()["total"] == 5
        assert client.get("/api/v1/results?limit=2").json()["total"] == 15 + 4 * 5  # + reruns
        assert client.get("/api/v1/runs?format=csv").text.count("\n") == 8
