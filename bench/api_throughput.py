"""The API's throughput figures in one run, on a database made by bench.seed:

1. the hot reads (history, tradeoff, compare) timed one at a time against two API
   servers on the same database, queries interleaved server by server so both see the
   same machine load. By default the two servers differ in Python's collector
   (``BASKETBENCH_GC=default`` vs tuned, core/gc_tuning.py); with ``--baseline REF`` they
   run the code of git REF (its backend/ exported to a temporary directory, first on
   PYTHONPATH) and this tree, and every hot answer is also compared between the two
   (bytes of the decoded JSON); with ``--single`` only this tree runs;
2. N concurrent readers (default 20) for S seconds against each: p50 / p95 / p99 and
   any non-200 (503 / 429 count as refusals, not errors);
3. the largest public request (CSV of 100 000 results) with the server's peak RSS around
   it (VmHWM, reset through /proc/PID/clear_refs), and ingest (1 uploader, then 2) in
   results/s end to end, rounds interleaved between the servers.

``--throughput-only`` leaves out 2 and the CSV request. The measurement of the goals on
an idle machine (history / compare p95, ingest results/s; ~4 minutes at 5 M results):

    .venv/bin/python -m bench.api_throughput --database bb_bench --single --throughput-only \
        --out /tmp/throughput.json

Before / after in one run: ``--baseline main`` (or any commit) instead of ``--single``.
Other package versions against constraints.txt's: ``--baseline-venv DIR``, a virtual
environment with this project installed (``pip install -e .`` and the versions to try):
its server runs this tree's code (with ``--baseline``, that ref's) on its packages; the
report lists the packages whose versions differ.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import typer

from bench.measure import (
    API,
    BASKETBENCH,
    CpuMeter,
    IngestTiming,
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
REPO = Path(__file__).resolve().parents[1]


@dataclass
class Variant:
    """One API server of the comparison: its label, environment and (for a baseline) the
    directory whose ``backend/`` is imported instead of this tree's."""

    label: str
    env: dict[str, str] = field(default_factory=dict)
    code: Path | None = None
    migrate: bool = True
    command: tuple[str, ...] = (BASKETBENCH,)


def export_backend(ref: str, into: Path) -> Path:
    """``git archive REF backend migrations alembic.ini`` unpacked under ``into``: that
    commit's API code (its start-up runs its own migrations, which must be the same)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "backend", "migrations",
                              "alembic.ini"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", ref],
                            capture_output=True, text=True, check=True).stdout.strip()
    (into / "COMMIT").write_text(commit + "\n")
    return into / "backend"


def venv_command(venv: Path) -> tuple[str, ...]:
    """`basketbench` of another virtual environment, through its interpreter (a venv
    copied with ``cp -a`` keeps scripts that name the original's), by an absolute path:
    the server runs in a directory of its own."""
    python = venv.absolute() / "bin" / "python"
    if not python.exists():
        raise typer.BadParameter(f"{venv}: no bin/python (not a virtual environment)")
    return (str(python), "-m", "basketbench.cli")


def installed_versions(python: str) -> dict[str, str]:
    """Every installed distribution's version, as that interpreter sees them."""
    out = subprocess.run([python, "-c", "import importlib.metadata as m, json; print(json."
                          "dumps({d.metadata['Name'].lower(): d.version "
                          "for d in m.distributions()}))"],
                         capture_output=True, text=True, check=True).stdout
    versions: dict[str, str] = json.loads(out)
    return versions


def differing_packages(python: str) -> dict[str, list[str | None]]:
    """Packages whose versions differ: name -> [the baseline interpreter's, this one's]."""
    theirs = installed_versions(python)
    ours = installed_versions(sys.executable)
    return {name: [theirs.get(name), ours.get(name)] for name in sorted(theirs.keys() | ours)
            if theirs.get(name) != ours.get(name)}


def variants(baseline: str | None, single: bool, detection: bool,
             tmp: Path, venv_cmd: tuple[str, ...] | None = None) -> list[Variant]:
    """The servers to compare. ``venv_cmd``: ``venv_command`` of the baseline's venv."""
    common = {"BASKETBENCH_MAX_IN_FLIGHT": "64",
              "BASKETBENCH_DETECTION": "true" if detection else "false"}
    if single:
        return [Variant("this tree", {**common, "BASKETBENCH_GC": "tuned"})]
    this = Variant("this tree", {**common, "BASKETBENCH_GC": "tuned"})
    command = venv_cmd if venv_cmd is not None else (BASKETBENCH,)
    # the venv's name: <venv>/bin/python
    venv_note = f", venv {Path(venv_cmd[0]).parent.parent.name}" if venv_cmd else ""
    if baseline is None:
        if venv_cmd is not None:  # this tree's code on the other venv's packages
            return [Variant(f"this tree{venv_note}", dict(this.env), command=command), this]
        return [Variant(f"gc {mode}", {**common, "BASKETBENCH_GC": mode})
                for mode in ("default", "tuned")]
    code = export_backend(baseline, tmp)
    commit = (tmp / "COMMIT").read_text().strip()
    # The database has this tree's schema: an older commit may not know its newest
    # migrations, so its server does not migrate (a schema its code does not expect is
    # the baseline's own limit; the tables it reads and writes are the same).
    return [Variant(f"{baseline} ({commit}){venv_note}",
                    {**common, "BASKETBENCH_GC": "tuned", "PYTHONPATH": str(code)}, code,
                    migrate=False, command=command),
            this]


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
    modes = list(by_mode)
    names = [t.name for t in by_mode[modes[0]]]
    lines = [f"{'query':40} {'goal':>5} " + " ".join(
        f"{'p50':>8} {'p95':>8} {'p99':>8} {'cpu api':>8} {'cpu db':>7} |" for _ in modes),
        f"{'':46} " + " ".join(f"{m[:47]:>48}|" for m in modes), "-" * (47 + 50 * len(modes))]
    for i, name in enumerate(names):
        row = [by_mode[m][i] for m in modes]
        goal = f"{row[0].goal_ms:.0f}" if row[0].goal_ms else "-"
        lines.append(f"{name:40} {goal:>5} " + " ".join(
            f"{t.p50_ms:8.1f} {t.p95_ms:8.1f} {t.p99_ms or 0:8.1f} {t.api_cpu_ms or 0:8.1f} "
            f"{t.db_cpu_ms or 0:7.1f} |" for t in row))
    return "\n".join(lines)


def same_answers(clients: dict[str, httpx.Client], hot: list[Query], per_query: int,
                 seed: int) -> dict[str, Any]:
    """The same requests to every server; the decoded answers must be the same bytes."""
    checked, different = 0, []
    for q in hot:
        r = random.Random(f"{seed}:same:{q.name}")
        for _ in range(per_query):
            path, params, _check = q.make(r)
            bodies = {m: c.get(API + path, params=params).content for m, c in clients.items()}
            checked += 1
            if len(set(bodies.values())) != 1:
                different.append({"path": path, "params": params,
                                  "sizes": {m: len(b) for m, b in bodies.items()}})
    return {"requests": checked, "identical": checked - len(different),
            "different": different[:5]}


def this_over(modes: list[str]) -> str:
    return f"{modes[1]} / {modes[0]}"


def paired_reads(clients: dict[str, httpx.Client], meters: dict[str, CpuMeter],
                 hot: list[Query], per_query: int, seed: int) -> dict[str, Any]:
    """Each request sent to both servers, one right after the other, the first of the two
    alternating: both answer under the same second of machine load, so the ratio of each
    pair (this tree / baseline) survives a machine whose speed drifts between the blocks
    of the sequential round. Per query: each server's p50 / p95, the pairs' ratio
    (median and quartiles) over the pairs both servers answered 200, and the CPU per
    request of each server's process and its PostgreSQL backends. A pair with another
    status is counted and its first few named under ``problems``, not timed."""
    baseline, this = list(clients)
    out: dict[str, Any] = {}
    for q in hot:
        r = random.Random(f"{seed}:paired:{q.name}")
        times: dict[str, list[float]] = {m: [] for m in clients}
        cpu = {m: [0.0, 0.0] for m in clients}
        problems: list[str] = []
        failed = 0
        for i in range(per_query):
            path, params, _check = q.make(r)
            pair: dict[str, float] = {}
            for mode in ((baseline, this) if i % 2 == 0 else (this, baseline)):
                # Both servers read one database, so its backends' CPU is told apart
                # only by when it was spent: a snapshot around each request (outside the
                # timed span).
                before = meters[mode].snapshot()
                t0 = time.perf_counter()
                resp = clients[mode].get(API + path, params=params)
                body = resp.content
                elapsed = (time.perf_counter() - t0) * 1000
                api_s, db_s = CpuMeter.delta(before, meters[mode].snapshot())
                cpu[mode][0] += api_s
                cpu[mode][1] += db_s
                if resp.status_code == 200:
                    pair[mode] = elapsed
                elif len(problems) < 5:
                    problems.append(f"[{mode}] {resp.status_code} {path} {params}: "
                                    f"{body[:200]!r}")
            if len(pair) < 2:
                failed += 1
                continue
            for mode, ms in pair.items():
                times[mode].append(ms)
        out[q.name] = {"pairs": per_query - failed, "failed": failed, "problems": problems,
                       **_pair_figures(times, cpu, per_query, baseline, this)}
    return out


def _pair_figures(times: dict[str, list[float]], cpu: dict[str, list[float]], sent: int,
                  baseline: str, this: str) -> dict[str, Any]:
    """Each server's p50 / p95 and CPU per request sent, and the pairs' ratio."""
    if not times[this]:
        return {"servers": {}, "ratio_median": None, "ratio_quartiles": [None, None]}
    ratios = np.array(times[this]) / np.array(times[baseline])
    return {
        "servers": {m: {"p50_ms": round(float(np.percentile(t, 50)), 2),
                        "p95_ms": round(float(np.percentile(t, 95)), 2),
                        "cpu_api_ms": round(cpu[m][0] * 1000 / sent, 2),
                        "cpu_db_ms": round(cpu[m][1] * 1000 / sent, 2)}
                    for m, t in times.items()},
        "ratio_median": round(float(np.median(ratios)), 3),
        "ratio_quartiles": [round(float(np.percentile(ratios, 25)), 3),
                            round(float(np.percentile(ratios, 75)), 3)]}


def describe_pairs(name: str, p: dict[str, Any], servers: list[str]) -> str:
    """One line of a query's paired figures (the progress and the summary print it)."""
    low, high = p["ratio_quartiles"]
    line = (f"paired, {name}: {this_over(servers)} {p['ratio_median']} (quartiles "
            f"{low}-{high}, {p['pairs']} pairs); " + "; ".join(
                f"{m}: p50 {v['p50_ms']} p95 {v['p95_ms']} ms, cpu api {v['cpu_api_ms']} "
                f"db {v['cpu_db_ms']} ms" for m, v in p["servers"].items()))
    if p["failed"]:
        line += f"; {p['failed']} pairs failed: {p['problems']}"
    return line


def combined(rounds: list[IngestTiming]) -> dict[str, Any]:
    """Several interleaved ingest rounds of one server as one figure."""
    docs = sum(r.documents for r in rounds)
    stored = sum(r.results_stored for r in rounds)
    seconds = sum(r.seconds for r in rounds)
    settled = seconds + sum(r.settle_s for r in rounds)

    def per_doc(attr: str) -> float | None:
        values = [(getattr(r, attr), r.documents) for r in rounds]
        if any(v is None for v, _ in values):
            return None
        return round(sum(v * n for v, n in values) / docs, 1)

    return {"uploaders": rounds[0].uploaders, "documents": docs,
            "results_per_document": rounds[0].results_per_document,
            "document_bytes": rounds[0].document_bytes, "results_stored": stored,
            "seconds": round(seconds, 2), "results_per_s": round(stored / seconds),
            "results_per_s_settled": round(stored / settled),
            "settle_s": round(settled - seconds, 2),
            "p50_ms_of_rounds": [r.p50_ms for r in rounds],
            "p95_ms_of_rounds": [r.p95_ms for r in rounds],
            "api_cpu_ms_per_doc": per_doc("api_cpu_ms_per_doc"),
            "db_cpu_ms_per_doc": per_doc("db_cpu_ms_per_doc"),
            "duplicate_ok": all(r.duplicate_ok for r in rounds),
            "problems": [p for r in rounds for p in r.problems][:5],
            "goal_results_per_s": 20_000}


def run(database: str, admin: str, requests: int, warmup: int, readers: int,
        reader_seconds: float, csv_limit: int, ingest_docs: int, seed: int,
        baseline: str | None = None, single: bool = False, throughput_only: bool = False,
        detection: bool = True, ingest_rounds: int = 2,
        compare_answers: int = 20, workers: int = 1,
        baseline_venv: Path | None = None, paired: int = 0) -> dict[str, Any]:
    url = database_url(admin, database)
    cat = read_catalog(url)
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations),
                  seed=seed)
    hot = [q for q in queries(cat) if q.name.startswith(HOT)]
    report: dict[str, Any] = {"database": database, "results": cat.results,
                              "uptime_before": _uptime(), "requests_per_query": requests,
                              "detection": detection, "server_workers": workers}
    venv_cmd = venv_command(baseline_venv) if baseline_venv is not None else None
    if venv_cmd is not None:
        report["packages_differing"] = differing_packages(venv_cmd[0])
        typer.echo(f"  packages differing (baseline venv, this one): "
                   f"{report['packages_differing']}", err=True)
    created: list[str] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bb-hard-")))
        servers: dict[str, Server] = {}
        for k, v in enumerate(variants(baseline, single, detection, tmp, venv_cmd)):
            work = tmp / f"server-{k}"
            work.mkdir()
            servers[v.label] = stack.enter_context(api_server(
                database_url(admin, database, driver=True), work, workers=workers,
                extra_env=v.env, migrate=v.migrate, command=v.command))
        report["servers"] = list(servers)
        modes = list(servers)
        clients = {m: stack.enter_context(httpx.Client(base_url=s.url, timeout=120))
                   for m, s in servers.items()}
        if len(servers) > 1 and compare_answers:
            report["same_answers"] = same_answers(clients, hot, compare_answers, seed)
            typer.echo(f"  same answers: {report['same_answers']}", err=True)
        if len(servers) == 2 and paired:
            meters = {m: CpuMeter(url, database, s.pid) for m, s in servers.items()}
            report["paired"] = paired_reads(clients, meters, hot, paired, seed)
            for meter in meters.values():
                meter.close()
            for name, p in report["paired"].items():
                typer.echo("  " + describe_pairs(name, p, modes), err=True)
        by_mode: dict[str, list[Timing]] = {m: [] for m in modes}
        for q in hot:  # interleaved: every server sees the same minutes of machine load
            for mode in modes:
                meter = CpuMeter(url, database, servers[mode].pid)
                by_mode[mode].append(time_query(clients[mode], q, requests, warmup, seed,
                                                meter=meter))
                meter.close()
                t = by_mode[mode][-1]
                typer.echo(f"  [{mode}] {t.name}: p50 {t.p50_ms} p95 {t.p95_ms} "
                           f"p99 {t.p99_ms} ms, cpu api {t.api_cpu_ms} db {t.db_cpu_ms} ms "
                           f"({t.ok}/{t.requests} ok)", err=True)
        report["sequential"] = {m: [t.__dict__ for t in ts] for m, ts in by_mode.items()}
        report["side_by_side"] = side_by_side(by_mode)
        if not throughput_only:
            report["concurrent"] = {}
            for mode in modes:
                report["concurrent"][mode] = concurrent_readers(servers[mode], hot, readers,
                                                                reader_seconds, seed)
                typer.echo(f"  [{mode}] {readers} readers: {report['concurrent'][mode]}",
                           err=True)
            report["largest_request"] = largest_request(servers[modes[-1]], csv_limit)
            typer.echo(f"  largest request: {report['largest_request']}", err=True)
        report["ingest"] = {}
        per_round = max(1, ingest_docs // ingest_rounds)
        next_commit = 0
        for uploaders in (1, 2):
            rounds: dict[str, list[IngestTiming]] = {m: [] for m in modes}
            for k in range(ingest_rounds):
                order = modes if k % 2 == 0 else modes[::-1]
                for mode in order:
                    meter = CpuMeter(url, database, servers[mode].pid)
                    rounds[mode].append(time_ingest(
                        clients[mode], servers[mode].token, cat, world, per_round, seed,
                        meter, uploaders=uploaders, first_commit=next_commit,
                        created=created))
                    meter.close()
                    next_commit += per_round
            for mode in modes:
                report["ingest"].setdefault(mode, []).append(combined(rounds[mode]))
                i = report["ingest"][mode][-1]
                typer.echo(f"  [{mode}] ingest, {uploaders} uploader(s): "
                           f"{i['results_per_s']} results/s, cpu api {i['api_cpu_ms_per_doc']} "
                           f"db {i['db_cpu_ms_per_doc']} ms/doc", err=True)
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
    ingest_docs: int = typer.Option(20, min=1, help="Documents per server and uploader "
                                    "count (864 results each at full scale)."),
    ingest_rounds: int = typer.Option(2, min=1, help="Ingest rounds per server, "
                                      "interleaved between the servers."),
    baseline: str | None = typer.Option(None, help="A git ref (e.g. main): compare its "
                                        "backend with this tree's instead of gc settings."),
    single: bool = typer.Option(False, help="Only this tree (collector tuned): the goals."),
    throughput_only: bool = typer.Option(False, help="Hot reads and ingest only: no "
                                         "concurrent readers, no CSV export."),
    detection: bool = typer.Option(True, help="Change detection after each ingest (the "
                                   "product default); its CPU counts in ingest's."),
    compare_answers: int = typer.Option(20, min=0, help="Requests per hot query sent to "
                                        "every server to compare the answers' bytes."),
    workers: int = typer.Option(1, min=1, help="`basketbench serve --workers` of every "
                                "server."),
    paired: int = typer.Option(0, min=0, help="With two servers: this many requests per "
                               "hot query sent to both, one right after the other (the "
                               "ratio of each pair; steadier than the sequential blocks)."),
    baseline_venv: Path | None = typer.Option(None, help="A virtual environment with this "
                                              "project installed: the baseline server runs "
                                              "on its packages (e.g. another FastAPI)."),
    seed: int = typer.Option(1),
    out: Path | None = typer.Option(None, help="Write the report as JSON here."),
) -> None:
    if single and (baseline or baseline_venv):
        raise typer.BadParameter("--single excludes --baseline and --baseline-venv")
    report = run(database, admin_url, requests, warmup, readers, reader_seconds, csv_limit,
                 ingest_docs, seed, baseline, single, throughput_only, detection,
                 ingest_rounds, compare_answers, workers, baseline_venv, paired)
    typer.echo(report["side_by_side"])
    for name, p in report.get("paired", {}).items():
        typer.echo(describe_pairs(name, p, report["servers"]))
    if "same_answers" in report:
        same = report["same_answers"]
        typer.echo(f"answers compared: {same['identical']} of {same['requests']} identical")
    for mode, c in report.get("concurrent", {}).items():
        typer.echo(f"{readers} readers, {mode}: {c['per_s']} answers/s, p50 {c['p50_ms']} "
                   f"p95 {c['p95_ms']} p99 {c['p99_ms']} ms, statuses {c['statuses']}")
    if "largest_request" in report:
        typer.echo(f"largest public request: {report['largest_request']}")
    for mode, rows in report["ingest"].items():
        for i in rows:
            typer.echo(f"ingest [{mode}], {i['uploaders']} uploader(s): "
                       f"{i['results_per_s']:,} results/s ({i['results_per_s_settled']:,} "
                       f"until the server was idle), api {i['api_cpu_ms_per_doc']} ms + db "
                       f"{i['db_cpu_ms_per_doc']} ms CPU per {i['results_per_document']}-result "
                       f"document, detection {'on' if detection else 'off'}")
    typer.echo(f"load: before {report['uptime_before']}; after {report['uptime_after']}")
    if out is not None:
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")


if __name__ == "__main__":
    app()
