"""`basketbench advise FILE.root --json OUT`: the interface scripts rely on, end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from basketbench.measure.advise.branch_sizes import aggregate
from basketbench.measure.advise.ranking import Candidate, CostModel, recommend

from tests.measure.conftest import real_file

SETTINGS = [101, 207, 404, 505]


def _advise(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "advise", *args],
        capture_output=True, text=True, check=False, timeout=600,
        # rich boxes must not wrap the messages; the speed history stays in the test's cache
        env={**os.environ, "COLUMNS": "400", "BASKETBENCH_CACHE_DIR": _CACHE},
    )


_CACHE = tempfile.mkdtemp(prefix="basketbench-advise-test-")


@pytest.fixture(scope="module")
def advice(rzbench: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("advise") / "advice.json"
    hzz = real_file("uproot-HZZ-zlib.root")
    done = _advise(str(hzz), "--json", str(out), "--settings", ",".join(map(str, SETTINGS)),
                   "--reads-per-file", "50")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "costs the least" in done.stdout
    # the user's language: units and currency, stability, evidence, provenance, ROOT snippet
    for words in ("total cost [USD]", "% of size", "USD per TB-month", "stability: ",
                  "CPU term from: this run's measured speeds", "measured by: ROOT",
                  "SetCompressionSettings(", "fCompressionAlgorithm", "wopts.SetCompression("):
        assert words in done.stdout, words
    # not a terminal: plain progress lines, extraction moving in bytes
    assert "[advise] extract: 100 %" in done.stderr and "[advise] speeds: 100 %" in done.stderr
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def test_every_measured_setting_is_listed_with_sizes_and_speeds(advice: dict[str, Any]) -> None:
    assert sorted(m["setting"] for m in advice["measured"]) == SETTINGS
    for m in advice["measured"]:
        assert m["preconditioner"] == "none"
        assert 0 < m["compressed_bytes"] < m["raw_bytes"] == advice["raw_bytes"]
        assert m["compress_mb_s"] > 0 and m["decompress_mb_s"] > 0
    assert advice["model"]["reads_per_file"] == 50


def test_file_sizes_are_the_sum_of_the_branch_sizes(advice: dict[str, Any]) -> None:
    for m in advice["measured"]:
        per_branch = sum(
            s["compressed_bytes"] for b in advice["branches"] for s in b["sizes"]
            if s["setting"] == m["setting"]
        )
        assert per_branch == m["compressed_bytes"]
    assert sum(b["raw_bytes"] for b in advice["branches"]) == advice["raw_bytes"]
    assert sum(b["share"] for b in advice["type_classes"]) == pytest.approx(1.0)
    assert {b["type_class"] for b in advice["branches"]} <= {
        "float", "integer", "boolean", "counts", "string", "object"}


def test_ranking_is_the_engines_ranking_of_the_measured_numbers(advice: dict[str, Any]) -> None:
    model = CostModel(**advice["model"])
    cands = [Candidate(**{k: m[k] for k in (
        "setting", "preconditioner", "raw_bytes", "compressed_bytes", "compress_mb_s",
        "decompress_mb_s")}) for m in advice["measured"]]
    again = recommend(cands, model).as_dict()
    assert [r["label"] for r in advice["ranking"]] == [r["label"] for r in again["ranking"]]
    assert advice["recommended"] == again["recommended"] == advice["ranking"][0]["label"]
    # an unstable answer names its contenders first, then the engine's headline
    assert advice["summary"].endswith(again["summary"])
    assert advice["stability"]["stable"] or advice["summary"].startswith("No stable winner")
    branches = advice["branches"]
    differing = [b["differs"] for b in branches]
    assert differing == sorted(differing, reverse=True)  # those preferring another setting first
    assert advice["branches_differing"] == sum(differing)


def test_aggregation_by_type_class_weights_by_bytes() -> None:
    rows = [
        {"tree": "t", "branch": "a", "type_class": "float", "baskets": 2, "raw_bytes": 300,
         "sizes": [{"setting": 101, "preconditioner": "none", "compressed_bytes": 100}]},
        {"tree": "t", "branch": "b", "type_class": "float", "baskets": 1, "raw_bytes": 100,
         "sizes": [{"setting": 101, "preconditioner": "none", "compressed_bytes": 50}]},
        {"tree": "t", "branch": "n", "type_class": "counts", "baskets": 1, "raw_bytes": 100,
         "sizes": [{"setting": 101, "preconditioner": "none", "compressed_bytes": 10}]},
    ]
    groups = {g.key: g for g in aggregate(rows, "type_class")}
    assert groups["float"].raw_bytes == 400 and groups["float"].share == pytest.approx(0.8)
    assert groups["float"].compressed == {(101, "none"): 150}
    assert groups["float"].branches == 2 and groups["float"].baskets == 3
    with pytest.raises(ValueError, match="group_by"):
        aggregate(rows, "tree")  # type: ignore[arg-type]


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    missing = _advise(str(tmp_path / "nope.root"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    not_root = tmp_path / "x.root"
    not_root.write_bytes(b"hello")
    done = _advise(str(not_root))
    assert done.returncode == 2 and "not a ROOT file" in done.stderr
    bad = _advise(str(not_root), "--settings", "301")
    assert bad.returncode == 2 and "--settings" in bad.stderr
    bad = _advise(str(not_root), "--reads-per-file", "-1")
    assert bad.returncode == 2 and "reads_per_file" in bad.stderr


def test_api_ranks_the_cli_numbers_the_same(advice: dict[str, Any], api_server: Any) -> None:
    """The page asks POST /api/v1/recommend: for the CLI's numbers and model, the same answer."""
    import httpx

    body = {"candidates": advice["measured"], "model": advice["model"]}
    answer = httpx.post(f"{api_server.api}/recommend", json=body, headers=api_server.headers,
                        timeout=60)
    assert answer.status_code == 200, answer.text
    out = answer.json()
    assert [r["label"] for r in out["ranking"]] == [r["label"] for r in advice["ranking"]]
    assert [r["cost_total"] for r in out["ranking"]] == pytest.approx(
        [r["cost_total"] for r in advice["ranking"]], rel=1e-12)
    assert advice["summary"].endswith(out["summary"])
    assert out["sensitivity"] == advice["sensitivity"]
    # The API's defaults are the engine's (and so the CLI's) defaults.
    assert httpx.post(f"{api_server.api}/recommend", json={"candidates": advice["measured"]},
                      headers=api_server.headers, timeout=60).json()["model"] == asdict(CostModel())
    # Bad input: 422 naming the field, never a 500.
    bad = httpx.post(f"{api_server.api}/recommend", headers=api_server.headers, timeout=60,
                     json={"candidates": advice["measured"], "model": {"reads_per_file": -1}})
    assert bad.status_code == 422 and "reads_per_file" in bad.text
    bad = httpx.post(f"{api_server.api}/recommend", headers=api_server.headers, timeout=60,
                     json={"candidates": []})
    assert bad.status_code == 422 and "candidates" in bad.text
