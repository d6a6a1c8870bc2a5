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
