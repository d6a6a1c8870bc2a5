"""Per-branch and per-type-class recommendations: POST /recommend/groups ranks as the CLI did."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from basketbench.measure.advise.groups import GroupSizes, recommend_groups
from basketbench.measure.advise.ranking import Candidate, CostModel, cost_of

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "advise-hzz-zlib.json"


@pytest.fixture(scope="module")
def advice() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(FIXTURE.read_text())
    return doc


@pytest.mark.parametrize("kind", ["type_classes", "branches"])
def test_api_recommends_every_group_as_the_cli_did(client, auth, advice, kind) -> None:
    """The page's numbers (the API) are the CLI's per-branch and per-type-class numbers."""
    body = {"groups": advice[kind], "speeds": advice["measured"], "model": advice["model"]}
    r = client.post("/api/v1/recommend/groups", json=body, headers=auth)
    assert r.status_code == 200, r.text
    out = r.json()
    assert [g["key"] for g in out["groups"]] == [g["key"] for g in advice[kind]]
    for got, cli in zip(out["groups"], advice[kind], strict=True):
        assert got["recommended"] == cli["recommended"], got["key"]
        assert got["ranking"] == cli["ranking"], got["key"]
        assert got["summary"] == cli["summary"], got["key"]
        assert got["margin"] == pytest.approx(cli["margin"], rel=1e-12)
        assert got["share"] == cli["share"]
    # The summed groups are the file: its single best setting and cost are the CLI's.
    assert out["file_recommended"] == advice["recommended"]
    file_best = advice["ranking"][0]
    assert out["cost_at_file_best"] == pytest.approx(file_best["cost_total"], rel=1e-9)
    assert out["compressed_bytes_at_file_best"] == file_best["compressed_bytes"]
    # Each group at its own winner: never dearer, and the saving is the sum of the groups'.
    own = sum(g["cost_total"] for g in out["groups"])
    assert out["cost_per_group"] == pytest.approx(own, rel=1e-12)
    assert out["saving"] == pytest.approx(out["cost_at_file_best"] - own, rel=1e-9)
    assert all(g["cost_total"] <= g["cost_at_file_best"] for g in out["groups"])
    assert out["settings_used"] == len({g["recommended"] for g in advice[kind]})


def test_per_group_settings_save_exactly_the_cheaper_groups_difference() -> None:
    """Two branches preferring different settings: the saving is hand-checkable."""
    speeds = {(101, "none"): (50.0, 300.0), (505, "none"): (50.0, 300.0)}  # equal speeds
    model = CostModel(cpu_per_core_hour=0.0)  # storage only: the smaller wins
    a = GroupSizes("t/a", "float", 1000, 0.5, {(101, "none"): 400, (505, "none"): 300})
    b = GroupSizes("t/b", "counts", 1000, 0.5, {(101, "none"): 100, (505, "none"): 150})
    out = recommend_groups([a, b], speeds, model)
    assert out["file_recommended"] == "505"  # 450 bytes against 500
    # the branch preferring another setting than the file's comes first, with its saving
    assert [(g["key"], g["recommended"], g["differs"]) for g in out["groups"]] == [
        ("t/b", "101", True), ("t/a", "505", False)]
    assert out["groups"][0]["saving_bytes"] == 50 and out["differing"] == 1
    assert 'tree->GetBranch("b")->SetCompressionSettings(101);' in out["snippet"]
    assert out["compressed_bytes_at_file_best"] == 450
    assert out["compressed_bytes_per_group"] == 400
    per_byte = cost_of(Candidate(101, "none", 1000, 1, 50.0, 300.0), model).total
    assert out["saving"] == pytest.approx(50 * per_byte)
    assert out["saving_fraction"] == pytest.approx(50 / 450)
    assert out["settings_used"] == 2


def test_a_group_without_speeds_is_listed_without_a_recommendation() -> None:
    speeds = {(101, "none"): (50.0, 300.0)}
    g = GroupSizes("t/x", "float", 1000, 1.0, {(505, "none"): 300})
    out = recommend_groups([g], speeds, CostModel())
    assert out["groups"][0]["recommended"] is None and out["file_recommended"] is None
    assert out["saving"] == 0.0


def test_bad_input_is_a_422_naming_the_field(client, auth, advice) -> None:
    speeds = advice["measured"]
    url = "/api/v1/recommend/groups"
    twice = client.post(url, headers=auth, json={
        "groups": advice["type_classes"], "speeds": [speeds[0], speeds[0]]})
    assert twice.status_code == 422 and "speeds[1]" in twice.text
    group = dict(advice["branches"][0])
    tiny = {"key": "b", "raw_bytes": 10, "sizes": [{"setting": 101, "compressed_bytes": 5}]}
    too_many = client.post(url, headers=auth, json={"groups": [tiny] * 5001, "speeds": speeds})
    assert too_many.status_code == 422 and "groups" in too_many.text
    negative = dict(group, sizes=[{"setting": 101, "compressed_bytes": -1}])
    bad = client.post(url, headers=auth, json={"groups": [negative], "speeds": speeds})
    assert bad.status_code == 422 and "compressed_bytes" in bad.text
    no_speeds = client.post(url, headers=auth, json={"groups": [group], "speeds": []})
    assert no_speeds.status_code == 422 and "speeds" in no_speeds.text


def test_stored_branch_sizes_feed_the_same_recommendation(client, auth, advice) -> None:
    """The page's tracker source: GET /branch-sizes groups go to /recommend/groups unchanged."""
    from bb_factories import document

    commit = "d" * 40
    ingest = client.post("/api/v1/results", json=document(commit=commit), headers=auth)
    assert ingest.status_code < 300
    rows = [
        {"tree": b["key"].split("/")[0], "branch": b["key"].split("/", 1)[1],
         "type_class": b["type_class"], "baskets": b["baskets"], "raw_bytes": b["raw_bytes"],
         "sizes": b["sizes"]}
        for b in advice["branches"]
    ]
    stored = client.post("/api/v1/branch-sizes", headers=auth, json={
        "commit": commit, "dataset": "hzz", "branches": rows})
    assert stored.status_code == 201, stored.text
    for group_by, kind in (("branch", "branches"), ("type_class", "type_classes")):
        got = client.get("/api/v1/branch-sizes", headers=auth, params={
            "commit": commit, "dataset": "hzz", "group_by": group_by})
        assert got.status_code == 200, got.text
        r = client.post("/api/v1/recommend/groups", headers=auth, json={
            "groups": got.json()["groups"], "speeds": advice["measured"], "model": advice["model"]})
        assert r.status_code == 200, r.text
        cli = {g["key"]: g["recommended"] for g in advice[kind]}
        assert {g["key"]: g["recommended"] for g in r.json()["groups"]} == cli


def test_no_stored_sizes_is_an_empty_answer_when_asked(client, auth) -> None:
    """The page asks with allow_empty (a 404 would be a console error on every visit)."""
    from bb_factories import document

    commit = "e" * 40
    doc = document(commit=commit)
    assert client.post("/api/v1/results", json=doc, headers=auth).status_code < 300
    dataset = doc["datasets"][0]["name"]
    params = {"commit": commit, "dataset": dataset, "group_by": "type_class"}
    assert client.get("/api/v1/branch-sizes", params=params, headers=auth).status_code == 404
    empty = client.get("/api/v1/branch-sizes", params={**params, "allow_empty": "true"},
                       headers=auth)
    assert empty.status_code == 200 and empty.json()["groups"] == []
