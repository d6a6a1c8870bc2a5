"""Google Benchmark JSON -> results.

Mapping (documented in docs/API.md's gbench section):
- a benchmark's name is ``<function>/<arg>/<arg>.../<key>:<value>``; the function
  name says the direction: names containing ``decompress``, ``unzip``, ``inflate``,
  ``decode`` or ``read`` (any case) measure decompression, all others compression;
- the first positional integer argument is the compression setting (e.g. 505), the
  second the basket size in bytes; ``threads:N`` sets threads;
- named arguments (``setting:505``, ``basket_size:32000``) and user counters with the
  names ``setting, algorithm, level, basket_size, dictionary_size, threads,
  preconditioner`` (0 none, 1 shuffle, 2 bitshuffle), ``ratio``, ``compressed_bytes``,
  ``uncompressed_bytes`` override the positional values; ``key=value`` words in the
  ``label`` too (``dataset=nanoaod preconditioner=shuffle mode=rac-random``);
- speed = ``bytes_per_second`` / 1e6 (MB/s); each ``iteration`` run (repetition) is one
  sample; when only aggregates are present their ``median`` / ``mean`` / ``stddev`` /
  ``cv`` rows give those statistics (no samples, min or max);
- user counters are read from the ``iteration`` rows (else the ``mean`` / ``median``
  aggregates): the ``stddev`` and ``cv`` rows carry the counters' spread (0) under the
  same names and are never taken for the counters themselves;
- nothing that was not given is stored: a missing counter, a spread of one sample or a
  ratio without both sizes stays empty (null), never 0;
- compression and decompression benchmarks of the same configuration and dataset
  become one result row; benchmarks with no setting are skipped and listed.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics
from collections import defaultdict
from typing import Any

from basketbench.core.errors import Invalid
from basketbench.results.ingest import (
    Batch,
    StoredDataset,
    StoredResult,
    StoredStats,
    Target,
    document_hash,
)

DECOMPRESS = re.compile(r"decompress|unzip|inflate|decode|read", re.I)
CODECS = {1: "zlib", 2: "lzma", 3: "cs", 4: "lz4", 5: "zstd"}
PRECONDITIONERS = {0: "none", 1: "shuffle", 2: "bitshuffle"}
MODES = {"basket", "rac-sequential", "rac-random"}
INT_KEYS = ("setting", "algorithm", "level", "basket_size", "dictionary_size", "threads")


def _parse_name(name: str) -> tuple[str, dict[str, Any]]:
    parts = name.split("/")
    func, fields = parts[0], dict[str, Any]()
    positional: list[int] = []
    for part in parts[1:]:
        if ":" in part:
            key, _, value = part.partition(":")
            if key in INT_KEYS and value.lstrip("-").isdigit():
                fields[key] = int(value)
            elif key in ("preconditioner", "mode", "dataset"):
                fields[key] = value
        elif part.lstrip("-").isdigit():
            positional.append(int(part))
    if positional:
        fields.setdefault("setting", positional[0])
    if len(positional) > 1:
        fields.setdefault("basket_size", positional[1])
    return func, fields


def _describe(bench: dict[str, Any], default_dataset: str) -> tuple[str, dict[str, Any]] | None:
    name = str(bench.get("run_name") or bench.get("name") or "")
    func, fields = _parse_name(name)
    for key in INT_KEYS:
        value = bench.get(key)
        if isinstance(value, int | float):
            fields[key] = int(value)
    if isinstance(bench.get("preconditioner"), int | float):
        fields["preconditioner"] = PRECONDITIONERS.get(int(bench["preconditioner"]), "none")
    for word in str(bench.get("label") or "").replace(",", " ").split():
        key, sep, value = word.partition("=")
        if sep and key in INT_KEYS and value.isdigit():
            fields[key] = int(value)
        elif sep and key in ("dataset", "preconditioner", "mode"):
            fields[key] = value
    if "setting" not in fields:
        if "algorithm" in fields and "level" in fields:
            fields["setting"] = fields["algorithm"] * 100 + fields["level"]
        else:
            return None
    setting = fields["setting"]
    algorithm = fields.get("algorithm", setting // 100)
    conf = {
        "dataset": str(fields.get("dataset", default_dataset)), "setting": setting,
        "algorithm": algorithm, "level": fields.get("level", setting % 100),
        "codec": "memcpy" if setting == 0 else CODECS.get(algorithm, "none"),
        "preconditioner": fields.get("preconditioner", "none"),
        "dictionary_size": fields.get("dictionary_size", 0),
        "basket_size": fields.get("basket_size", 0),
        "mode": fields.get("mode", "basket") if fields.get("mode") in MODES else "basket",
        "threads": max(1, fields.get("threads", 1)),
    }
    if not _in_range(conf):
        return None
    direction = "decompress_mbps" if DECOMPRESS.search(func) else "compress_mbps"
    return direction, conf


INT4_MAX = 2**31 - 1


def _in_range(conf: dict[str, Any]) -> bool:
    """Values a configuration row can hold; anything else is skipped, never stored."""
    return (0 <= conf["setting"] <= 599 and 0 <= conf["level"] <= 9
            and conf["preconditioner"] in PRECONDITIONERS.values()
            and 0 <= conf["dictionary_size"] <= INT4_MAX and 0 <= conf["basket_size"] <= INT4_MAX
            and 1 <= conf["threads"] <= 4096 and len(conf["dataset"]) <= 300)


def _stats(samples: list[float]) -> StoredStats:
    mean = statistics.fmean(samples)
    # One sample has no spread: null, not 0.
    stddev = statistics.stdev(samples) if len(samples) > 1 else None
    return {"median": statistics.median(samples), "min": min(samples), "max": max(samples),
            "mean": mean, "stddev": stddev,
            "cv": stddev / mean if stddev is not None and mean else None,
            "samples": samples}


def _aggregate_stats(agg: dict[str, float]) -> StoredStats | None:
    """Statistics from aggregate rows only (``--benchmark_report_aggregates_only``)."""
    centre = agg.get("median", agg.get("mean"))
    if centre is None:
        return None
    return {"median": centre, "min": None, "max": None, "mean": agg.get("mean"),
            "stddev": agg.get("stddev"), "cv": agg.get("cv"), "samples": None}


COUNTERS = ("ratio", "compressed_bytes", "uncompressed_bytes")
# Aggregate rows whose counters are the counters' own value (not their spread).
CENTRAL_AGGREGATES = ("median", "mean")


def gbench_batch(doc: Any, target: Target, dataset: str | None) -> tuple[Batch, list[str]]:
    reasons: list[str] = []
    if not isinstance(doc, dict):
        raise Invalid("not a Google Benchmark document", ["(document): not an object"])
    benches = doc.get("benchmarks")
    context = doc.get("context")
    if not isinstance(benches, list):
        reasons.append("benchmarks: missing or not a list")
    if not isinstance(context, dict):
        reasons.append("context: missing or not an object")
    if not target.commit:
        reasons.append("commit: give ?commit=")
    if reasons:
        raise Invalid("Google Benchmark document rejected", reasons)
    assert isinstance(benches, list) and isinstance(context, dict)

    samples: dict[tuple[str, tuple[Any, ...]], list[float]] = defaultdict(list)
    aggregates: dict[tuple[str, tuple[Any, ...]], dict[str, float]] = defaultdict(dict)
    extra: dict[tuple[Any, ...], dict[str, Any]] = defaultdict(dict)
    extra_agg: dict[tuple[Any, ...], dict[str, Any]] = defaultdict(dict)
    errors: dict[tuple[Any, ...], str] = {}
    keys: dict[tuple[Any, ...], dict[str, Any]] = {}
    skipped: list[str] = []
    for i, bench in enumerate(benches):
        if not isinstance(bench, dict) or "name" not in bench:
            reasons.append(f"benchmarks/{i}: not a benchmark object with a name")
            continue
        described = _describe(bench, dataset or "gbench")
        if described is None:
            skipped.append(str(bench["name"]))
            continue
        direction, key = described
        k = tuple(key.values())
        keys[k] = key
        if bench.get("error_occurred"):
            errors[k] = str(bench.get("error_message") or "benchmark error")
            continue
        is_aggregate = bench.get("run_type") == "aggregate"
        aggregate = str(bench.get("aggregate_name"))
        if not is_aggregate or aggregate in CENTRAL_AGGREGATES:
            into = extra_agg[k] if is_aggregate else extra[k]
            for field in COUNTERS:
                if isinstance(bench.get(field), int | float) and field not in into:
                    into[field] = bench[field]
        bps = bench.get("bytes_per_second")
        if not isinstance(bps, int | float):
            continue
        if is_aggregate:
            # cv is a fraction of the mean, not a speed.
            aggregates[(direction, k)][aggregate] = bps if aggregate == "cv" else bps / 1e6
        else:
            samples[(direction, k)].append(bps / 1e6)
    if reasons:
        raise Invalid("Google Benchmark document rejected", reasons)
    if not keys:
        raise Invalid("no benchmark maps to a configuration",
                      [f"skipped: {n}" for n in skipped[:50]])

    def speed(direction: str, k: tuple[Any, ...]) -> StoredStats | None:
        vals = samples.get((direction, k))
        return _stats(vals) if vals else _aggregate_stats(aggregates.get((direction, k), {}))

    results: list[StoredResult] = []
    for k, key in keys.items():
        ex = {**extra_agg.get(k, {}), **extra.get(k, {})}
        ubytes, cbytes = ex.get("uncompressed_bytes"), ex.get("compressed_bytes")
        ratio = ex.get("ratio")
        if ratio is None and ubytes and cbytes:
            ratio = ubytes / cbytes
        results.append(StoredResult(
            dataset=key["dataset"], codec=key["codec"], setting=key["setting"],
            algorithm=key["algorithm"], level=key["level"],
            preconditioner=key["preconditioner"], dictionary_size=key["dictionary_size"],
            basket_size=key["basket_size"], mode=key["mode"], threads=key["threads"],
            compress_mbps=speed("compress_mbps", k), decompress_mbps=speed("decompress_mbps", k),
            uncompressed_bytes=int(ubytes) if ubytes is not None else None,
            compressed_bytes=int(cbytes) if cbytes is not None else None,
            ratio=ratio, error=errors.get(k), roundtrip_ok=k not in errors))

    fingerprint = {k: v for k, v in context.items()
                   if k not in ("date", "load_avg", "executable", "host_name")}
    fingerprint["hostname"] = context.get("host_name")
    fp_hash = hashlib.sha256(json.dumps(
        {k: v for k, v in fingerprint.items() if k != "hostname"}, sort_keys=True,
        default=str).encode()).hexdigest()[:32]
    eff = Target(commit=target.commit, machine=target.machine or context.get("host_name")
                 or "gbench-host", tag=target.tag, run_id=target.run_id,
                 repository=target.repository, suite=target.suite)
    datasets = [StoredDataset(name=n) for n in sorted({r["dataset"] for r in results})]
    batch = Batch(
        kind="gbench", sha256=document_hash({"gbench": doc, "dataset": dataset}, eff),
        machine_name=str(eff.machine), fingerprint=fingerprint, fingerprint_hash=fp_hash,
        tag=eff.tag, datasets=datasets, results=results, tool="google-benchmark",
        parameters={"skipped": skipped[:100]}, target=eff)
    return batch, skipped
