"""Issue 38: /recommend and /recommend/groups check what the CLI checks (settings `advise`
ranks, each once) and accept a bounded amount of work per request (docs/API.md)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from basketbench.recommend.schemas import GROUP_WEIGHT, MAX_CANDIDATES, MAX_GROUP_WORK
from fastapi.testclient import TestClient

KEYS = [(a * 100 + level, p) for a in (1, 2, 4, 5) for level in range(10)
        for p in ("none", "shuffle", "bitshuffle")]


def cand(setting: int, pre: str = "none", size: int = 500) -> dict[str, Any]:
    return {"setting": setting, "preconditioner": pre, "raw_bytes": 1000,
            "compressed_bytes": size, "compress_mb_s": 50.0, "decompress_mb_s": 300.0}


@pytest.mark.parametrize("candidates", [
    [cand(101), cand(101, size=400)],  # a setting twice
    [cand(0), cand(101)],  # uncompressed
    [cand(301), cand(101)],  # ROOT's old zlib
    [cand(110), cand(101)],  # level 10
    [cand(600), cand(101)],
])
def test_recommend_refuses_what_the_cli_refuses(client: TestClient,
                                                candidates: list[dict[str, Any]]) -> None:
    r = client.post("/api/v1/recommend", json={"candidates": candidates})
    assert r.status_code == 422, r.text
    assert r.json()["error"]["code"] == "invalid"


def test_recommend_takes_every_advise_setting_once(client: TestClient) -> None:
    assert len(KEYS) == MAX_CANDIDATES
    body = {"candidates": [cand(s, p, 100 + i) for i, (s, p) in enumerate(KEYS)]}
    r = client.post("/api/v1/recommend", json=body)
    assert r.status_code == 200 and len(r.json()["ranking"]) == MAX_CANDIDATES


def group(key: str, sizes: list[tuple[int, str]]) -> dict[str, Any]:
    return {"key": key, "raw_bytes": 1000, "sizes": [
        {"setting": s, "preconditioner": p, "compressed_bytes": 100 + i}
        for i, (s, p) in enumerate(sizes)]}


SPEEDS = [{"setting": s, "preconditioner": p, "compress_mb_s": 10.0 + i,
           "decompress_mb_s": 100.0 + i} for i, (s, p) in enumerate(KEYS)]


def test_groups_refuse_a_repeated_size_or_speed(client: TestClient) -> None:
    twice = group("b", [(101, "none"), (101, "none")])
    r = client.post("/api/v1/recommend/groups", json={"groups": [twice], "speeds": SPEEDS})
    assert r.status_code == 422 and "given twice" in r.text
    r = client.post("/api/v1/recommend/groups", json={
        "groups": [group("b", [(101, "none")])], "speeds": [SPEEDS[0], SPEEDS[0]]})
    assert r.status_code == 422 and "given twice" in r.text


def test_groups_work_is_bounded(client: TestClient) -> None:
    per = 22
    n = MAX_GROUP_WORK // (per + GROUP_WEIGHT)
    body = {"groups": [group(f"b{g}", KEYS[:per]) for g in range(n)], "speeds": SPEEDS}
    r = client.post("/api/v1/recommend/groups", json=body)
    assert r.status_code == 200, r.text[:300]
    assert len(r.json()["groups"]) == n
    body["groups"].append(group("one-more", KEYS[:per]))
    r = client.post("/api/v1/recommend/groups", json=body)
    assert r.status_code == 422 and f"at most {MAX_GROUP_WORK}" in r.text


def test_the_page_knows_the_groups_bound() -> None:
    """The Recommend page sends the largest branches that fit one request
    (frontend/src/features/recommend/utils/group-budget.ts): its copy of the bound must be the
    server's, or a PHYSLITE-sized file gets a 422 instead of a table."""
    ts = (Path(__file__).parents[3] / "frontend/src/features/recommend/utils/group-budget.ts"
          ).read_text()
    consts = {m[1]: int(m[2].replace("_", "")) for m in
              re.finditer(r"export const (\w+) = ([\d_]+);", ts)}
    assert consts == {"GROUP_WEIGHT": GROUP_WEIGHT, "MAX_GROUP_WORK": MAX_GROUP_WORK}
