"""Harness result documents (harness-result-v1.schema.json) for the ingest benchmark."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bench.world import REPOSITORY, SAMPLES, World, stats


def _speed(s: dict[str, list[float]], i: int, samples: list[float]) -> dict[str, Any]:
    return {"median": s["median"][i], "min": s["min"][i], "max": s["max"][i],
            "mean": s["mean"][i], "stddev": s["stddev"][i], "cv": s["cv"][i],
            "samples": samples}


def harness_document(world: World, commit_index: int, machine_index: int,
                     sha: str) -> dict[str, Any]:
    """One rzbench run of every (dataset, configuration) of ``world`` for commit ``sha`` on
    machine ``machine_index``; values continue the seeded history at ``commit_index``."""
    b = world.block(commit_index, machine_index)
    confs = {c.id: c for c in world.configuration_list()}
    datasets = world.dataset_list()
    names = {d["id"]: d["name"] for d in datasets}
    machine = world.machine_list()[machine_index]
    cs = {k: v.tolist() for k, v in stats(b["c_samples"]).items()}
    ds = {k: v.tolist() for k, v in stats(b["d_samples"]).items()}
    c_samples, d_samples = b["c_samples"].tolist(), b["d_samples"].tolist()
    results = []
    for i, (ds_id, conf_id, unc, comp, ratio) in enumerate(zip(
            b["dataset_id"].tolist(), b["configuration_id"].tolist(),
            b["uncompressed"].tolist(), b["compressed"].tolist(), b["ratio"].tolist(),
            strict=True)):
        c = confs[conf_id]
        results.append({
            "dataset": names[ds_id], "codec": c.codec, "setting": c.setting,
            "algorithm": c.algorithm, "level": c.level, "preconditioner": c.preconditioner,
            "dictionary_size": c.dictionary_size, "dictionary_train_ms": None,
            "basket_size": c.basket_size, "mode": c.mode, "threads": c.threads,
            "uncompressed_bytes": unc, "compressed_bytes": comp, "ratio": ratio,
            "compress_mbps": _speed(cs, i, c_samples[i]),
            "decompress_mbps": _speed(ds, i, d_samples[i]),
            "roundtrip_ok": True, "error": None,
        })
    return {
        "schema_version": "1",
        "tool": {"name": "rzbench", "version": "0.1.0"},
        "created_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "backend": "rootcompat",
        "root_commit": None,
        "context": {"repository": REPOSITORY, "commit": sha, "machine": machine["name"],
                    "tag": machine["tag"]},
        "machine": machine["fingerprint"],
        "parameters": {"min_samples": SAMPLES, "target_pass_ms": 50.0, "interleaved": True},
        "datasets": [{k: d[k] for k in ("name", "source", "bytes", "baskets", "checksum")}
                     for d in datasets],
        "results": results,
    }
