"""Helpers for the change-detection tests: a history of documents ingested through the
API, with controlled speed and size changes, and the reruns a worker would upload."""

from __future__ import annotations

import copy
from typing import Any

from bb_factories import document, sha
from fastapi.testclient import TestClient


def make_doc(i: int, *, scale: float = 1.0, size_scale: float = 1.0, seed: int | None = None,
             run_id: int | None = None, fingerprint: str | None = None,
             decompress_only: bool = False, commit: str | None = None,
             all_scale: float = 1.0) -> dict[str, Any]:
    doc = document(commit=commit or sha(i), seed=(i * 7 if seed is None else seed),
                   run_id=run_id, scale=1.0, datasets=("nanoaod", "hzz"))
    for r in doc["results"]:
        for key in ("compress_mbps", "decompress_mbps"):
            _scale(r[key], all_scale)
        if r["setting"] == 505:  # the planted change: ZSTD-5 only
            r["compressed_bytes"] = int(r["compressed_bytes"] * size_scale)
            r["ratio"] = r["uncompressed_bytes"] / r["compressed_bytes"]
            for key in (("decompress_mbps",) if decompress_only else
                        ("compress_mbps", "decompress_mbps")):
                _scale(r[key], scale)
    if fingerprint:
        doc["machine"] = copy.deepcopy(doc["machine"])
        doc["machine"]["fingerprint_hash"] = fingerprint
        doc["machine"]["kernel"] = "6.12.0"
    return doc


def _scale(stats: dict[str, Any], factor: float) -> None:
    stats["samples"] = [x * factor for x in stats["samples"]]
    for k in ("median", "min", "max", "mean", "stddev"):
        stats[k] *= factor


def ingest(client: TestClient, auth: dict[str, str], doc: dict[str, Any]) -> dict[str, Any]:
    answer = client.post("/api/v1/results", json=doc, headers=auth)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def changes(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    answer = client.get("/api/v1/changes", params={"limit": 1000, **params})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["items"])


def runs(client: TestClient, **params: Any) -> list[dict[str, Any]]:
    answer = client.get("/api/v1/runs", params={"limit": 1000, **params})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["items"])


def with_counts(doc: dict[str, Any], *, count_scale: float = 1.0,
                busy: bool = False) -> dict[str, Any]:
    """The document with instruction counts on every result (as `basketbench run
    --instructions` adds them: deterministic, the same at every commit) and a load record;
    ``count_scale`` moves ZSTD-5's decompression count (the planted code change)."""
    for r in doc["results"]:
        base = 1_000_000.0 * (1 + r["setting"] % 97)
        mb = r["uncompressed_bytes"] / 1e6
        d = base * (count_scale if r["setting"] == 505 else 1.0)
        r.update({"compress_instructions": int(5 * base * mb),
                  "compress_instructions_per_mb": 5 * base,
                  "decompress_instructions": int(d * mb),
                  "decompress_instructions_per_mb": d})
    return with_load_record(doc, busy)


def with_load_record(doc: dict[str, Any], busy: bool) -> dict[str, Any]:
    """The document's machine load (busy or idle) and its counting block, as a counted
    `basketbench run --instructions` writes them."""
    snap = {"load1": 3.5 if busy else 0.1, "load5": 1.0, "cpu_times": None, "governor": None,
            "frequencies_mhz": None}
    doc["load"] = {"start": snap, "end": snap, "cores": 2, "steal_fraction": None,
                   "cpu_busy_fraction": None, "busy": busy,
                   "busy_reasons": ["load average 3.50 at start (>= 1)"] if busy else []}
    doc["instructions"] = {"tool": "callgrind", "valgrind": "valgrind-3.19.0",
                           "caches": {"LL": [8388608, 16, 64]}, "cycle_model": "test"}
    return doc
