"""Test data for the backend tests: harness documents, GitHub payloads, signatures."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import random
from typing import Any

from basketbench.core.config import Settings
from fastapi.testclient import TestClient

WEBHOOK_SECRET = "test-webhook-secret"


def make_settings(url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"database_url": url, "webhook_secret": WEBHOOK_SECRET,
                              "dispatch": "none", "frontend_dist": "/nonexistent",
                              # the test process is no long-running server: no gc.freeze()
                              "gc": "default"}
    values.update(overrides)
    return Settings(**values)


MACHINE = {
    "hostname": "bench-01", "arch": "x86_64", "cpu_model": "Intel Xeon E5-2680 v3",
    "vendor": "GenuineIntel", "family": 6, "model": 63,
    "isa": {"sse4_2": True, "avx2": True, "avx512f": False, "pclmul": True, "crc32": True},
    "caches": {"l1d": 32768, "l2": 262144, "l3": 31457280}, "cores_logical": 2,
    "cores_physical": 1, "kernel": "6.1.0", "governor": "performance", "boost": False,
    "compiler": "gcc 12.2.0", "compiler_flags": "-O2",
    "libraries": {"zlib": "1.3.1", "zstd": "1.5.5", "lz4": "1.9.4", "lzma": "5.4.1"},
    "fingerprint_hash": "a1b2c3d4e5f60718",
}

CODECS = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}


def speed(median: float, n: int = 9, spread: float = 0.005, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    samples = [median * (1 + rng.uniform(-spread, spread)) for _ in range(n)]
    samples.sort()
    mean = sum(samples) / n
    std = (sum((s - mean) ** 2 for s in samples) / (n - 1)) ** 0.5
    return {"median": samples[n // 2], "min": samples[0], "max": samples[-1], "mean": mean,
            "stddev": std, "cv": std / mean, "samples": samples}


def result(dataset: str, setting: int, compressed: int, cspeed: float, dspeed: float,
           uncompressed: int = 1_000_000, seed: int = 0, **conf: Any) -> dict[str, Any]:
    algorithm, level = divmod(setting, 100)
    return {
        "dataset": dataset, "codec": CODECS.get(algorithm, "memcpy") if setting else "memcpy",
        "setting": setting, "algorithm": algorithm, "level": level,
        "preconditioner": conf.get("preconditioner", "none"),
        "dictionary_size": conf.get("dictionary_size", 0),
        "basket_size": conf.get("basket_size", 0), "mode": conf.get("mode", "basket"),
        "threads": conf.get("threads", 1), "uncompressed_bytes": uncompressed,
        "compressed_bytes": compressed, "ratio": uncompressed / compressed,
        "compress_mbps": speed(cspeed, seed=seed), "decompress_mbps": speed(dspeed, seed=seed + 1),
        "roundtrip_ok": True, "error": None,
    }


# (setting, compressed bytes, compress MB/s, decompress MB/s): a realistic trade-off where
# 101 is dominated by 505 (smaller and faster), so the Pareto set is known.
SETTINGS = [(101, 400_000, 60.0, 300.0), (404, 480_000, 90.0, 2000.0),
            (505, 350_000, 150.0, 900.0), (207, 300_000, 3.0, 80.0), (0, 1_000_000, 8000.0,
                                                                       8000.0)]


def document(commit: str | None = "a" * 40, machine: str | None = "bench-01",
             tag: str | None = "haswell", scale: float = 1.0, size_scale: float = 1.0,
             seed: int = 0, run_id: int | None = None,
             datasets: tuple[str, ...] = ("nanoaod",)) -> dict[str, Any]:
    context: dict[str, Any] = {"repository": "root-project/root"}
    if commit:
        context["commit"] = commit
    if machine:
        context["machine"] = machine
    if tag:
        context["tag"] = tag
    if run_id is not None:
        context["run_id"] = run_id
    results = [
        result(ds, s, int(c * size_scale), cs * scale, dsp * scale, seed=seed + i)
        for ds in datasets for i, (s, c, cs, dsp) in enumerate(SETTINGS)
    ]
    return {
        "schema_version": "1", "tool": {"name": "rzbench", "version": "0.1.0"},
        "created_at": "2026-11-20T12:00:00Z", "backend": "rootcompat", "root_commit": None,
        "context": context, "machine": copy.deepcopy(MACHINE),
        "parameters": {"min_samples": 9, "target_pass_ms": 100, "interleaved": True},
        "datasets": [{"name": ds, "source": f"corpus/{ds}.bbc", "bytes": 1_000_000,
                      "baskets": 31, "checksum": "xxh64:0123456789abcdef"} for ds in datasets],
        "results": results,
    }


def sign(body: bytes, secret: str = WEBHOOK_SECRET) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def sha(i: int, salt: str = "") -> str:
    return hashlib.sha1(f"{salt}{i}".encode()).hexdigest()


def push_payload(shas: list[str], before: str = "0" * 40, branch: str = "master",
                 repo: str = "root-project/root") -> dict[str, Any]:
    return {
        "ref": f"refs/heads/{branch}", "before": before, "after": shas[-1] if shas else before,
        "repository": {"full_name": repo, "html_url": f"https://github.com/{repo}"},
        "commits": [{"id": s, "message": f"commit {i}\n\nbody",
                     "timestamp": f"2026-11-{10 + i:02d}T10:00:00+00:00",
                     "author": {"name": "Dev", "email": "dev@example.org"}, "distinct": True}
                    for i, s in enumerate(shas)],
    }


def post_webhook(client: TestClient, event: str, payload: Any, delivery: str,
                 secret: str = WEBHOOK_SECRET, raw: bytes | None = None,
                 signature: str | None = "auto") -> Any:
    body = raw if raw is not None else json.dumps(payload).encode()
    headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery,
               "Content-Type": "application/json"}
    if signature == "auto":
        headers["X-Hub-Signature-256"] = sign(body, secret)
    elif signature is not None:
        headers["X-Hub-Signature-256"] = signature
    return client.post("/api/v1/webhooks/github", content=body, headers=headers)


def with_codecs(doc: dict[str, Any], name: str, **versions: str) -> dict[str, Any]:
    """The document as a worker measuring codec set `name` uploads it: rzbench reports the
    linked versions in the fingerprint, the worker adds `codecs`."""
    libraries = {**doc["machine"]["libraries"], **versions}
    doc["machine"] = {**doc["machine"], "libraries": libraries}
    doc["codecs"] = {"set": name, "root_version": None, "libraries": libraries}
    return doc


def post_result_document(client: Any, auth: dict[str, str], doc: dict[str, Any]) -> dict[str, Any]:
    r = client.post("/api/v1/results", json=doc, headers=auth)
    assert r.status_code == 201, r.text
    return dict(r.json())


def arena_row(candidate: str, family: str, level: int, reference: int, compressed: int,
              reference_bytes: int, compress: float | None = 1.2,
              decompress: float | None = 0.9, **extra: Any) -> dict[str, Any]:
    """One `basketbench-arena-v1` result: `compress` / `decompress` are the medians of the
    speed ratios candidate / ROOT (None: no ratio measured)."""

    def ratio(median: float | None) -> dict[str, Any] | None:
        if median is None:
            return None
        return {"median": median, "ci_low": round(median * 0.98, 6),
                "ci_high": round(median * 1.02, 6), "pairs": 15, "disturbed_pairs": 1}

    return {"candidate": candidate, "family": family, "level": level,
            "reference_setting": reference, "compressed_bytes": compressed,
            "reference_bytes": reference_bytes,
            "size_change_pct": round(100 * (compressed - reference_bytes) / reference_bytes, 6),
            "roundtrip_ok": True, "root_readable": True,
            "compress_ratio": ratio(compress), "decompress_ratio": ratio(decompress),
            "compress_instructions": 2.0e7 / (compress or 1),
            "decompress_instructions": 4.0e6, "reference_compress_instructions": 2.0e7,
            "reference_decompress_instructions": 4.0e6, **extra}


def arena_document(file: str = "uproot-HZZ.root", seed: int = 0) -> dict[str, Any]:
    """A small, coherent arena document: zlib candidates against 101, ZSTD against 505 with
    its level mapping (3..19 against 505 = zstd 10), LZ4 against 404, one data shape."""
    base = 1_000_000 + seed
    results = [
        arena_row("zlib-ng", "zlib", 1, 101, base + 4_000, base, 1.6, 1.3),
        arena_row("libdeflate", "zlib", 6, 101, base - 20_000, base, 0.8, 1.9),
        arena_row("zlib", "zlib", 1, 101, base, base, 1.0, 1.0),
        arena_row("zstd", "zstd", 10, 505, 700_000, 700_000, 1.0, 1.0),
        arena_row("zstd-ctx", "zstd", 10, 505, 700_000, 700_000, 1.02, 2.5),
        arena_row("zstd-ldm", "zstd", 19, 505, 640_000, 700_000, 0.1, 1.0),
        arena_row("lz4", "lz4", 1, 404, 950_000, 900_000, 3.0, 1.1),
    ]
    def mapped(row: dict[str, Any], root_setting: int | None) -> dict[str, Any]:
        keys = ("reference_setting", "compressed_bytes", "reference_bytes", "size_change_pct",
                "compress_ratio", "decompress_ratio")
        return {"native_level": row["level"], "root_setting": root_setting,
                "identical_to_reference": row["compressed_bytes"] == row["reference_bytes"],
                **{k: row[k] for k in keys}}

    mapping = [mapped(arena_row("zstd", "zstd", level, 505, 700_000 + (10 - level) * 6_000,
                                700_000, round(2.0 ** ((10 - level) / 4), 4), 1.0),
                      500 + level // 2 if level % 2 == 0 and level <= 18 else None)
               for level in range(3, 20)]
    lz4 = [mapped(arena_row("lz4", "lz4", level, 404, 900_000 + (4 - level) * 10_000, 900_000,
                            round(2.0 ** ((4 - level) / 3), 4), 1.0),
                  400 + level if 4 <= level <= 9 else (401 if level == 1 else None))
           for level in range(1, 13)]
    return {
        "schema": "basketbench-arena-v1", "file": file, "file_sha256": hashlib.sha256(
            f"{file}{seed}".encode()).hexdigest(), "format": "ttree",
        "machine": {"hostname": "bench-01", "cpu_model": "AMD EPYC 7B13", "cores": 2,
                    "hardware_tag": "epyc"},
        "load": {"loadavg_start": [1.5, 1.2, 1.0], "loadavg_end": [1.7, 1.3, 1.0]},
        "reference": {"layer": "host", "label": "host",
                      "codec_versions": {"zlib": "1.3.1", "zstd": "1.5.7", "lz4": "1.10.0"}},
        "method": {"pairs": 15, "shape_pairs": 5, "target_ms": 20.0},
        "buffers": 120, "uncompressed_bytes": 2_400_000,
        "shape_buffers": {"offsets": 20, "floats": 30},
        "shape_bytes": {"offsets": 80_000, "floats": 120_000},
        "candidates": [
            {"candidate": "zlib-ng", "family": "zlib", "version": "2.2.4",
             "source": "debian trixie zlib-ng", "sha256": "1" * 64, "root_readable": True},
            {"candidate": "libdeflate", "family": "zlib", "version": "1.23",
             "source": "debian trixie libdeflate", "sha256": "2" * 64, "root_readable": True},
            {"candidate": "zlib", "family": "zlib", "version": "1.3.1", "source": "host",
             "sha256": None, "root_readable": True},
            {"candidate": "zstd", "family": "zstd", "version": "1.5.7", "source": "host",
             "sha256": None, "root_readable": True},
            {"candidate": "zstd-ctx", "family": "zstd", "version": "1.5.7", "source": "host",
             "sha256": None, "root_readable": True},
            {"candidate": "zstd-ldm", "family": "zstd", "version": "1.5.7", "source": "host",
             "sha256": None, "root_readable": True},
            {"candidate": "lz4", "family": "lz4", "version": "1.10.0", "source": "host",
             "sha256": None, "root_readable": True},
        ],
        "results": results,
        "shapes": [{**arena_row("zlib-ng", "zlib", 1, 101, 40_100, 40_000, 1.5, 1.2),
                    "shape": "offsets"},
                   {**arena_row("zstd", "zstd", 10, 505, 30_000, 30_000, 1.0, 1.0),
                    "shape": "floats"}],
        "level_mapping": {"zstd": mapping, "lz4": lz4},
    }
