"""Issue 13 point 8: Google Benchmark JSON from a real binary (Debian's libbenchmark-dev,
built here) is stored with the numbers it gave, and nothing it did not give."""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

import pytest

SOURCE = Path(__file__).parent / "gbench" / "rootbench_like.cc"


@pytest.fixture(scope="module")
def gbench_binary(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cxx = shutil.which("g++") or shutil.which("c++")
    assert cxx, "a C++ compiler is needed (scripts/system-deps.sh installs build-essential)"
    assert Path("/usr/include/benchmark/benchmark.h").exists(), \
        "Google Benchmark is needed: apt-get install libbenchmark-dev (scripts/system-deps.sh)"
    out = tmp_path_factory.mktemp("gbench") / "rootbench_like"
    subprocess.run([cxx, "-O2", "-o", str(out), str(SOURCE), "-lbenchmark", "-lz",
                    "-lpthread"], check=True, capture_output=True, timeout=300)
    return out


def run_binary(binary: Path, *extra: str) -> dict[str, Any]:
    done = subprocess.run([str(binary), "--benchmark_format=json", "--benchmark_repetitions=3",
                           "--benchmark_min_time=0.01", *extra],
                          check=True, capture_output=True, timeout=300)
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def stored(client, commit: str) -> dict[str, Any]:
    items = client.get(f"/api/v1/results?commit={commit}").json()["items"]
    assert len(items) == 1, items
    item: dict[str, Any] = items[0]
    return item


def test_real_gbench_json_with_repetitions_aggregates_and_counters(client, auth, gbench_binary):
    doc = run_binary(gbench_binary)
    rows = doc["benchmarks"]
    compress = [b for b in rows if b["run_name"] == "BM_Compress/101"]
    iterations = [b for b in compress if b["run_type"] == "iteration"]
    spread = [b for b in compress if b.get("aggregate_name") in ("stddev", "cv")]
    # The document is what the issue describes: 3 repetitions, 4 aggregates, counters
    # on every compression entry and 0 for them in the stddev / cv rows.
    assert len(iterations) == 3 and {b["aggregate_name"] for b in compress
                                     if b["run_type"] == "aggregate"} == {
        "mean", "median", "stddev", "cv"}
    assert all(b["compressed_bytes"] == 0 and b["uncompressed_bytes"] == 0 for b in spread)
    cbytes, ubytes = iterations[0]["compressed_bytes"], iterations[0]["uncompressed_bytes"]
    assert 0 < cbytes < ubytes == 1048576

    commit = "1" * 40
    r = client.post(f"/api/v1/results/gbench?commit={commit}&dataset=rootbench",
                    json=doc, headers=auth)
    assert r.status_code == 201, r.text
    item = stored(client, commit)
    assert item["setting"] == 101 and item["codec"] == "zlib" and item["dataset"] == "rootbench"
    assert item["compressed_bytes"] == int(cbytes)
    assert item["uncompressed_bytes"] == int(ubytes)
    assert item["ratio"] == pytest.approx(ubytes / cbytes)
    c_speeds = [b["bytes_per_second"] / 1e6 for b in iterations]
    assert item["compress_mbps"]["samples"] == pytest.approx(c_speeds)
    assert item["compress_mbps"]["median"] == pytest.approx(statistics.median(c_speeds))
    assert item["compress_mbps"]["n"] == 3
    d_speeds = [b["bytes_per_second"] / 1e6 for b in rows
                if b["run_name"] == "BM_Decompress/101" and b["run_type"] == "iteration"]
    assert item["decompress_mbps"]["samples"] == pytest.approx(d_speeds)


def test_aggregates_only_gbench_json_keeps_given_statistics_and_invents_none(
        client, auth, gbench_binary):
    doc = run_binary(gbench_binary, "--benchmark_report_aggregates_only=true")
    by = {(b["run_name"], b["aggregate_name"]): b for b in doc["benchmarks"]}
    assert all(b["run_type"] == "aggregate" for b in doc["benchmarks"])
    commit = "2" * 40
    r = client.post(f"/api/v1/results/gbench?commit={commit}", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    item = stored(client, commit)
    median = by[("BM_Compress/101", "median")]
    assert item["compressed_bytes"] == int(median["compressed_bytes"]) > 0
    assert item["uncompressed_bytes"] == 1048576
    c = item["compress_mbps"]
    assert c["median"] == pytest.approx(median["bytes_per_second"] / 1e6)
    assert c["mean"] == pytest.approx(by[("BM_Compress/101", "mean")]["bytes_per_second"] / 1e6)
    assert c["stddev"] == pytest.approx(
        by[("BM_Compress/101", "stddev")]["bytes_per_second"] / 1e6)
    assert c["cv"] == pytest.approx(by[("BM_Compress/101", "cv")]["bytes_per_second"])
    # Not given: no samples, no min / max, no count.
    assert c["samples"] is None and c["min"] is None and c["max"] is None and c["n"] is None


def test_missing_counters_and_single_samples_stay_null_not_zero(client, auth):
    doc = {"context": {"host_name": "h", "num_cpus": 2}, "benchmarks": [
        {"name": "BM_Compress/505", "run_name": "BM_Compress/505", "run_type": "iteration",
         "repetitions": 1, "iterations": 10, "bytes_per_second": 2.5e8}]}
    commit = "3" * 40
    assert client.post(f"/api/v1/results/gbench?commit={commit}", json=doc,
                       headers=auth).status_code == 201
    item = stored(client, commit)
    assert item["compressed_bytes"] is None and item["uncompressed_bytes"] is None
    assert item["ratio"] is None and item["decompress_mbps"] is None
    assert item["compress_mbps"]["median"] == 250.0
    assert item["compress_mbps"]["stddev"] is None and item["compress_mbps"]["cv"] is None
