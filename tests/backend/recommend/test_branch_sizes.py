"""Per-branch sizes stored and aggregated through the API (POST/GET /branch-sizes)."""

from __future__ import annotations

import pytest
from basketbench.measure.rzbench.runner import RzbenchNotFound, locate_rzbench, run_sizes
from bb_factories import document


@pytest.fixture(scope="module")
def sizes() -> list[dict]:
    try:
        binary = locate_rzbench()
    except RzbenchNotFound as exc:
        pytest.skip(str(exc))
    return run_sizes(synthetic=["nanoaod-offsets"], settings=[101, 505], binary=binary)[0][
        "branches"]


def test_upload_then_aggregate_per_branch_type_class_and_file(client, auth, sizes) -> None:
    commit = "c" * 40
    ingest = client.post("/api/v1/results", json=document(commit=commit), headers=auth)
    assert ingest.status_code < 300
    body = {"commit": commit, "dataset": "nanoaod-offsets", "branches": sizes}
    stored = client.post("/api/v1/branch-sizes", json=body, headers=auth)
    assert stored.status_code == 201, stored.text
    assert stored.json()["rows"] == 2 * len(sizes)
    # Uploading again replaces, never doubles.
    again = client.post("/api/v1/branch-sizes", json=body, headers=auth)
    assert again.json()["rows"] == 2 * len(sizes)

    def get(group_by: str) -> list[dict]:
        r = client.get("/api/v1/branch-sizes", params={
            "commit": commit, "dataset": "nanoaod-offsets", "group_by": group_by}, headers=auth)
        assert r.status_code == 200, r.text
        return r.json()["groups"]

    branches = get("branch")
    assert [g["key"] for g in branches] == [f"T/{b['branch']}" for b in sizes]
    for g, b in zip(branches, sizes, strict=True):
        assert g["raw_bytes"] == b["raw_bytes"]
        assert {(s["setting"], s["compressed_bytes"]) for s in g["sizes"]} == {
            (s["setting"], s["compressed_bytes"]) for s in b["sizes"]}
    total_raw = sum(b["raw_bytes"] for b in sizes)
    [whole] = get("file")
    assert whole["raw_bytes"] == total_raw and whole["share"] == 1.0
    for setting in (101, 505):
        summed = sum(s["compressed_bytes"] for b in sizes for s in b["sizes"]
                     if s["setting"] == setting)
        assert next(s["compressed_bytes"] for s in whole["sizes"]
                    if s["setting"] == setting) == summed
    classes = {g["key"]: g for g in get("type_class")}
    assert sum(g["raw_bytes"] for g in classes.values()) == total_raw
    assert sum(g["share"] for g in classes.values()) == pytest.approx(1.0)


def test_bad_uploads_and_queries_are_clear_errors(client, auth, sizes) -> None:
    commit = "d" * 40
    client.post("/api/v1/results", json=document(commit=commit), headers=auth)
    ok = {"commit": commit, "dataset": "x", "branches": sizes}
    assert client.post("/api/v1/branch-sizes", json=ok).status_code == 401
    r = client.post("/api/v1/branch-sizes", json={**ok, "commit": "f" * 40}, headers=auth)
    assert r.status_code == 404 and "commit" in r.text
    bad = [{**sizes[0], "type_class": "complex"}]
    r = client.post("/api/v1/branch-sizes", json={**ok, "branches": bad}, headers=auth)
    assert r.status_code == 422 and "type_class" in r.text
    r = client.get("/api/v1/branch-sizes", params={"commit": commit, "dataset": "nanoaod"},
                   headers=auth)
    assert r.status_code == 404 and "no branch sizes" in r.text
    r = client.get("/api/v1/branch-sizes", params={"commit": commit, "dataset": "nanoaod",
                                                   "group_by": "tree"}, headers=auth)
    assert r.status_code == 422 and "group_by" in r.text


def test_a_change_of_the_winning_setting_is_listed(client, auth) -> None:
    """Recommendations over history: commit 2 makes ZSTD-5 larger than ZLIB-1 (as PR #21753's
    shapes do), so a size-only model's winner flips there, and only there."""
    shas = [f"{i}" * 40 for i in (1, 2, 3)]
    for sha, zstd_scale in zip(shas, (1.0, 1.3, 1.3), strict=True):
        doc = document(commit=sha)
        for r in doc["results"]:
            if r["setting"] == 505:
                r["compressed_bytes"] = int(r["compressed_bytes"] * zstd_scale)
                r["ratio"] = r["uncompressed_bytes"] / r["compressed_bytes"]
            if r["setting"] == 207:  # leave LZMA out of this comparison
                r["compressed_bytes"] = 900_000
                r["ratio"] = r["uncompressed_bytes"] / r["compressed_bytes"]
        assert client.post("/api/v1/results", json=doc, headers=auth).status_code < 300
    r = client.get("/api/v1/recommend/history", headers=auth, params={
        "machine": "bench-01", "dataset": "nanoaod", "cpu_per_core_hour": 0})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [p["recommended"] for p in out["points"]] == ["505", "101", "101"]
    assert [(c["previous_sha"], c["sha"], c["from"], c["to"]) for c in out["changes"]] == [
        (shas[0], shas[1], "505", "101")]
    bad = client.get("/api/v1/recommend/history", headers=auth, params={
        "machine": "bench-01", "dataset": "nanoaod", "reads_per_file": -1})
    assert bad.status_code == 422 and "reads_per_file" in bad.text
    unknown = client.get("/api/v1/recommend/history", headers=auth, params={
        "machine": "nope", "dataset": "nanoaod"})
    assert unknown.status_code == 404
