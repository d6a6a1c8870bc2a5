"""End to end with real processes: PostgreSQL, Redis, `basketbench serve`, `basketbench worker`.

A git repository in ROOT's layout (our rootcompat sources) gets a signed GitHub push
webhook for three commits: the base, one that changes no compression file (must hit the
build cache) and one that makes LZ4 decoding slower (must show in the numbers). A second
test SIGKILLs the worker during the benchmark stage: a new worker must finish the run,
with exactly one result set stored.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench_workers.pipeline.stages import run_dir

from .conftest import (
    FINAL,
    LayoutRepo,
    WorkerProcess,
    push_payload,
    send_push,
    unique_tag,
    wait_for,
)
from .gitrepo import commit_files, git

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def start_api(factory: Callable[..., Any], broker_url: str, tmp_path: Path) -> Any:
    # The workers need the API only: no dashboard (an empty dist dir mounts nothing).
    return factory(BASKETBENCH_BROKER_URL=broker_url, BASKETBENCH_FRONTEND_DIST=str(tmp_path))


def get(api: Any, path: str, **params: Any) -> Any:
    response = httpx.get(api.api + path, params=params, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def registered(api: Any, tag: str) -> list[dict[str, Any]]:
    return list(get(api, "/machines", tag=tag)["items"])


def results_of(api: Any, run_id: int) -> list[dict[str, Any]]:
    page = get(api, "/results", run=run_id, limit=1000)
    assert page["total"] <= 1000
    return list(page["items"])


def base_machine(runs: list[dict[str, Any]]) -> int:
    ids = {r["machine_id"] for r in runs}
    assert len(ids) == 1, ids
    return int(ids.pop())


def lz4_decompress_medians(results: list[dict[str, Any]]) -> dict[str, float]:
    return {
        r["dataset"]: r["decompress_mbps"]["median"]
        for r in results
        if r["setting"] == 404 and r["preconditioner"] == "none" and r["decompress_mbps"]
    }


@pytest.mark.timeout(1500)
def test_webhook_runs_every_commit_with_cache_hit_and_regression(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    worker_dir: Path,
    tmp_path: Path,
) -> None:
    api = start_api(api_server_factory, broker_url, tmp_path)
    tag = unique_tag()
    worker = start_worker(api, broker_url, tag)
    wait_for(lambda: registered(api, tag), 600, "the worker to register", on_timeout=worker.log)
    machine = registered(api, tag)[0]
    assert machine["fingerprint"] and machine["name"]

    shas = [layout_repo.base, layout_repo.docs, layout_repo.slow]
    pushed_at = time.monotonic()
    answer = send_push(api, push_payload(layout_repo, shas))
    assert answer.status_code == 202, answer.text
    run_ids = answer.json()["run_ids"]
    assert len(run_ids) == 3

    def all_final() -> list[dict[str, Any]] | None:
        runs = [get(api, f"/runs/{i}") for i in run_ids]
        return runs if all(r["status"] in FINAL for r in runs) else None

    runs = wait_for(all_final, 1200, "three runs to finish", interval=2, on_timeout=worker.log)
    elapsed = time.monotonic() - pushed_at
    by_commit = {r["commit"]: r for r in runs}
    for sha in shas:
        run = by_commit[sha]
        assert run["status"] == "succeeded", (run["log_tail"], worker.log()[-4000:])
        assert run["stage"] == "done" and run["progress"] == 1.0
        assert run["result_count"] > 0 and run["machine_id"] == base_machine(runs)
        assert {"checkout", "build", "benchmark", "upload"} <= set(run["timings"])

    base, docs, slow = (by_commit[s] for s in shas)
    # The runs' machine is the worker's registration for the fingerprint rzbench reports
    # (it names its backend, so it may be a newer version of the machine registered at start).
    tag_machines = {m["id"]: m for m in registered(api, tag)}
    assert tag_machines[base["machine_id"]]["name"] == machine["name"]
    # The commit that changed no compression file reuses the base build, fast, and says so.
    # (The base tree itself may already be cached: the cache is keyed by content, and an
    # earlier test in this session's worker directory builds the same generated tree.)
    assert docs["build_cache_hit"] is True
    assert docs["timings"]["build"] < 1.0, docs["timings"]
    assert "build cache hit" in (run_dir(worker_dir, api.url, docs["id"]) / "run.log").read_text()
    assert slow["build_cache_hit"] is False  # core/lz4 changed

    # Same sizes everywhere (the regression is speed only), LZ4 decoding clearly slower.
    base_results = results_of(api, base["id"])
    slow_results = results_of(api, slow["id"])
    assert len(base_results) == len(slow_results) == base["result_count"]
    sizes = {(r["dataset"], r["setting"]): r["compressed_bytes"] for r in base_results}
    assert sizes == {(r["dataset"], r["setting"]): r["compressed_bytes"] for r in slow_results}
    # Issue 21: each run also stored its exact per-branch sizes (rzbench sizes, under the
    # document's codec set); per file they add up to the results' sizes.
    log = (run_dir(worker_dir, api.url, base["id"]) / "run.log").read_text()
    uploaded = re.search(r"branch sizes: \d+ dataset\(s\) uploaded \((.+)\)", log)
    assert uploaded, log[-2000:]
    for (dataset, setting), compressed in sizes.items():
        if setting == 0:
            continue
        [whole] = get(api, "/branch-sizes", commit=base["commit"], dataset=dataset,
                      codecs=uploaded.group(1), group_by="file")["groups"]
        assert {s["setting"]: s["compressed_bytes"] for s in whole["sizes"]
                if s["preconditioner"] == "none"}[setting] == compressed, (dataset, setting)
    before, after = lz4_decompress_medians(base_results), lz4_decompress_medians(slow_results)
    assert before and before.keys() == after.keys()
    ratios = [after[d] / before[d] for d in before]
    assert statistics.median(ratios) < 0.7, (before, after)
    for r in base_results + slow_results:
        assert r["roundtrip_ok"] and r["error"] is None
        assert r["machine_id"] == base["machine_id"]  # the machine the run reported
    print(
        f"\nwebhook -> 3 commits stored in {elapsed:.1f} s; timings: "
        + "; ".join(f"{r['commit'][:8]} {r['timings']}" for r in (base, docs, slow))
        + f"; LZ4-4 decompression slow/base: {[round(x, 2) for x in ratios]}"
    )


@pytest.mark.timeout(1500)
def test_sigkill_mid_benchmark_is_requeued_by_the_reaper_and_runs_exactly_once(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    """SIGKILL of the whole worker during the benchmark stage. The API's reaper sees the
    run's heartbeat stop and requeues it (new generation, new outbox row) within
    BASKETBENCH_RUN_HEARTBEAT_TIMEOUT; a new worker finishes it. The dead worker's message,
    redelivered by Redis after its visibility timeout, is dropped by the claim: exactly one
    result set, two attempts."""
    api = api_server_factory(
        BASKETBENCH_BROKER_URL=broker_url,
        BASKETBENCH_FRONTEND_DIST=str(tmp_path),
        BASKETBENCH_RUN_HEARTBEAT_TIMEOUT="15",
        BASKETBENCH_REAP_INTERVAL="2",
    )
    tag = unique_tag()
    worker_env = {
        "BASKETBENCH_HEARTBEAT_SECONDS": "2",
        # Redelivers the dead worker's message during the test, to prove it is dropped.
        "BASKETBENCH_VISIBILITY_TIMEOUT": "30",
        "BASKETBENCH_UNACKED_RESTORE_INTERVAL": "2",
        "BASKETBENCH_UNACKED_RESTORE_THROTTLE": "1",
    }
    first = start_worker(api, broker_url, tag, **worker_env)
    wait_for(lambda: registered(api, tag), 600, "the worker to register", on_timeout=first.log)

    answer = send_push(api, push_payload(layout_repo, [layout_repo.base]))
    assert answer.status_code == 202, answer.text
    (run_id,) = answer.json()["run_ids"]

    wait_for(
        lambda: get(api, f"/runs/{run_id}")["stage"] == "benchmark",
        600,
        "the benchmark stage",
        interval=0.2,
        on_timeout=first.log,
    )
    time.sleep(1.0)  # well inside rzbench
    first.kill()
    killed_at = time.monotonic()
    killed = get(api, f"/runs/{run_id}")
    assert killed["status"] == "running" and killed["result_count"] == 0

    second = start_worker(api, broker_url, tag, **worker_env)
    wait_for(
        lambda: get(api, f"/runs/{run_id}")["attempts"] >= 2,
        300,
        "the reaper to requeue the run and the new worker to claim it",
        interval=0.5,
        on_timeout=lambda: api.log() + second.log(),
    )
    requeued_after = time.monotonic() - killed_at
    print(f"\nFAULT-TIME worker SIGKILL -> requeued and claimed by the new worker: "
          f"{requeued_after:.1f} s (heartbeat timeout 15 s, reaper every 2 s)")
    run = wait_for(
        lambda: (r := get(api, f"/runs/{run_id}"))["status"] in FINAL and r,
        900,
        "the requeued run to finish",
        interval=2,
        on_timeout=second.log,
    )
    assert run["status"] == "succeeded", (run["log_tail"], second.log()[-4000:])
    assert run["attempts"] == 2
    # The message of generation 0 comes back from Redis and is dropped, not run again.
    wait_for(
        lambda: f"run {run_id}: message for generation 0 dropped" in second.log(),
        300,
        "the stale message to be redelivered and dropped",
        interval=1,
        on_timeout=lambda: "\n".join(
            line for line in second.log().splitlines() if "heartbeat" not in line),
    )
    run = get(api, f"/runs/{run_id}")
    assert run["status"] == "succeeded" and run["attempts"] == 2
    results = results_of(api, run_id)
    assert len(results) == run["result_count"] > 0
    assert len({r["document_id"] for r in results}) == 1  # one complete result set
    # Each (dataset, configuration) exactly once.
    keys = [(r["dataset"], r["configuration_id"]) for r in results]
    assert len(keys) == len(set(keys))


@pytest.mark.timeout(900)
def test_compile_error_fails_the_run_with_its_log_tail(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    # A side branch whose ZSTD source does not compile.
    git(layout_repo.path, "checkout", "-q", "-b", f"broken-{unique_tag()}", layout_repo.base)
    try:
        broken = commit_files(
            layout_repo.path,
            {"core/zstd/src/broken_codec.cpp": "int broken( { return 0; }\n"},
            "zstd: does not compile",
        )
    finally:
        git(layout_repo.path, "checkout", "-q", "master")
    api = start_api(api_server_factory, broker_url, tmp_path)
    tag = unique_tag()
    worker = start_worker(api, broker_url, tag)
    wait_for(lambda: registered(api, tag), 600, "the worker to register", on_timeout=worker.log)
    answer = send_push(api, push_payload(layout_repo, [broken], before=layout_repo.base))
    assert answer.status_code == 202, answer.text
    (run_id,) = answer.json()["run_ids"]
    run = wait_for(
        lambda: (r := get(api, f"/runs/{run_id}"))["status"] in FINAL and r,
        600,
        "the broken run to fail",
        interval=1,
        on_timeout=worker.log,
    )
    assert run["status"] == "failed" and run["stage"] == "failed"
    assert run["log_tail"].startswith("stage build failed:")
    assert "broken_codec.cpp" in run["log_tail"] and "error" in run["log_tail"]
    assert run["result_count"] == 0 and "build" in run["timings"]
