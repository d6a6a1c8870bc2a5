"""Seed a running basketbench API with realistic data for the dashboard's browser tests.

Everything goes through the public REST API, as a real deployment would receive it:
machines register (POST /machines), a signed GitHub push webhook brings the commits
(POST /webhooks/github, which also queues one run per commit and tag), harness
documents valid against harness-result-v1.schema.json carry the numbers
(POST /results), and runs are moved along as a worker would (PATCH /runs/{id}).

The numbers follow the shape of the seed papers (ratio vs speed per algorithm and
level, LZ4 fast / LZ4HC, ZSTD levels, LZMA slow and small) on the real datasets'
names, with a step at the "switch to vanilla zlib" commit (ZLIB compression 1.3x
to 3.7x slower, 0.4-1.4 % larger), which the history page must show.

Usage: seed.py --url http://127.0.0.1:PORT --token TOKEN --webhook-secret S [--commits 8]
       seed.py ... --history 10000   (performance data: 10 000 commits of one series,
                                      ZSTD-5 on NanoAOD on haswell-01, plus every
                                      setting at the newest commit)
Prints a JSON summary (commit shas in git order, machines, datasets, settings).
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import random
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from typing import Any

from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.realroot.releases import lookup, release_commit_sha
from basketbench.measure.rootio.root_files import default_root_files

REPOSITORY = "root-project/root"
RETRIES = 10
SETTINGS = [a * 100 + lvl for a in (1, 2, 4, 5) for lvl in range(1, 10)]
CODECS = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}
# Real files of shared/data/root-files (name, uncompressed bytes, baskets, ratio factor).
DATASETS = [
    ("nanoAOD_2015_CMS_Open_Data_ttbar", 41_943_040, 1_312, 1.00),
    ("atlas-DAOD_PHYSLITE-sample", 25_165_824, 2_048, 1.18),
    ("uproot-HZZ", 1_048_576, 96, 0.92),
    ("uproot-Zmumu", 524_288, 24, 0.85),
    # HZZ's events as ROOT's RNTuple pages: beside uproot-HZZ on the trade-off page (issue 20)
    ("uproot-HZZ-rntuple", 720_896, 51, 1.05),
]
# What the harness reports for a dataset's kind (datasets[].kind, page_size); the others
# leave it out, as documents from before issue 20 do.
DATASET_KINDS: dict[str, dict[str, Any]] = {
    "uproot-HZZ": {"kind": "ttree", "pages": 0, "page_size": None},
    "uproot-HZZ-rntuple": {"kind": "rntuple", "pages": 51, "page_size": None},
}
MACHINES = [
    # name, tag, arch, cpu, speed factor, isa
    (
        "haswell-01",
        "haswell",
        "x86_64",
        "Intel(R) Xeon(R) CPU E5-2680 v3 @ 2.50GHz",
        1.00,
        {
            "sse4_2": True,
            "avx2": True,
            "avx512f": False,
            "pclmul": True,
            "crc32": True,
            "neon": False,
        },
    ),
    (
        "epyc-01",
        "epyc",
        "x86_64",
        "AMD EPYC 7702 64-Core Processor",
        1.25,
        {
            "sse4_2": True,
            "avx2": True,
            "avx512f": False,
            "pclmul": True,
            "crc32": True,
            "neon": False,
        },
    ),
    (
        "arm-01",
        "armv8-crc",
        "aarch64",
        "Neoverse-N1 (Ampere Altra Q80-30)",
        0.72,
        {
            "sse4_2": False,
            "avx2": False,
            "avx512f": False,
            "pclmul": False,
            "crc32": True,
            "neon": True,
        },
    ),
]
# A machine measured as `make demo` measures: two ROOT releases with their own bundled
# codecs (codec series "builtin", versions per point), then a checkout with the host's
# libraries (series "host"), so the dashboard has two codec series to show and pick.
RELEASE_MACHINE = (
    "xeon-02",
    "haswell",
    "x86_64",
    "Intel(R) Xeon(R) Gold 6230 CPU @ 2.10GHz",
    1.10,
    {"sse4_2": True, "avx2": True, "avx512f": True, "pclmul": True, "crc32": True,
     "neon": False},
)
# (commit index, ROOT version, bundled zstd / lz4 / xz) of the two "releases"
RELEASES = [
    (1, "6.38.00", {"zstd": "1.4.8", "lz4": "1.9.3", "lzma": "5.2.4"}),
    (3, "6.40.00", {"zstd": "1.5.7", "lz4": "1.10.0", "lzma": "5.8.2"}),
]
# measured on a loaded machine (release_document)
LOADED_RELEASE = "6.40.00"
# Invented people (never real ROOT developers: these names show in screenshots).
AUTHORS = [
    {"name": "Ada Quillfeather", "email": "ada.quillfeather@example.org"},
    {"name": "Bruno Kestrelli", "email": "bruno.kestrelli@example.org"},
    {"name": "Carla Wrenford", "email": "carla.wrenford@example.org"},
    {"name": "Dmitri Alderwick", "email": "dmitri.alderwick@example.org"},
]
VANILLA_ZLIB_INDEX = 5  # the commit that switches ROOT to vanilla zlib


def request(
    base: str,
    method: str,
    path: str,
    body: Any = None,
    token: str | None = None,
    headers: dict[str, str] | None = None,
    raw: bytes | None = None,
) -> Any:
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    # 503 / 429 are the API's "busy, retry after Retry-After": a loaded machine running the
    # 10 000-commit seeding (4 uploads at once) meets them; anything else is final.
    for attempt in range(RETRIES + 1):
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            if exc.code in (429, 503) and attempt < RETRIES:
                time.sleep(float(exc.headers.get("Retry-After") or 1))
                continue
            detail = exc.read().decode()[:2000]
            raise SystemExit(f"{method} {path}: HTTP {exc.code}: {detail}") from exc
    raise AssertionError("unreachable")


def fake_sha(i: int, salt: str = "seed") -> str:
    return hashlib.sha1(f"{salt}-{i}".encode()).hexdigest()


def fingerprint(name: str, arch: str, cpu: str, isa: dict[str, bool]) -> dict[str, Any]:
    fp: dict[str, Any] = {
        "hostname": name,
        "arch": arch,
        "cpu_model": cpu,
        "vendor": "GenuineIntel" if "Intel" in cpu else ("AuthenticAMD" if "AMD" in cpu else "ARM"),
        "family": None,
        "model": None,
        "isa": isa,
        "caches": {"l1d": 32768, "l1i": 32768, "l2": 524288, "l3": 33554432},
        "cores_logical": 16,
        "cores_physical": 8,
        "kernel": "6.1.0-28-amd64" if arch == "x86_64" else "6.1.0-28-arm64",
        "governor": "performance",
        "boost": False,
        "compiler": "gcc 12.2.0",
        "compiler_flags": "-O2",
        "libraries": {
            "zlib": "1.2.13",
            "lzma": "5.4.1",
            "lz4": "1.9.4",
            "zstd": "1.5.4",
            "xxhash": "0.8.1",
        },
    }
    fp["fingerprint_hash"] = hashlib.sha256(
        json.dumps({k: v for k, v in fp.items() if k != "hostname"}, sort_keys=True).encode()
    ).hexdigest()[:32]
    return fp


def model(
    setting: int, ds_factor: float, speed: float, vanilla_zlib: bool
) -> tuple[float, float, float]:
    """(ratio, compress MB/s, decompress MB/s) before noise."""
    alg, lvl = divmod(setting, 100)
    if alg == 1:
        ratio, c, d = 3.0 + 0.09 * lvl, 140 / (1 + 0.45 * lvl), 420.0
        if vanilla_zlib:  # 1.3x slower at level 1 up to 3.7x at level 9, slightly larger output
            c /= 1.3 + (3.7 - 1.3) * (lvl - 1) / 8
            ratio /= 1.004 + 0.01 * (lvl - 1) / 8
    elif alg == 2:
        ratio, c, d = 3.7 + 0.06 * lvl, 22 / (1 + 0.5 * lvl), 85.0
    elif alg == 4:
        ratio = 2.1 + (0.03 * lvl if lvl < 4 else 0.45 + 0.05 * lvl)
        c = 720 - 25 * lvl if lvl < 4 else 95 / (1 + 0.35 * (lvl - 4))
        d = 3100.0
    else:
        ratio, c, d = 3.15 + 0.1 * lvl, 560 / (1 + 0.42 * lvl), 1250.0 - 15 * lvl
    return ratio * ds_factor, c * speed, d * speed


def add_counts(doc: dict[str, Any], dataset: str) -> dict[str, dict[int, float]]:
    """Instruction counts on one dataset's results of the document (as `basketbench run
    --instructions` adds them): a fixed model, fewer instructions per MB for faster
    settings (2.4e9 per MB at 1 MB/s). Returns the per-MB values stored, per operation."""
    out: dict[str, dict[int, float]] = {"compress": {}, "decompress": {}}
    for r in doc["results"]:
        if r["dataset"] != dataset:
            continue
        _ratio, c, d = model(r["setting"], 1.0, 1.0, False)
        mb = r["uncompressed_bytes"] / 1e6
        for op, mbps in (("compress", c), ("decompress", d)):
            total = round(2.4e9 / mbps * mb)
            r[f"{op}_instructions"] = total
            r[f"{op}_instructions_per_mb"] = out[op][r["setting"]] = total / mb
    return out


def stats(rng: random.Random, center: float, n: int = 9) -> dict[str, Any]:
    samples = sorted(max(0.001, rng.gauss(center, center * 0.015)) for _ in range(n))
    mean = sum(samples) / n
    sd = (sum((s - mean) ** 2 for s in samples) / (n - 1)) ** 0.5
    return {
        "median": samples[n // 2],
        "min": samples[0],
        "max": samples[-1],
        "mean": mean,
        "stddev": sd,
        "cv": sd / mean,
        "samples": samples,
    }


def document(
    commit: str,
    index: int,
    machine: tuple[Any, ...],
    created: datetime,
    settings: list[int],
    datasets: list[tuple[str, int, int, float]],
) -> dict[str, Any]:
    name, tag, arch, cpu, speed, isa = machine
    rng = random.Random(f"{commit}-{name}")
    results = []
    for ds_name, size, _baskets, factor in datasets:
        for s in settings:
            ratio, c, d = model(s, factor, speed, index >= VANILLA_ZLIB_INDEX)
            alg, lvl = divmod(s, 100)
            compressed = int(size / ratio)
            results.append(
                {
                    "dataset": ds_name,
                    "codec": CODECS[alg],
                    "setting": s,
                    "algorithm": alg,
                    "level": lvl,
                    "preconditioner": "none",
                    "dictionary_size": 0,
                    "dictionary_train_ms": None,
                    "basket_size": 0,
                    "mode": "basket",
                    "threads": 1,
                    "uncompressed_bytes": size,
                    "compressed_bytes": compressed,
                    "ratio": size / compressed,
                    "compress_mbps": stats(rng, c),
                    "decompress_mbps": stats(rng, d),
                    "roundtrip_ok": True,
                    "error": None,
                }
            )
    return {
        "schema_version": "1",
        "tool": {"name": "rzbench", "version": "0.1.0"},
        "created_at": created.isoformat().replace("+00:00", "Z"),
        "backend": "rootcompat",
        "root_commit": None,
        "context": {
            "repository": REPOSITORY,
            "commit": commit,
            "machine": name,
            "tag": tag,
            "suite": "default",
        },
        "machine": fingerprint(name, arch, cpu, isa),
        "parameters": {"min_samples": 9, "target_pass_ms": 100, "interleaved": True},
        "datasets": [
            {
                "name": n,
                "source": f"data/root-files/{n}.root",
                "bytes": b,
                "baskets": k,
                "checksum": "xxh64:" + hashlib.sha1(n.encode()).hexdigest()[:16],
                **DATASET_KINDS.get(n, {}),
            }
            for n, b, k, _ in datasets
        ],
        "results": results,
    }


def _load(load1: float) -> dict[str, Any]:
    """A load snapshot of a document's `load` record (measure/rzbench/noise.py)."""
    return {"load1": load1, "load5": load1, "cpu_times": None, "governor": None,
            "frequencies_mhz": None}


def release_document(
    commit: str, index: int, root_version: str | None, libraries: dict[str, str] | None,
    created: datetime,
) -> dict[str, Any]:
    """RELEASE_MACHINE's numbers of one commit: with a release's bundled codecs (set
    root-<version>, series builtin; zstd 1.5.7 writes ZSTD baskets 4.4 % larger at levels
    <= 5, 3.3 % smaller above) or, without, with the host's libraries. The speed samples
    are the same in every document, except that LOADED_RELEASE was measured while the
    machine's load rose (as `make demo` measured 6.40.00 at a load of 2.5 to 16.6): its
    speeds are 10-83 % lower and its document flagged busy, a difference of the machine
    that compare must not call a change of ROOT (issue 32)."""
    doc = document(commit, index, RELEASE_MACHINE, created, SETTINGS, DATASETS)
    rng = random.Random("release-speeds")
    loaded = random.Random("loaded-release") if root_version == LOADED_RELEASE else None
    for r in doc["results"]:
        c, d = model(r["setting"], 1.0, RELEASE_MACHINE[4], False)[1:]
        if loaded is not None:
            c, d = c * loaded.uniform(0.17, 0.9), d * loaded.uniform(0.17, 0.9)
        r["compress_mbps"], r["decompress_mbps"] = stats(rng, c), stats(rng, d)
        if libraries and libraries["zstd"] == "1.5.7" and r["algorithm"] == 5:
            factor = 1.044 if r["level"] <= 5 else 0.967
            r["compressed_bytes"] = int(r["compressed_bytes"] * factor)
            r["ratio"] = r["uncompressed_bytes"] / r["compressed_bytes"]
    if loaded is not None:
        doc["load"] = {"start": _load(2.5), "end": _load(16.6), "cores": 2,
                       "steal_fraction": None, "cpu_busy_fraction": None, "busy": True,
                       "busy_reasons": ["load average 2.50 at start (>= 1)"]}
    if libraries is not None:
        libs = {**doc["machine"]["libraries"], **libraries}
        doc["machine"]["libraries"] = libs
        # as the workers store a release's bundled codecs: set root-<version>, series builtin
        doc["codecs"] = {"set": f"root-{root_version}", "root_version": root_version,
                         "libraries": libs}
    return doc


def seed_releases(base: str, token: str, shas: list[str], start: datetime) -> dict[str, Any]:
    """RELEASE_MACHINE: the two releases (builtin series), then the newest commit (host)."""
    name, tag, arch, cpu, _speed, isa = RELEASE_MACHINE
    request(base, "POST", "/machines",
            {"name": name, "tag": tag, "fingerprint": fingerprint(name, arch, cpu, isa)}, token)
    for i, version, libraries in RELEASES:
        doc = release_document(shas[i], i, version, libraries, start + timedelta(hours=6 * i + 3))
        request(base, "POST", "/results", doc, token)
    last = len(shas) - 1
    request(base, "POST", "/results",
            release_document(shas[last], last, None, None, start + timedelta(hours=6 * last + 3)),
            token)
    return {"machine": name, "commits": [shas[i] for i, _, _ in RELEASES],
            "versions": [v for _, v, _ in RELEASES], "checkout": shas[last]}


IO_DATA = "uproot-HZZ/events"


def io_document(commit: str, created: datetime) -> dict[str, Any]:
    """End-to-end ROOT I/O of HZZ (`basketbench run --io`) on the first machine: writes and
    reads at 101 and 505, TTree and RNTuple, 1-2 threads, cache on/off, warm/cold page cache,
    and the codec alone (rzbench rows, mode basket) beside the TTree form."""
    name, tag, arch, cpu, _speed, isa = MACHINES[0]
    rng = random.Random(f"io-{commit}")
    size = 649_997
    rows: list[dict[str, Any]] = []

    def row(dataset: str, setting: int, mode: str, threads: int, c: float | None,
            d: float | None, io: dict[str, Any] | None) -> None:
        alg, lvl = divmod(setting, 100)
        compressed = int(size / (3.1 if alg == 1 else 2.85))
        rows.append({
            "dataset": dataset, "codec": CODECS[alg], "setting": setting, "algorithm": alg,
            "level": lvl, "preconditioner": "none", "dictionary_size": 0, "basket_size": 0,
            "mode": mode, "threads": threads, "uncompressed_bytes": size,
            "compressed_bytes": compressed, "ratio": size / compressed,
            "compress_mbps": stats(rng, c) if c else None,
            "decompress_mbps": stats(rng, d) if d else None,
            "roundtrip_ok": True, "error": None, **({"io": io} if io else {})})

    for setting, codec_d, read in ((101, 180.0, 60.0), (505, 420.0, 75.0)):
        for form in ("ttree", "rntuple"):
            base = f"{IO_DATA}/{form}"
            if form == "ttree":
                row(base, setting, "basket", 1, 25.0, codec_d, None)
            for threads in (1, 2):
                row(base, setting, "io-write", threads, 12.0 * (1 + 0.5 * (threads - 1)), None,
                    {"form": form, "op": "write", "threads": threads, "events": 2421})
                for cache in ("on", "off"):
                    for page in ("warm", "cold"):
                        speed = read * (1.6 if threads == 2 else 1.0) * (
                            0.8 if cache == "off" else 1.0) * (0.9 if page == "cold" else 1.0)
                        row(f"{base}/cache-{cache}/{page}", setting, "io-read", threads, None,
                            speed, {"form": form, "op": "read", "threads": threads,
                                    "cache": cache, "page_cache": page, "events": 2421})
    return {
        "schema_version": "1", "tool": {"name": "basketbench-io", "version": "1"},
        "created_at": created.isoformat().replace("+00:00", "Z"), "backend": "root",
        "root_commit": None,
        "context": {"repository": REPOSITORY, "commit": commit, "machine": name, "tag": tag,
                    "suite": "io"},
        "machine": fingerprint(name, arch, cpu, isa),
        "parameters": {"min_samples": 9, "target_pass_ms": 50},
        "datasets": [{"name": n, "source": "data/root-files/uproot-HZZ.root", "bytes": 0,
                      "baskets": 0, "checksum": ""} for n in sorted({r["dataset"] for r in rows})],
        "results": rows,
    }


def seed_lossy(base: str, token: str, shas: list[str]) -> dict[str, Any]:
    """A real `basketbench lossy` sweep of HZZ's muons (rzbench on this machine), stored on
    the two newest commits: the Lossy floats page's plot, tables and two-point history."""
    hzz = next(p for p in default_root_files() if p.name == "uproot-HZZ.root")
    doc = sweep(hzz, SweepOptions(settings=[505, 404], bits=[12, 16, 20], columns=["Muon_*"]))
    ids = [request(base, "POST", "/lossy-sweeps", {"commit": sha, "document": doc}, token)["id"]
           for sha in shas]
    return {"sweep": ids[-1], "file": doc["file"], "columns": doc["columns"],
            "rows": len(doc["results"])}


def arena_document(seed: int) -> dict[str, Any]:
    """A `basketbench-arena-v1` document of HZZ shaped as the arena measures it (zlib
    candidates against 101, ZSTD's native levels against 505 = zstd 10 with a reused
    context beside it, LZ4 against 404), sizes exact to the document's own arithmetic;
    `seed` moves zlib-ng's size so each commit's point differs."""
    def ratio(median: float | None) -> dict[str, Any] | None:
        return None if median is None else {
            "median": median, "ci_low": round(median * 0.97, 4),
            "ci_high": round(median * 1.03, 4), "pairs": 11, "disturbed_pairs": 1}

    def row(candidate: str, family: str, level: int, setting: int, size: int, ref: int,
            c: float | None, d: float | None) -> dict[str, Any]:
        return {"candidate": candidate, "family": family, "level": level,
                "reference_setting": setting, "compressed_bytes": size, "reference_bytes": ref,
                "size_change_pct": 100.0 * (size - ref) / ref,
                "identical_to_reference": size == ref, "roundtrip_ok": True,
                "root_readable": True, "compress_ratio": ratio(c), "decompress_ratio": ratio(d),
                "compress_instructions": None, "decompress_instructions": None,
                "reference_compress_instructions": None,
                "reference_decompress_instructions": None}

    results = [row("zlib-ng", "zlib", 1, 101, 210_400 + 300 * seed, 209_000, 1.55, 1.25),
               row("libdeflate", "zlib", 6, 106, 199_100, 200_500, 1.9, 1.6),
               row("zstd-ctx", "zstd", 10, 505, 180_000, 180_000, 1.05, 2.5),
               row("lz4", "lz4", 9, 404, 240_000, 246_000, 0.7, 1.0)]
    results += [row("zstd", "zstd", level, 505, 180_000 + (10 - level) * 2_500, 180_000,
                    round(2.0 ** ((10 - level) / 4), 4), 1.0) for level in range(3, 20)]

    def mapped(r: dict[str, Any]) -> dict[str, Any]:
        level = r["level"]
        return {"native_level": level,
                "root_setting": 500 + level // 2 if level % 2 == 0 and level <= 18 else None,
                **{k: r[k] for k in ("reference_setting", "compressed_bytes", "reference_bytes",
                                     "size_change_pct", "identical_to_reference",
                                     "compress_ratio", "decompress_ratio")}}

    def candidate(name: str, family: str, version: str) -> dict[str, Any]:
        return {"candidate": name, "family": family, "version": version,
                "source": "e2e seed", "sha256": None, "root_readable": True}

    return {
        "schema": "basketbench-arena-v1", "file": "uproot-HZZ.root",
        "file_sha256": hashlib.sha256(b"uproot-HZZ.root").hexdigest(), "format": "ttree",
        "machine": {"hostname": "haswell-01", "cpu_model": MACHINES[0][3],
                    "hardware_tag": "haswell"},
        "load": {"loadavg_start": [1.2, 1.1, 1.0], "loadavg_end": [1.3, 1.1, 1.0]},
        "buffers": 18, "uncompressed_bytes": 421_000,
        "candidates": [candidate("zlib-ng", "zlib", "2.3.3"),
                       candidate("libdeflate", "zlib", "1.26"),
                       candidate("zstd", "zstd", "1.5.7"), candidate("zstd-ctx", "zstd", "1.5.7"),
                       candidate("lz4", "lz4", "1.10.0")],
        "results": results,
        "shapes": [{**row("zlib-ng", "zlib", 1, 101, 20_400, 20_000, 1.4, 1.2),
                    "shape": "offsets"}],
        "level_mapping": {"zstd": [mapped(r) for r in results if r["candidate"] == "zstd"],
                          "lz4": []},
    }


def seed_arena(base: str, token: str, shas: list[str]) -> dict[str, Any]:
    """Codec arena boards of HZZ on the first machine, with the three newest commits' builds
    as ROOT's layer (a three-point history of each row)."""
    machines = request(base, "GET", "/machines?limit=200")["items"]
    machine = next(m for m in machines if m["name"] == MACHINES[0][0])
    for i, sha in enumerate(shas):
        out = request(base, "POST", "/arena-runs", {"machine_id": machine["id"], "commit": sha,
                                                    "document": arena_document(i)}, token)
        assert out["results"] == 21 + 1 + 17, out
    return {"file": "uproot-HZZ.root", "machine": MACHINES[0][0], "commits": shas,
            "rows": 21}


def push_payload(shas: list[str], start: datetime) -> dict[str, Any]:
    messages = [
        "io: reserve basket buffers up front",
        "zip: check irep after R__unzip",
        "tree: speed up offset array serialisation",
        "lz4: use LZ4HC for levels >= 4",
        "zstd: map level L to 2*L",
        "builtins: switch to vanilla zlib 1.3.2",
        "core/zip: drop the Cloudflare zlib build option",
        "io: fix TBasket readahead",
    ]
    commits = [
        {
            "id": sha,
            "message": messages[i % len(messages)] + ("" if i < len(messages) else f" ({i})"),
            "timestamp": (start + timedelta(hours=6 * i)).isoformat(),
            "author": AUTHORS[i % len(AUTHORS)],
        }
        for i, sha in enumerate(shas)
    ]
    return {
        "ref": "refs/heads/master",
        "before": fake_sha(-1),
        "after": shas[-1],
        "repository": {"full_name": REPOSITORY},
        "commits": commits,
    }


def push(
    base: str,
    secret: str,
    shas: list[str],
    start: datetime,
    delivery: str,
    before: str | None = None,
) -> list[int]:
    """A signed GitHub push of `shas` (oldest first) on master."""
    payload = push_payload(shas, start)
    if before:
        payload["before"] = before
    raw = json.dumps(payload).encode()
    signature = "sha256=" + hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
    hook = request(
        base,
        "POST",
        "/webhooks/github",
        raw=raw,
        headers={
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": signature,
        },
    )
    return list(hook["run_ids"])


def seed_history(base: str, token: str, secret: str, n: int) -> dict[str, Any]:
    """n commits of one series, pushed in chunks (each chunk's `before` is the previous
    chunk's last commit, so the git order is one line), one document per commit."""
    from concurrent.futures import ThreadPoolExecutor

    start = datetime(2016, 1, 4, 9, 0, tzinfo=UTC)
    shas = [fake_sha(i, "history") for i in range(n)]
    machine = MACHINES[0]
    name, tag, arch, cpu, _speed, isa = machine
    chunk = 1000
    for lo in range(0, n, chunk):
        part = shas[lo : lo + chunk]
        before = shas[lo - 1] if lo else fake_sha(-1, "history")
        push(base, secret, part, start + timedelta(hours=6 * lo), f"history-{lo}", before)
    # Registered after the pushes so that no run is queued per commit.
    request(
        base,
        "POST",
        "/machines",
        {"name": name, "tag": tag, "fingerprint": fingerprint(name, arch, cpu, isa)},
        token,
    )
    nano = DATASETS[:1]

    def post(i: int) -> None:
        settings = SETTINGS if i == n - 1 else [505]
        doc = document(shas[i], i, machine, start + timedelta(hours=6 * i + 1), settings, nano)
        request(base, "POST", "/results", doc, token)

    with ThreadPoolExecutor(max_workers=4) as pool:
        list(pool.map(post, range(n)))
    return {"commits": [shas[0], shas[-1]], "n": n, "machine": name, "dataset": nano[0][0]}


def answer_confirmation_runs(base: str, token: str, shas: list[str], start: datetime) -> None:
    """Change detection queues reruns of a suspect commit and its parent (trigger
    "confirm") before it raises a speed change; measure them as a worker would: the same
    model with fresh run-to-run noise. Done when nothing is left to confirm."""
    import time

    index = {sha: i for i, sha in enumerate(shas)}
    machines = {m[1]: m for m in MACHINES}
    rng = random.Random("reruns")
    quiet, deadline = 0, time.monotonic() + 180
    while quiet < 4 and time.monotonic() < deadline:
        runs = request(base, "GET", "/runs?limit=1000")["items"]
        todo = [r for r in runs if r["trigger"] == "confirm" and r["status"] == "queued"]
        pending = request(base, "GET", "/changes?state=confirming&limit=1")["total"]
        quiet = quiet + 1 if not todo and not pending else 0
        for run in todo:
            i, m = index[run["commit"]], machines[run["tag"]]
            doc = document(run["commit"], i, m, start + timedelta(hours=6 * i + 2), SETTINGS,
                           DATASETS)
            doc["context"]["run_id"] = run["id"]
            for r in doc["results"]:
                for key in ("compress_mbps", "decompress_mbps"):
                    factor = 1 + rng.gauss(0, 0.005)
                    for k in ("median", "min", "max", "mean", "stddev"):
                        r[key][k] *= factor
                    r[key]["samples"] = [x * factor for x in r[key]["samples"]]
            request(base, "POST", "/results", doc, token)
            request(base, "PATCH", f"/runs/{run['id']}",
                    {"status": "succeeded", "stage": "done", "progress": 1.0}, token)
        time.sleep(0.5)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--url", required=True)
    ap.add_argument("--token", required=True)
    ap.add_argument("--webhook-secret", required=True)
    ap.add_argument("--commits", type=int, default=8)
    ap.add_argument("--history", type=int, default=0, help="seed N commits of one series instead")
    args = ap.parse_args()
    base = args.url.rstrip("/") + "/api/v1"
    if args.history:
        json.dump(seed_history(base, args.token, args.webhook_secret, args.history), sys.stdout)
        print()
        return
    start = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    for name, tag, arch, cpu, _speed, isa in MACHINES:
        request(
            base,
            "POST",
            "/machines",
            {"name": name, "tag": tag, "fingerprint": fingerprint(name, arch, cpu, isa)},
            args.token,
        )

    shas = [fake_sha(i) for i in range(args.commits)]
    for i, version, _ in RELEASES:
        if i < len(shas) - 1:
            # the releases' commits carry their stable ids, so they are named
            # "ROOT 6.40.00 (release)" wherever a commit is shown (catalog/commits)
            shas[i] = release_commit_sha(lookup(version))
    run_ids = push(base, args.webhook_secret, shas, start, f"seed-{shas[-1][:12]}")

    # Results of finished runs belong to their run (as a worker posts them); the
    # newest commit's numbers come without a run, like a manual `basketbench run`.
    run_of = {
        (r["commit"], r["tag"]): r["id"] for r in request(base, "GET", "/runs?limit=1000")["items"]
    }
    documents = 0
    counts: dict[str, dict[int, float]] = {}
    for i, sha in enumerate(shas):
        for m in MACHINES:
            doc = document(sha, i, m, start + timedelta(hours=6 * i + 1), SETTINGS, DATASETS)
            if sha == shas[-1] and m is MACHINES[0]:
                # counted: the newest commit, first machine, first dataset only (no earlier
                # counts, so no count change and no other test's numbers move)
                counts = add_counts(doc, DATASETS[0][0])
            if sha != shas[-1] and (sha, m[1]) in run_of:
                doc["context"]["run_id"] = run_of[(sha, m[1])]
            out = request(base, "POST", "/results", doc, args.token)
            assert out["results"] == len(SETTINGS) * len(DATASETS), out
            documents += 1

    answer_confirmation_runs(base, args.token, shas, start)
    request(base, "POST", "/results", io_document(shas[-1], start + timedelta(hours=2)),
            args.token)
    releases = seed_releases(base, args.token, shas, start)
    lossy = seed_lossy(base, args.token, shas[-2:])
    arena = seed_arena(base, args.token, shas[-3:])

    # Move the queue along as workers would: most runs done, the newest commit's
    # runs in flight (one failed with its log tail).
    runs = request(base, "GET", "/runs?limit=1000")["items"]
    newest = shas[-1]
    for run in runs:
        if run["commit"] != newest:
            request(
                base,
                "PATCH",
                f"/runs/{run['id']}",
                {"status": "succeeded", "stage": "done", "progress": 1.0},
                args.token,
            )
        elif run["tag"] == "haswell":
            request(
                base,
                "PATCH",
                f"/runs/{run['id']}",
                {"status": "running", "stage": "benchmark", "progress": 0.6},
                args.token,
            )
        elif run["tag"] == "armv8-crc":
            request(
                base,
                "PATCH",
                f"/runs/{run['id']}",
                {
                    "status": "failed",
                    "stage": "build",
                    "progress": 0.2,
                    "log_tail": "core/zip/src/RZip.cxx:41:10: fatal error: zlib.h: "
                    "No such file or directory\ncompilation terminated.\n"
                    "ninja: build stopped: subcommand failed.",
                },
                args.token,
            )

    json.dump(
        {
            "commits": shas,
            "machines": [m[0] for m in MACHINES] + [RELEASE_MACHINE[0]],
            "releases": releases,
            "tags": [m[1] for m in MACHINES],
            "datasets": [d[0] for d in DATASETS],
            "settings": SETTINGS,
            "documents": documents,
            "run_ids": run_ids,
            "io": {"machine": MACHINES[0][0], "commit": shas[-1], "data": IO_DATA},
            "lossy": lossy,
            "arena": arena,
            "counts": {"machine": MACHINES[0][0], "commit": shas[-1], "dataset": DATASETS[0][0],
                       **counts},
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
