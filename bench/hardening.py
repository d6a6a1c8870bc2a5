"""Issue 13's throughput figures in one run, on a database made by bench.seed:

1. the hot reads (history, tradeoff, compare) timed one at a time against two API
   servers on the same database, Python's collector at CPython's defaults
   (``BASKETBENCH_GC=default``) and tuned (core/gc_tuning.py), queries interleaved
   server by server so both see the same machine load;
2. N concurrent readers (default 20) for S seconds against each: p50 / p95 / p99 and
   any non-200 (503 / 429 count as refusals, not errors);
3. on the tuned server: the largest public request (CSV of 100 000 results) with the
   server's peak RSS around it (VmHWM, reset through /proc/PID/clear_refs), and ingest
   (1 uploader, then 2) in results/s end to end.

    .venv/bin/python -m bench.hardening --database bb_bench --out /tmp/hardening.json
"""

from __future__ import annotations

import json
import random
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import typer

from bench.measure import (
    API,
    CpuMeter,
    Query,
    Server,
    Timing,
    _uptime,
    api_server,
    queries,
    read_catalog,
    remove_commits,
    time_ingest,
    time_query,
)
from bench.seed import DEFAULT_ADMIN, database_url
from bench.world import World

HOT = ("history", "tradeoff (commit", "compare")
MODES = ("default", "tuned")


def _rss_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return -1


def largest_request(server: Server, limit: int) -> dict[str, Any]:
    """GET /results?format=csv&limit=N read to the end; the server's RSS before and its
    peak during the request."""
    before = _rss_kb(server.pid, "VmRSS")
    Path(f"/proc/{server.pid}/clear_refs").write_text("5")  # reset VmHWM to VmRSS
    t0 = time.perf_counter()
    size = rows = 0
    with httpx.Client(base_url=server.url, timeout=600) as c, \
            c.stream("GET", API + "/results", params={"format": "csv", "limit": limit}) as r:
        status = r.status_code
        for chunk in r.iter_bytes():
            size += len(chunk)
            rows += chunk.count(b"\n")
    seconds = time.perf_counter() - t0
    peak = _rss_kb(server.pid, "VmHWM")
    return {"status": status, "limit": limit, "rows": rows - 1, "bytes": size,
            "seconds": round(seconds, 2), "rss_before_mb": round(before / 1024, 1),
            "rss_peak_mb": round(peak / 1024, 1),
            "peak_growth_mb": round((peak - before) / 1024, 1)}


def concurrent_readers(server: Server, hot: list[Query], readers: int, seconds: float,
                       seed: int) -> dict[str, Any]:
    lat: list[float] = []
    statuses: dict[int, int] = {}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def reader(k: int) -> None:
        r = random.Random(f"{seed}:reader:{k}")
        with httpx.Client(base_url=server.url, timeout=120) as c:
            while time.monotonic() < stop:
                q = r.choice(hot)
                path, params, _check = q.make(r)
                t0 = time.perf_counter()
                resp = c.get(API + path, params=params)
                _ = resp.content
                dt = (time.perf_counter() - t0) * 1000
                with lock:
                    statuses[resp.status_code] = statuses.get(resp.status_code, 0) + 1
                    if resp.status_code == 200:
                        lat.append(dt)

    threads = [threading.Thread(target=reader, args=(k,)) for k in range(readers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    a = np.array(lat) if lat else np.array([0.0])
    return {"readers": readers, "seconds": seconds, "answers": sum(statuses.values()),
            "per_s": round(sum(statuses.values()) / seconds, 1), "statuses": statuses,
            "p50_ms": round(float(np.percentile(a, 50)), 1),
            "p95_ms": round(float(np.percentile(a, 95)), 1),
            "p99_ms": round(float(np.percentile(a, 99)), 1),
            "max_ms": round(float(a.max()), 1)}


def side_by_side(by_mode: dict[str, list[Timing]]) -> str:
    names = [t.name for t in by_mode[MODES[0]]]
    lines = [f"{'query':40} {'goal':>5} " + " ".join(
        f"{m + ' p50':>13} {m + ' p95':>13} {m + ' p99':>13}" for m in MODES), "-" * 130]
    for i, name in enumerate(names):
        row = [by_mode[m][i] for m in MODES]
        goal = f"{row[0].goal_ms:.0f}" if row[0].goal_ms else "-"
        lines.append(f"{name:40} {goal:>5} " + " ".join(
            f"{t.p50_ms:13.1f} {t.p95_ms:13.1f} {t.p99_ms or 0:13.1f}" for t in row))
    return "\n".join(lines)


def run(database: str, admin: str, requests: int, warmup: int, readers: int,
        reader_seconds: float, csv_limit: int, ingest_docs: int, seed: int) -> dict[str, Any]:
    url = database_url(admin, database)
    cat = read_catalog(url)
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations),
                  seed=seed)
    hot = [q for q in queries(cat) if q.name.startswith(HOT)]
    report: dict[str, Any] = {"database": database, "results": cat.results,
                              "uptime_before": _uptime(), "requests_per_query": requests}
    with ExitStack() as stack:
        servers: dict[str, Server] = {}
        for mode in MODES:
            tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bb-hard-")))
            servers[mode] = stack.enter_context(api_server(
                database_url(admin, database, driver=True), tmp,
                extra_env={"BASKETBENCH_GC": mode, "BASKETBENCH_MAX_IN_FLIGHT": "64"}))
        clients = {m: stack.enter_context(httpx.Client(base_url=s.url, timeout=120))
                   for m, s in servers.items()}
        by_mode: dict[str, list[Timing]] = {m: [] for m in MODES}
        for q in hot:  # interleaved: both servers see the same minutes of machine load
            for mode in MODES:
                meter = CpuMeter(url, database, servers[mode].pid)
                by_mode[mode].append(time_query(clients[mode], q, requests, warmup, seed,
                                                meter=meter))
                meter.close()
                t = by_mode[mode][-1]
                typer.echo(f"  [{mode}] {t.name}: p50 {t.p50_ms} p95 {t.p95_ms} "
                           f"p99 {t.p99_ms} ms ({t.ok}/{t.requests} ok)", err=True)
        report["sequential"] = {m: [t.__dict__ for t in ts] for m, ts in by_mode.items()}
        report["side_by_side"] = side_by_side(by_mode)
        report["concurrent"] = {}
        for mode in MODES:
            report["concurrent"][mode] = concurrent_readers(servers[mode], hot, readers,
                                                            reader_seconds, seed)
            typer.echo(f"  [{mode}] {readers} readers: {report['concurrent'][mode]}", err=True)
        tuned = servers["tuned"]
        report["largest_request"] = largest_request(tuned, csv_limit)
        typer.echo(f"  largest request: {report['largest_request']}", err=True)
        created: list[str] = []
        meter = CpuMeter(url, database, tuned.pid)
        report["ingest"] = [time_ingest(clients["tuned"], tuned.token, cat, world, ingest_docs,
                                        seed, meter, uploaders=u,
                                        first_commit=ingest_docs * (u - 1),
                                        created=created).__dict__ for u in (1, 2)]
        meter.close()
        typer.echo(f"  ingest: {[(i['uploaders'], i['results_per_s']) for i in report['ingest']]}",
                   err=True)
    report["ingested_commits_removed"] = remove_commits(url, created) if created else 0
    report["uptime_after"] = _uptime()
    return report


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    database: str = typer.Option(..., help="A database made by bench.seed."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN"),
    requests: int = typer.Option(200, min=1, help="Timed requests per query and server."),
    warmup: int = typer.Option(10, min=0),
    readers: int = typer.Option(20, min=1, help="Concurrent readers."),
    reader_seconds: float = typer.Option(30.0, help="How long the readers read."),
    csv_limit: int = typer.Option(100_000, help="Rows of the largest public request."),
    ingest_docs: int = typer.Option(10, min=1),
    seed: int = typer.Option(1),
    out: Path | None = typer.Option(None, help="Write the report as JSON here."),
) -> None:
    report = run(database, admin_url, requests, warmup, readers, reader_seconds, csv_limit,
                 ingest_docs, seed)
    typer.echo(report["side_by_side"])
    for mode, c in report["concurrent"].items():
        typer.echo(f"{readers} readers, gc {mode}: {c['per_s']} answers/s, p50 {c['p50_ms']} "
                   f"p95 {c['p95_ms']} p99 {c['p99_ms']} ms, statuses {c['statuses']}")
    typer.echo(f"largest public request: {report['largest_request']}")
    for i in report["ingest"]:
        typer.echo(f"ingest, {i['uploaders']} uploader(s): {i['results_per_s']:,} results/s "
                   f"(api {i['api_cpu_ms_per_doc']} ms + db {i['db_cpu_ms_per_doc']} ms CPU "
                   f"per {i['results_per_document']}-result document)")
    typer.echo(f"load: before {report['uptime_before']}; after {report['uptime_after']}")
    if out is not None:
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")


if __name__ == "__main__":
    app()
