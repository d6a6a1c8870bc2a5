"""Lossy sweeps through the API: upload a real `basketbench lossy` document of HZZ's muons,
read the size-against-error view and a series' history over two commits (PostgreSQL)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.rootio.root_files import default_root_files
from bb_factories import document


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    hzz = next((p for p in default_root_files() if p.name == "uproot-HZZ.root"), None)
    if hzz is None:
        pytest.skip("uproot-HZZ.root is neither in ../shared nor in the testdata wheel")
    return sweep(hzz, SweepOptions(settings=[505, 404], bits=[12, 20], columns=["Muon_*"]))


def _commit(client: Any, auth: dict[str, str], sha: str) -> None:
    assert client.post("/api/v1/results", json=document(commit=sha), headers=auth).status_code \
        < 300


def test_upload_view_and_history(client: Any, auth: dict[str, str], doc: dict[str, Any]) -> None:
    shas = ["a" * 40, "b" * 40]
    for sha in shas:
        _commit(client, auth, sha)
    later = copy.deepcopy(doc)
    for r in later["results"]:  # the second commit's codecs save 10 bytes more on trunc12
        if r["representation"] == "trunc" and r["bits"] == 12:
            r["compressed_bytes"] -= 10
    stored = [client.post("/api/v1/lossy-sweeps", json={"commit": sha, "document": d},
                          headers=auth) for sha, d in zip(shas, (doc, later), strict=True)]
    assert [s.status_code for s in stored] == [201, 201], stored[0].text
    assert stored[0].json()["rows"] == len(doc["results"]) == 5 * 2 * (2 + 2 + 2)
    again = client.post("/api/v1/lossy-sweeps", json={"commit": shas[0], "document": doc},
                        headers=auth)
    assert again.status_code == 201  # replaces, never doubles
    listed = client.get("/api/v1/lossy-sweeps", params={"file": "uproot-HZZ.root"}).json()
    assert sorted(s["commit"] for s in listed["sweeps"]) == shas

    sweep_id = again.json()["id"]
    view = client.get(f"/api/v1/lossy-sweeps/{sweep_id}", params={"setting": 505}).json()
    assert set(view["columns"]) == {"Muon_Px", "Muon_Py", "Muon_Pz", "Muon_E", "Muon_Iso"}
    expected = {(r["column"], r["representation"], r["bits"]): r for r in doc["results"]
                if r["setting"] == 505}
    assert len(view["points"]) == len(expected)
    for p in view["points"]:
        source = expected[(p["column"], p["representation"], p["bits"])]
        assert p["compressed_bytes"] == source["compressed_bytes"]
        assert p["max_rel_error"] == source["max_rel_error"]
        assert p["saved_pct"] == pytest.approx(source["saved_pct"], abs=1e-3)
    assert {e["quantity"] for e in view["physics"]} == {"dimuon mass (GeV)"}
    one = client.get(f"/api/v1/lossy-sweeps/{sweep_id}",
                     params={"setting": 404, "column": "Muon_E"}).json()
    assert {p["column"] for p in one["points"]} == {"Muon_E"} and one["setting"] == 404

    history = client.get("/api/v1/lossy/history", params={
        "file": "uproot-HZZ.root", "column": "Muon_Px", "representation": "trunc", "bits": 12,
        "setting": 505}).json()
    points = history["points"]
    assert [p["commit"] for p in points] == shas
    assert points[0]["compressed_bytes"] - points[1]["compressed_bytes"] == 10


def test_bad_uploads_and_queries(client: Any, auth: dict[str, str], doc: dict[str, Any]) -> None:
    _commit(client, auth, "c" * 40)
    ok = {"commit": "c" * 40, "document": doc}
    assert client.post("/api/v1/lossy-sweeps", json=ok).status_code == 401
    r = client.post("/api/v1/lossy-sweeps", json={**ok, "commit": "e" * 40}, headers=auth)
    assert r.status_code == 404 and "commit" in r.text
    bad = copy.deepcopy(doc)
    bad["results"][0]["bits"] = 40
    r = client.post("/api/v1/lossy-sweeps", json={**ok, "document": bad}, headers=auth)
    assert r.status_code == 422 and "bits" in r.text
    bad = copy.deepcopy(doc)
    bad["results"].append(bad["results"][0])
    r = client.post("/api/v1/lossy-sweeps", json={**ok, "document": bad}, headers=auth)
    assert r.status_code == 422 and "repeat" in r.text
    bad = {**doc, "schema": "something-else"}
    assert client.post("/api/v1/lossy-sweeps", json={**ok, "document": bad},
                       headers=auth).status_code == 422
    sweep_id = client.post("/api/v1/lossy-sweeps", json=ok, headers=auth).json()["id"]
    r = client.get(f"/api/v1/lossy-sweeps/{sweep_id}", params={"setting": 101})
    assert r.status_code == 422 and "not in this sweep" in r.text
    r = client.get(f"/api/v1/lossy-sweeps/{sweep_id}", params={"column": "Nope"})
    assert r.status_code == 404 and "Nope" in r.text
    assert client.get("/api/v1/lossy-sweeps/999999").status_code == 404
    r = client.get("/api/v1/lossy/history", params={
        "file": "x.root", "column": "Muon_Px", "representation": "trunc", "bits": 12,
        "setting": 505})
    assert r.status_code == 404 and "no lossy results" in r.text
    r = client.get("/api/v1/lossy/history", params={
        "file": "x.root", "column": "Muon_Px", "representation": "zip", "bits": 12,
        "setting": 505})
    assert r.status_code == 422
