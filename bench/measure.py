"""Measure the API on a seeded database: p50/p95 latency per query, and ingest rate.

    .venv/bin/python -m bench.measure --database bb_bench --out bench-results.json

Starts ``basketbench serve`` (one uvicorn worker, runs not dispatched) on a free port
against the database, then sends each query ``--requests`` times with reproducible
random choices of series / commit / machine / dataset, one request at a time over a
keep-alive connection (latency = client-side, request sent to body read). Every
answer must be 200 and have the expected number of points / rows, computed from the
database beforehand. Finally POSTs ``--ingest-docs`` harness documents for new
commits and reports results stored per second end to end.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/measure.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx
import numpy as np
import psycopg
import typer

from bench.documents import harness_document
from bench.seed import DEFAULT_ADMIN, database_url
from bench.world import World

BASKETBENCH = str(Path(sys.executable).with_name("basketbench"))
API = "/api/v1"
METRICS = ("ratio", "compressed_bytes", "compress_mbps", "decompress_mbps")

Check = Callable[[Any], str | None]  # answer JSON -> problem, or None when sane


# ---- the API server ------------------------------------------------------------------

@dataclass
class Server:
    url: str
    token: str
    log: Path
    pid: int


class CpuMeter:
    """CPU seconds used by the API process and by the PostgreSQL backends serving this
    database, from /proc (Linux). On a machine shared with other work, CPU time per
    request is a steadier figure than wall time: it is what the request costs, not
    how long it queued for a core."""

    def __init__(self, url: str, database: str, server_pid: int) -> None:
        self.conn = psycopg.connect(url, autocommit=True)
        self.database = database
        self.server_pid = server_pid
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def _cpu(self, pid: int) -> float:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return 0.0
        return (int(fields[11]) + int(fields[12])) / self.tick  # utime + stime

    def _children(self) -> list[int]:
        """uvicorn's worker processes (``serve --workers N``): their CPU is not in the
        parent's utime until they exit."""
        out = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if ppid == self.server_pid:
                out.append(int(stat.parent.name))
        return out

    def snapshot(self) -> tuple[float, dict[int, float]]:
        pids = [r[0] for r in self.conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            (self.database,))]
        return self._api_cpu(), {pid: self._cpu(pid) for pid in pids}

    def _api_cpu(self) -> float:
        return self._cpu(self.server_pid) + sum(self._cpu(c) for c in self._children())

    def wait_idle(self, quiet_s: float = 0.5, limit_s: float = 120.0) -> float:
        """Seconds until the API processes stop using CPU (background tasks done): their
        CPU time unchanged over ``quiet_s``. Capped at ``limit_s``."""
        started = time.perf_counter()
        last = self._api_cpu()
        while time.perf_counter() - started < limit_s:
            time.sleep(quiet_s)
            now = self._api_cpu()
            if now - last <= 1.0 / self.tick:
                return max(0.0, time.perf_counter() - started - quiet_s)
            last = now
        return time.perf_counter() - started

    @staticmethod
    def delta(before: tuple[float, dict[int, float]],
              after: tuple[float, dict[int, float]]) -> tuple[float, float]:
        api = after[0] - before[0]
        db = sum(cpu - before[1].get(pid, 0.0) for pid, cpu in after[1].items())
        return api, db

    def close(self) -> None:
        self.conn.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def api_server(db_url: str, workdir: Path, workers: int = 1,
               extra_env: dict[str, str] | None = None,
               migrate: bool = True,
               command: Sequence[str] = (BASKETBENCH,)) -> Iterator[Server]:
    """`basketbench serve` on a free port; stopped (SIGTERM, then SIGKILL) on exit.
    ``command``: how to start `basketbench` (bench/api_throughput.py --baseline-venv: the
    same code in another environment, with other package versions)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env.update(extra_env or {})
    env.update({"BASKETBENCH_DATABASE_URL": db_url, "BASKETBENCH_DISPATCH": "none",
                "BASKETBENCH_LOG_LEVEL": "warning",
                "BASKETBENCH_DATA_DIR": str(workdir / "data"),
                "BASKETBENCH_FRONTEND_DIST": str(workdir / "no-frontend")})
    # `token create` migrates: a server that must not (an older commit's) gets its token
    # from this tree's code, in the same database.
    token_env = env if migrate else {k: v for k, v in env.items() if k != "PYTHONPATH"}
    # The benchmark writes (ingest) and triggers: an admin token; a commit from before
    # token scopes (issue 38) has no --scope option.
    for scope in (["--scope", "admin"], []):
        created = subprocess.run([*command, "token", "create", "--name", "bench", *scope],
                                 env=token_env, cwd=workdir, capture_output=True, text=True,
                                 timeout=120)
        if created.returncode == 0 or "--scope" not in created.stderr:
            break
    if created.returncode != 0:
        raise RuntimeError(f"basketbench token create failed:\n{created.stderr}")
    token = created.stdout.strip().splitlines()[-1]
    port = _free_port()
    log = workdir / "server.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [*command, "serve", "--host", "127.0.0.1", "--port", str(port),
             "--workers", str(workers), *([] if migrate else ["--no-migrate"])],
            env=env, cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 300  # 2 workers importing scipy at load 20-30
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"basketbench serve exited:\n{log.read_text()}")
            try:
                if httpx.get(url + API + "/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"basketbench serve did not start:\n{log.read_text()}")
            time.sleep(0.2)
        yield Server(url=url, token=token, log=log, pid=proc.pid)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=15)


# ---- what the database holds (the expected answers) ---------------------------------

@dataclass
class Catalog:
    shas: list[str]                    # commits with results, git order
    machines: list[tuple[str, str]]    # (name, tag)
    datasets: list[str]
    settings: list[int]                # settings of default-field configurations
    configurations: list[dict[str, Any]]
    pairs_per_run: int                 # (dataset, configuration) pairs per commit x machine
    runs: int
    results: int
    commits_per_machine: dict[str, int] = field(default_factory=dict)

    def configurations_matching(self, **fields: Any) -> int:
        return sum(all(c[k] == v for k, v in fields.items()) for c in self.configurations)


def _one(conn: psycopg.Connection[Any], sql: str) -> tuple[Any, ...]:
    row = conn.execute(sql).fetchone()
    assert row is not None
    return tuple(row)


def read_catalog(url: str) -> Catalog:
    with psycopg.connect(url) as conn:
        # Commits measured on every machine (tradeoff, compare and results pick from them).
        shas = [r[0] for r in conn.execute(
            'SELECT c.sha FROM commits c JOIN result_documents d ON d.commit_id = c.id '
            'GROUP BY c.id HAVING count(DISTINCT d.machine_id) = '
            '(SELECT count(*) FROM machines WHERE active) ORDER BY c."order", c.date, c.id')]
        machines = [(r[0], r[1]) for r in conn.execute(
            "SELECT name, tag FROM machines WHERE active ORDER BY id")]
        datasets = [r[0] for r in conn.execute("SELECT name FROM datasets ORDER BY id")]
        cols = ("id", "setting", "codec", "preconditioner", "dictionary_size", "basket_size",
                "mode", "threads")
        confs = [dict(zip(cols, r, strict=True)) for r in conn.execute(
            f"SELECT {', '.join(cols)} FROM configurations ORDER BY id")]
        settings = sorted({c["setting"] for c in confs if c["preconditioner"] == "none"
                           and c["dictionary_size"] == 0 and c["basket_size"] == 0
                           and c["mode"] == "basket" and c["threads"] == 1})
        per_machine: dict[str, int] = dict(conn.execute(
            "SELECT m.name, count(DISTINCT d.commit_id) FROM result_documents d "
            "JOIN machines m ON m.id = d.machine_id GROUP BY m.name").fetchall())
        runs = _one(conn, "SELECT count(*) FROM runs")[0]
        docs = _one(conn, "SELECT coalesce(sum(result_count), 0), "
                          "coalesce(max(result_count), 0) FROM result_documents")
    return Catalog(shas=shas, machines=machines, datasets=datasets, settings=settings,
                   configurations=confs, pairs_per_run=int(docs[1]), runs=int(runs),
                   results=int(docs[0]), commits_per_machine=per_machine)


def database_sizes(url: str) -> dict[str, Any]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT c.relname, c.relkind, pg_relation_size(c.oid), "
            "pg_total_relation_size(c.oid) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'i') "
            "ORDER BY pg_relation_size(c.oid) DESC").fetchall()
        total = _one(conn, "SELECT pg_database_size(current_database())")[0]
        counts = {t: _one(conn, f"SELECT count(*) FROM {t}")[0] for t in
                  ("results", "result_documents", "runs", "commits", "configurations")}
    return {"database_bytes": total, "row_counts": counts,
            "relations": [{"name": r[0], "kind": "table" if r[1] == "r" else "index",
                           "bytes": r[2], "total_bytes": r[3]} for r in rows if r[2] > 0]}


# ---- queries ------------------------------------------------------------------------

@dataclass
class Query:
    name: str
    goal_ms: float | None
    make: Callable[[random.Random], tuple[str, dict[str, Any], Check]]


def _expect(key: str, n: int) -> Check:
    def check(body: Any) -> str | None:
        got = len(body[key]) if isinstance(body[key], list) else body[key]
        return None if got == n else f"{key}: {got} != expected {n}"
    return check


def _all(*checks: Check) -> Check:
    def check(body: Any) -> str | None:
        for c in checks:
            problem = c(body)
            if problem:
                return problem
        return None
    return check


def queries(cat: Catalog) -> list[Query]:
    n_commits = len(cat.shas)
    machines = [m for m, _ in cat.machines]
    tags = sorted({t for _, t in cat.machines})
    default_fields = {"preconditioner": "none", "dictionary_size": 0, "basket_size": 0,
                      "mode": "basket", "threads": 1}
    n_default = cat.configurations_matching(**default_fields)
    reference = 505 if 505 in cat.settings else cat.settings[0]
    preconditioners = sorted({c["preconditioner"] for c in cat.configurations})
    pairs = cat.pairs_per_run

    def history(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        m = r.choice(machines)
        expected = cat.commits_per_machine.get(m, 0)

        def check(body: Any) -> str | None:
            if body["total_points"] != expected:
                return f"total_points {body['total_points']} != {expected}"
            if not body["downsampled"] and len(body["points"]) != expected:
                return f"{len(body['points'])} points != {expected}"
            return None
        return "/history", {"machine": m, "dataset": r.choice(cat.datasets),
                            "setting": r.choice(cat.settings), "metric": r.choice(METRICS)}, check

    def tradeoff(ref: bool) -> Callable[[random.Random], tuple[str, dict[str, Any], Check]]:
        def make(r: random.Random) -> tuple[str, dict[str, Any], Check]:
            params: dict[str, Any] = {"commit": r.choice(cat.shas), "machine": r.choice(machines),
                                      "dataset": r.choice(cat.datasets)}
            if ref:
                params["reference"] = reference
            return "/tradeoff", params, _expect("points", n_default)
        return make

    def compare_commits(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        base, head = r.sample(cat.shas, 2)
        return "/compare", {"base_commit": base, "head_commit": head,
                            "machine": r.choice(machines)}, _expect("rows", pairs * len(METRICS))

    def compare_machines(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        base, head = r.sample(machines, 2) if len(machines) > 1 else (machines[0], machines[0])
        return "/compare", {"base_machine": base, "head_machine": head,
                            "commit": r.choice(cat.shas)}, _expect("rows", pairs * len(METRICS))

    def configurations(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        kind = r.randrange(3)
        if kind == 0:
            pre = r.choice(preconditioners)
            params = {"preconditioner": pre, "dataset": r.choice(cat.datasets),
                      "machine": r.choice(machines)}
            n = cat.configurations_matching(preconditioner=pre)
        elif kind == 1:
            s = r.choice(cat.settings)
            params = {"setting": s, "tag": r.choice(tags)}
            n = cat.configurations_matching(setting=s)
        else:
            lo = r.randrange(n_commits)
            hi = min(n_commits - 1, lo + r.randrange(1, 200))
            params = {"commit_from": cat.shas[lo], "commit_to": cat.shas[hi],
                      "machine": r.choice(machines), "limit": 1000}
            n = len(cat.configurations)
        return "/configurations", params, _expect("total", n)

    def dimensions(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        return "/configurations/dimensions", {}, _all(
            _expect("machines", len(cat.machines)), _expect("datasets", len(cat.datasets)))

    def latest(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        return "/configurations/latest", {"machine": r.choice(machines),
                                          "dataset": r.choice(cat.datasets)}, _expect(
            "total", len(cat.configurations))

    def commits_page(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        offset = r.randrange(n_commits)
        return "/commits", {"limit": 100, "offset": offset}, _all(
            _expect("total", n_commits), _expect("items", min(100, n_commits - offset)))

    def runs_page(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        offset = r.randrange(cat.runs)
        return "/runs", {"limit": 100, "offset": offset, "status": "succeeded"}, _all(
            _expect("total", cat.runs), _expect("items", min(100, cat.runs - offset)))

    def results_run(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        offset = r.randrange(pairs)
        return "/results", {"commit": r.choice(cat.shas), "machine": r.choice(machines),
                            "limit": 100, "offset": offset}, _all(
            _expect("total", pairs), _expect("items", min(100, pairs - offset)))

    def results_all(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        offset = r.randrange(min(cat.results, 10_000))
        return "/results", {"limit": 100, "offset": offset}, _all(
            _expect("total", cat.results), _expect("items", min(100, cat.results - offset)))

    def machines_list(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        return "/machines", {}, _expect("total", len(cat.machines))

    def datasets_list(r: random.Random) -> tuple[str, dict[str, Any], Check]:
        return "/datasets", {}, _expect("total", len(cat.datasets))

    return [
        # p95 goals of issue 34 (history and tradeoff 10 ms, compare 50 ms, idle machine)
        Query("history (1 series, all commits)", 10, history),
        Query("tradeoff (commit x machine x dataset)", 10, tradeoff(False)),
        Query(f"tradeoff, reference={reference}", 10, tradeoff(True)),
        Query("compare 2 commits, 1 machine", 50, compare_commits),
        Query("compare 2 machines, 1 commit", 50, compare_machines),
        Query("configurations (filtered)", None, configurations),
        Query("configurations/dimensions", None, dimensions),
        Query("configurations/latest (machine+dataset)", None, latest),
        Query("commits (page of 100)", None, commits_page),
        Query("runs (page of 100)", None, runs_page),
        Query("results (1 run, page of 100)", None, results_run),
        Query("results (unfiltered, page of 100)", None, results_all),
        Query("machines", None, machines_list),
        Query("datasets", None, datasets_list),
    ]


@dataclass
class Timing:
    name: str
    goal_ms: float | None
    requests: int
    ok: int
    p50_ms: float
    p95_ms: float
    max_ms: float
    mean_ms: float
    mean_bytes: float
    mean_wire_bytes: float  # as sent: gzip when the answer is over 1 kB
    api_cpu_ms: float | None
    db_cpu_ms: float | None
    passed: bool | None
    problems: list[str]
    p99_ms: float | None = None


def time_query(client: httpx.Client, q: Query, n: int, warmup: int, seed: int,
               budget_s: float = math.inf, min_requests: int = 20,
               meter: CpuMeter | None = None) -> Timing:
    """``n`` timed requests, or fewer (at least ``min_requests``) once ``budget_s``
    seconds are spent: a multi-second query must not hold the run for an hour."""
    r = random.Random(f"{seed}:{q.name}")
    times: list[float] = []
    sizes: list[int] = []
    wire: list[int] = []
    problems: list[str] = []
    ok = 0
    started = time.perf_counter()
    cpu_before = None
    for i in range(warmup + n):
        if (i - warmup >= min_requests and time.perf_counter() - started > budget_s):
            break
        if i == warmup and meter is not None:
            cpu_before = meter.snapshot()
        path, params, check = q.make(r)
        t0 = time.perf_counter()
        resp = client.get(API + path, params=params)
        body = resp.content
        dt = (time.perf_counter() - t0) * 1000
        if i < warmup:
            continue
        times.append(dt)
        sizes.append(len(body))
        wire.append(resp.num_bytes_downloaded)
        if resp.status_code != 200:
            problems.append(f"{resp.status_code} {path} {params}: {body[:300]!r}")
            continue
        try:
            problem = check(resp.json())
        except (KeyError, TypeError, ValueError) as exc:
            problem = f"unexpected answer: {exc!r}"
        if problem:
            problems.append(f"{path} {params}: {problem}")
        else:
            ok += 1
    api_cpu = db_cpu = None
    if meter is not None and cpu_before is not None:
        api_s, db_s = CpuMeter.delta(cpu_before, meter.snapshot())
        api_cpu, db_cpu = round(api_s * 1000 / len(times), 2), round(db_s * 1000 / len(times), 2)
    a = np.array(times)
    p95 = float(np.percentile(a, 95))
    return Timing(
        name=q.name, goal_ms=q.goal_ms, requests=len(times), ok=ok,
        p50_ms=round(float(np.percentile(a, 50)), 2), p95_ms=round(p95, 2),
        max_ms=round(float(a.max()), 2), mean_ms=round(float(a.mean()), 2),
        mean_bytes=round(float(np.mean(sizes))), mean_wire_bytes=round(float(np.mean(wire))),
        api_cpu_ms=api_cpu, db_cpu_ms=db_cpu, p99_ms=round(float(np.percentile(a, 99)), 2),
        problems=problems[:5],
        passed=None if q.goal_ms is None else (p95 <= q.goal_ms and ok == len(times)))


# ---- ingest ---------------------------------------------------------------------------

@dataclass
class IngestTiming:
    documents: int
    results_per_document: int
    document_bytes: int
    results_stored: int
    seconds: float
    results_per_s: float
    p50_ms: float
    p95_ms: float
    duplicate_ms: float
    duplicate_ok: bool
    goal_results_per_s: float
    passed: bool
    problems: list[str]
    api_cpu_ms_per_doc: float | None = None
    db_cpu_ms_per_doc: float | None = None
    uploaders: int = 1
    # Work the server still did after the last answer (change detection runs as a
    # background task after each ingest), until its CPU stopped growing; counted in the
    # CPU figures, and in results_per_s_settled.
    settle_s: float = 0.0
    results_per_s_settled: float = 0.0


def time_ingest(client: httpx.Client, token: str, cat: Catalog, world: World, n_docs: int,
                seed: int, meter: CpuMeter | None = None, uploaders: int = 1,
                first_commit: int = 0, created: list[str] | None = None) -> IngestTiming:
    """``n_docs`` documents for new commits, POSTed by ``uploaders`` clients at once
    (each its own connection, documents dealt round-robin). The new commits' shas are
    appended to ``created``."""
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    nonce = f"{seed}:{time.time_ns()}"
    bodies = []
    for i in range(n_docs):
        sha = hashlib.sha1(f"bench-ingest:{nonce}:{i}".encode()).hexdigest()
        doc = harness_document(world, len(cat.shas) + first_commit + i, i % world.machines, sha)
        if created is not None:
            created.append(sha)
        bodies.append(json.dumps(doc).encode())
    times: list[float] = []
    problems: list[str] = []

    def upload(share: list[bytes]) -> int:
        stored = 0
        with httpx.Client(base_url=client.base_url, timeout=client.timeout) as own:
            for body in share:
                t0 = time.perf_counter()
                resp = own.post(API + "/results", content=body, headers=headers)
                times.append((time.perf_counter() - t0) * 1000)  # list.append: thread-safe
                if resp.status_code != 201:
                    problems.append(f"{resp.status_code}: {resp.text[:300]}")
                    continue
                stored += int(resp.json()["results"])
        return stored

    shares = [bodies[k::uploaders] for k in range(uploaders)]
    cpu_before = meter.snapshot() if meter is not None else None
    t_all = time.perf_counter()
    with ThreadPoolExecutor(uploaders) as pool:
        stored = sum(pool.map(upload, shares))
    seconds = time.perf_counter() - t_all
    settle = meter.wait_idle() if meter is not None else 0.0
    api_cpu = db_cpu = None
    if meter is not None and cpu_before is not None:
        api_s, db_s = CpuMeter.delta(cpu_before, meter.snapshot())
        api_cpu, db_cpu = round(api_s * 1000 / n_docs, 1), round(db_s * 1000 / n_docs, 1)
    t0 = time.perf_counter()
    again = client.post(API + "/results", content=bodies[0], headers=headers)
    dup_ms = (time.perf_counter() - t0) * 1000
    dup_ok = again.status_code == 200 and again.json().get("duplicate") is True
    if not dup_ok:
        problems.append(f"duplicate: {again.status_code} {again.text[:300]}")
    a = np.array(times)
    rate = stored / seconds if seconds else 0.0
    return IngestTiming(
        documents=n_docs, results_per_document=world.pairs,
        document_bytes=round(float(np.mean([len(b) for b in bodies]))),
        results_stored=stored, seconds=round(seconds, 3), results_per_s=round(rate),
        p50_ms=round(float(np.percentile(a, 50)), 1), p95_ms=round(float(np.percentile(a, 95)), 1),
        duplicate_ms=round(dup_ms, 1), duplicate_ok=dup_ok, goal_results_per_s=20_000,
        passed=rate >= 20_000 and not problems, problems=problems[:5],
        api_cpu_ms_per_doc=api_cpu, db_cpu_ms_per_doc=db_cpu, uploaders=uploaders,
        settle_s=round(settle, 2),
        results_per_s_settled=round(stored / (seconds + settle)) if seconds else 0.0)


def remove_commits(url: str, shas: list[str]) -> int:
    """Delete what ingest added (the commits cascade to their documents and results), so
    the next measurement sees the seeded history: same points per series, and every
    commit on every machine."""
    with psycopg.connect(url, autocommit=True) as conn:
        cur = conn.execute("DELETE FROM commits WHERE sha = ANY(%s)", (shas,))
        # Their dead rows stay in the series index until a vacuum: without it every later
        # history read visits the heap for them (the table is far below autovacuum's
        # threshold of 20 % dead rows), and each benchmark run reads slower than the last.
        conn.execute("VACUUM results, result_documents, commits")
        return cur.rowcount


# ---- report -----------------------------------------------------------------------------

def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def table(timings: list[Timing], ingests: list[IngestTiming]) -> str:
    lines = [f"{'query':42} {'ok':>9} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} "
             f"{'goal':>6} {'':4} {'cpu api':>8} {'cpu db':>7} {'KB':>7} {'KB wire':>7}",
             "-" * 110]
    for t in timings:
        goal = f"{t.goal_ms:.0f}" if t.goal_ms else "-"
        verdict = "" if t.passed is None else ("PASS" if t.passed else "MISS")
        cpu = (f"{t.api_cpu_ms:8.1f} {t.db_cpu_ms:7.1f}" if t.api_cpu_ms is not None
               and t.db_cpu_ms is not None else f"{'':8} {'':7}")
        lines.append(f"{t.name:42} {t.ok:>4}/{t.requests:<4} {t.p50_ms:8.1f} {t.p95_ms:8.1f} "
                     f"{t.max_ms:8.1f} {goal:>6} {verdict:4} {cpu} {t.mean_bytes / 1e3:7.1f} "
                     f"{t.mean_wire_bytes / 1e3:7.1f}")
    for ingest in ingests:
        lines.append("-" * 110)
        lines.append(
            f"ingest, {ingest.uploaders} uploader{'s' if ingest.uploaders > 1 else ''}: "
            f"{ingest.documents} documents x {ingest.results_per_document} results "
            f"({ingest.document_bytes / 1e6:.2f} MB each): {ingest.results_per_s:,.0f} "
            f"results/s (p50 {ingest.p50_ms:.0f} ms/doc, goal 20,000/s) "
            f"{'PASS' if ingest.passed else 'MISS'}; duplicate re-POST "
            f"{'200 duplicate' if ingest.duplicate_ok else 'WRONG'} in "
            f"{ingest.duplicate_ms:.0f} ms; cpu per document: api "
            f"{ingest.api_cpu_ms_per_doc} ms, db {ingest.db_cpu_ms_per_doc} ms")
    return "\n".join(lines)


def measure(database: str, admin: str, requests: int, warmup: int, ingest_docs: int,
            seed: int, only: list[str] | None = None, budget_s: float = math.inf,
            progress: bool = False, ingest_uploaders: int = 1,
            workers: int = 1, keep_ingested: bool = False) -> dict[str, Any]:
    url = database_url(admin, database)
    cat = read_catalog(url)
    if not cat.shas:
        raise SystemExit(f"database {database!r} has no results: run bench.seed first")
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations),
                  seed=seed)
    report: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "database": database, "host": platform.node(), "cpus": os.cpu_count(),
        "uptime_before": _uptime(), "requests_per_query": requests, "warmup": warmup,
        "budget_s_per_query": budget_s, "server_workers": workers,
        "sizes": database_sizes(url),
    }
    with tempfile.TemporaryDirectory(prefix="bb-bench-") as tmp, \
            api_server(database_url(admin, database, driver=True), Path(tmp),
                       workers) as server, \
            httpx.Client(base_url=server.url, timeout=120) as client:
        meter = CpuMeter(url, database, server.pid)
        timings = []
        for q in queries(cat):
            if only and not any(o in q.name for o in only):
                continue
            timings.append(time_query(client, q, requests, warmup, seed, budget_s,
                                      min(20, requests), meter))
            if progress:
                t = timings[-1]
                typer.echo(f"  {t.name}: {t.ok}/{t.requests} ok, p50 {t.p50_ms} ms, "
                           f"p95 {t.p95_ms} ms, cpu api {t.api_cpu_ms} db {t.db_cpu_ms} ms",
                           err=True)
        ingests = []
        created: list[str] = []
        if ingest_docs > 0:
            ingests.append(time_ingest(client, server.token, cat, world, ingest_docs, seed, meter,
                                       created=created))
        if ingest_docs > 0 and ingest_uploaders > 1:
            ingests.append(time_ingest(client, server.token, cat, world, ingest_docs, seed,
                                       meter, ingest_uploaders, first_commit=ingest_docs,
                                       created=created))
        meter.close()
        server_log = server.log.read_text(errors="replace")[-2000:]
    report["ingested_commits_removed"] = (
        remove_commits(url, created) if created and not keep_ingested else 0)
    report["uptime_after"] = _uptime()
    report["queries"] = [t.__dict__ for t in timings]
    report["ingest"] = ingests[0].__dict__ if ingests else None
    report["ingest_concurrent"] = ingests[1].__dict__ if len(ingests) > 1 else None
    report["server_log_tail"] = server_log
    report["table"] = table(timings, ingests)
    return report


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    database: str = typer.Option(..., help="A database made by bench.seed."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN"),
    requests: int = typer.Option(200, min=1, help="Timed requests per query."),
    warmup: int = typer.Option(5, min=0, help="Untimed requests per query first."),
    ingest_docs: int = typer.Option(10, min=0, help="Documents POSTed for the ingest rate."),
    ingest_uploaders: int = typer.Option(1, min=1, help="When > 1, a second ingest round "
                                         "with this many concurrent uploaders."),
    workers: int = typer.Option(1, min=1, help="`basketbench serve --workers`."),
    keep_ingested: bool = typer.Option(False, help="Keep the commits ingest added (by "
                                       "default they are deleted at the end)."),
    seed: int = typer.Option(1, help="The seed bench.seed used (machine fingerprints)."),
    only: list[str] = typer.Option([], help="Only queries whose name contains this."),
    budget_s: float = typer.Option(120.0, help="Seconds per query after which it stops "
                                   "(after at least 20 requests)."),
    quiet: bool = typer.Option(False, help="No progress lines."),
    out: Path | None = typer.Option(None, help="Write the full report as JSON here."),
) -> None:
    report = measure(database, admin_url, requests, warmup, ingest_docs, seed, only or None,
                     budget_s, progress=not quiet, ingest_uploaders=ingest_uploaders,
                     workers=workers, keep_ingested=keep_ingested)
    typer.echo(report["table"])
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(report, indent=2, default=str) + "\n")
        typer.echo(f"report: {out}")
    bad = [q for q in report["queries"] if q["ok"] != q["requests"]]
    for key in ("ingest", "ingest_concurrent"):
        if report[key] and report[key]["problems"]:
            bad.append(report[key])
    if bad:
        typer.echo(f"error: {len(bad)} measurements had wrong answers", err=True)
        raise typer.Exit(1)


if __name__ == "__main__":
    app()
