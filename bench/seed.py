"""Seed a fresh PostgreSQL database with a large synthetic history (default 5.18 M results).

    .venv/bin/python -m bench.seed --database bb_bench            # full scale
    .venv/bin/python -m bench.seed --commits 20 --machines 2 --datasets 2 --configurations 5

Creates the database, runs the Alembic migrations (the schema the API uses), then
COPYs straight into the tables of ``basketbench.models``. The results table is
loaded the way a bulk restore is: its secondary indexes are dropped and rebuilt
from their own definitions afterwards, foreign-key triggers are off for the load
session (the ids are consistent by construction), and COPY FREEZE marks the pages
all-visible so the benchmark does not first pay for a vacuum. This is the seed
rate, not the ingest rate (``bench.measure`` measures ingest through the API).
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/seed.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psycopg
import typer
from basketbench.results.provenance import build_key

from bench.world import SAMPLES, World, stats

DEFAULT_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
RESULT_COLUMNS = (
    "document_id", "run_id", "commit_id", "machine_id", "codec_set_id", "dataset_id",
    "configuration_id",
    "uncompressed_bytes", "compressed_bytes", "ratio", "roundtrip_ok", "error",
    "dictionary_train_ms",
    "c_median", "c_min", "c_max", "c_mean", "c_stddev", "c_cv", "c_n", "c_samples",
    "d_median", "d_min", "d_max", "d_mean", "d_stddev", "d_cv", "d_n", "d_samples",
)
_SAMPLES_FMT = "[" + ",".join(["%.3f"] * SAMPLES) + "]"
_SPEED_FMT = "%.3f\t%.3f\t%.3f\t%r\t%r\t%r\t" + str(SAMPLES) + "\t" + _SAMPLES_FMT
# Per row after the constant (document, run, commit, machine) prefix.
_ROW_FMT = ("%d\t%d\t%d\t%d\t%r\tt\t\\N\t\\N\t" + _SPEED_FMT + "\t" + _SPEED_FMT + "\n")


@dataclass
class SeedReport:
    database: str
    url: str
    commits: int
    machines: int
    datasets: int
    configurations: int
    pairs: int
    results: int
    migrate_s: float
    catalog_s: float
    copy_s: float
    index_s: dict[str, float]
    analyze_s: float
    total_s: float
    rows_per_s_copy: float
    rows_per_s_total: float


def database_url(admin: str, name: str, driver: bool = False) -> str:
    base = admin.rsplit("/", 1)[0] + "/" + name
    return base.replace("postgresql://", "postgresql+psycopg://", 1) if driver else base


def create_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            raise SystemExit(f"database {name!r} exists; drop it or choose another --database")
        conn.execute(f'CREATE DATABASE "{name}"')


def drop_database(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def migrate(url: str) -> None:
    import basketbench.core.migrate as migrations
    from basketbench.core.config import Settings

    migrations.upgrade(Settings(database_url=url))


def _copy_rows(cur: psycopg.Cursor[Any], table: str, columns: list[str],
               rows: list[tuple[Any, ...]]) -> None:
    quoted = ", ".join(f'"{c}"' for c in columns)  # "order" is a keyword
    with cur.copy(f"COPY {table} ({quoted}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def host_codec_set(world: World) -> tuple[Any, ...]:
    """The codec set ingest records for the world's machines (their fingerprints' host
    libraries): (id, key, name, root_version, libraries, series_key)."""
    from basketbench.results.codec_sets import HOST, codec_set_key, series_key

    libraries = world.machine_list()[0]["fingerprint"]["libraries"]
    key = codec_set_key(HOST, None, libraries)
    return (1, key, HOST, None, _json(libraries), series_key(HOST, key))


SEED_TOOL, SEED_BACKEND = "rzbench 0.1.0", "rootcompat"


def seed_catalog(conn: psycopg.Connection[Any], world: World, codec_set: bool = False) -> None:
    """Repository, commits, machines, datasets, configurations, runs, documents (and with
    ``codec_set`` the machines' host codec set, on every document and result)."""
    now = datetime.now(UTC)
    commits = world.commit_list()
    machines = world.machine_list()
    with conn.cursor() as cur:
        if codec_set:
            _copy_rows(cur, "codec_sets",
                       ["id", "key", "name", "root_version", "libraries", "series_key"],
                       [host_codec_set(world)])
        _copy_rows(cur, "repositories", ["id", "name", "url", "created_at"],
                   [(1, "root-project/root", "https://github.com/root-project/root", now)])
        _copy_rows(cur, "commits",
                   ["id", "repository_id", "sha", "parents", "author", "author_email", "date",
                    "message", "branch", "order", "created_at"],
                   [(c.id, 1, c.sha, _json(c.parents), c.author,
                     c.author.lower().replace(" ", ".") + "@example.org", c.date, c.message,
                     c.branch, c.order, now) for c in commits])
        _copy_rows(cur, "machines",
                   ["id", "name", "tag", "version", "fingerprint", "fingerprint_hash",
                    "registered_at", "last_heartbeat", "active"],
                   [(m["id"], m["name"], m["tag"], 1, _json(m["fingerprint"]),
                     m["fingerprint"]["fingerprint_hash"], world.start, now, True)
                    for m in machines])
        _copy_rows(cur, "datasets", ["id", "name", "source", "bytes", "baskets", "checksum"],
                   [(d["id"], d["name"], d["source"], d["bytes"], d["baskets"], d["checksum"])
                    for d in world.dataset_list()])
        _copy_rows(cur, "configurations",
                   ["id", "setting", "algorithm", "level", "codec", "preconditioner",
                    "dictionary_size", "basket_size", "mode", "threads"],
                   [(c.id, c.setting, c.algorithm, c.level, c.codec, c.preconditioner,
                     c.dictionary_size, c.basket_size, c.mode, c.threads)
                    for c in world.configuration_list()])
        runs, docs = [], []
        for c in commits:
            for m in machines:
                run_id = run_number(world, c.id - 1, m["id"] - 1)
                started = c.date + timedelta(minutes=10)
                finished = started + timedelta(minutes=40)
                runs.append((run_id, c.id, m["id"], m["tag"], "default", "succeeded", "done",
                             1.0, "webhook", 1, c.date, started, finished,
                             _json({"build_s": 310.0, "bench_s": 2100.0}), None, True,
                             world.pairs))
                sha256 = hashlib.sha256(f"bench-doc:{world.seed}:{run_id}".encode()).hexdigest()
                docs.append((run_id, sha256, "harness", run_id, c.id, m["id"], SEED_TOOL,
                             SEED_BACKEND, None,
                             _json({"min_samples": SAMPLES, "target_pass_ms": 50.0}),
                             world.pairs, finished, finished, 1 if codec_set else None, 1))
        _copy_rows(cur, "runs",
                   ["id", "commit_id", "machine_id", "tag", "suite", "status", "stage",
                    "progress", "trigger", "attempts", "created_at", "started_at",
                    "finished_at", "timings", "log_tail", "build_cache_hit", "result_count"],
                   runs)
        # Every document was measured by the one build the API would store for it.
        _copy_rows(cur, "builds", ["id", "key", "tool", "backend"],
                   [(1, build_key(SEED_TOOL, SEED_BACKEND, None, None, None, None),
                     SEED_TOOL, SEED_BACKEND)])
        _copy_rows(cur, "result_documents",
                   ["id", "sha256", "kind", "run_id", "commit_id", "machine_id", "tool",
                    "backend", "root_commit", "parameters", "result_count", "created_at",
                    "received_at", "codec_set_id", "build_id"], docs)


def run_number(world: World, commit_index: int, machine_index: int) -> int:
    """Run id == document id of one (commit, machine)."""
    return commit_index * world.machines + machine_index + 1


def result_lines(world: World, commit_index: int, machine_index: int,
                 codec_set: bool = False) -> str:
    """COPY text lines of one run's results."""
    b = world.block(commit_index, machine_index)
    cs, ds = stats(b["c_samples"]), stats(b["d_samples"])
    run = run_number(world, commit_index, machine_index)
    prefix = f"{run}\t{run}\t{commit_index + 1}\t{machine_index + 1}\t" \
        f"{1 if codec_set else chr(92) + 'N'}\t"
    head = zip(b["dataset_id"].tolist(), b["configuration_id"].tolist(),
               b["uncompressed"].tolist(), b["compressed"].tolist(), b["ratio"].tolist(),
               strict=True)
    c = zip(*(cs[k].tolist() for k in ("median", "min", "max", "mean", "stddev", "cv")),
            b["c_samples"].tolist(), strict=True)
    d = zip(*(ds[k].tolist() for k in ("median", "min", "max", "mean", "stddev", "cv")),
            b["d_samples"].tolist(), strict=True)
    fmt = _ROW_FMT
    return "".join([prefix + fmt % (*h, *cc[:6], *cc[6], *dd[:6], *dd[6])
                    for h, cc, dd in zip(head, c, d, strict=True)])


def _blocks(world: World) -> Iterator[tuple[int, int]]:
    for c in range(world.commits):
        for m in range(world.machines):
            yield c, m


def copy_results(conn: psycopg.Connection[Any], world: World, progress: bool,
                 codec_set: bool = False) -> float:
    """COPY FREEZE every result in one transaction; returns seconds."""
    t0 = time.perf_counter()
    columns = ", ".join(RESULT_COLUMNS)
    total = world.commits * world.machines
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("SET LOCAL session_replication_role = replica")  # no FK triggers
        cur.execute("TRUNCATE results")  # FREEZE needs the table emptied in this transaction
        with cur.copy(f"COPY results ({columns}) FROM STDIN WITH (FREEZE)") as copy:
            pending: list[str] = []
            for k, (c, m) in enumerate(_blocks(world), 1):
                pending.append(result_lines(world, c, m, codec_set))
                if len(pending) >= 8 or k == total:
                    copy.write("".join(pending))
                    pending = []
                if progress and k % 600 == 0:
                    done = k * world.pairs
                    dt = time.perf_counter() - t0
                    typer.echo(f"  {done:>10,} results  {dt:7.1f} s  {done / dt:9,.0f} rows/s",
                               err=True)
    return time.perf_counter() - t0


def secondary_indexes(conn: psycopg.Connection[Any], table: str) -> dict[str, str]:
    rows = conn.execute(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.tablename = %s "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
        (table,)).fetchall()
    return dict(rows)


def seed(world: World, name: str, admin: str = DEFAULT_ADMIN, progress: bool = True,
         create: bool = True, codec_set: bool = False) -> SeedReport:
    t_start = time.perf_counter()
    if create:
        create_database(admin, name)
    url = database_url(admin, name)
    t = time.perf_counter()
    migrate(database_url(admin, name, driver=True))
    migrate_s = time.perf_counter() - t
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        conn.execute("SET maintenance_work_mem = '512MB'")
        t = time.perf_counter()
        with conn.transaction():
            seed_catalog(conn, world, codec_set)
        catalog_s = time.perf_counter() - t
        indexes = secondary_indexes(conn, "results")
        with conn.transaction():
            for index in indexes:
                conn.execute(f'DROP INDEX "{index}"')
        copy_s = copy_results(conn, world, progress, codec_set)
        index_s: dict[str, float] = {}
        for index, ddl in indexes.items():
            t = time.perf_counter()
            with conn.transaction():
                conn.execute(ddl)
            index_s[index] = round(time.perf_counter() - t, 2)
            if progress:
                typer.echo(f"  index {index}: {index_s[index]:.1f} s", err=True)
        t = time.perf_counter()
        for table in ("results", "result_documents", "runs", "commits", "configurations",
                      "datasets", "machines", "repositories", "codec_sets", "builds"):
            # Keep the ids the API will hand out after our explicit ones.
            if table != "results":
                conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                             f"(SELECT coalesce(max(id), 1) FROM {table}))")
            # The small tables vacuumed too (results are loaded frozen): index-only scans
            # of result_documents need its visibility map, as a serving database has it.
            conn.execute(f"ANALYZE {table}" if table == "results" else f"VACUUM ANALYZE {table}")
        analyze_s = time.perf_counter() - t
    total_s = time.perf_counter() - t_start
    n = world.total_results
    return SeedReport(
        database=name, url=url, commits=world.commits, machines=world.machines,
        datasets=world.datasets, configurations=world.configurations, pairs=world.pairs,
        results=n, migrate_s=round(migrate_s, 2), catalog_s=round(catalog_s, 2),
        copy_s=round(copy_s, 2), index_s=index_s, analyze_s=round(analyze_s, 2),
        total_s=round(total_s, 2), rows_per_s_copy=round(n / copy_s),
        rows_per_s_total=round(n / total_s))


app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)


@app.command()
def main(
    database: str = typer.Option("", help="Database to create (default: bb_bench_<hex>)."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN",
                                  help="Maintenance database URL (CREATE DATABASE)."),
    commits: int = typer.Option(2000), machines: int = typer.Option(3),
    datasets: int = typer.Option(8), configurations: int = typer.Option(108),
    seed_value: int = typer.Option(1, "--seed"),
    report: Path | None = typer.Option(None, help="Write the seed report as JSON here."),
    quiet: bool = typer.Option(False, help="No progress lines."),
    codec_set: bool = typer.Option(
        False, help="Record the machines' host codec set on every document and result, as "
                    "ingest does: documents ingested later continue the seeded series (change "
                    "detection screens them against the history; without it they start new "
                    "series)."),
) -> None:
    try:
        world = World(commits=commits, machines=machines, datasets=datasets,
                      configurations=configurations, seed=seed_value)
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from exc
    name = database or "bb_bench_" + uuid.uuid4().hex[:12]
    typer.echo(f"seeding {name}: {world.commits} commits x {world.machines} machines x "
               f"{world.pairs} pairs = {world.total_results:,} results", err=True)
    create_database(admin_url, name)
    try:
        rep = seed(world, name, admin_url, progress=not quiet, create=False,
                   codec_set=codec_set)
    except BaseException:
        drop_database(admin_url, name)  # never leave a half-seeded database behind
        raise
    data = asdict(rep)
    text = json.dumps(data, indent=2)
    if report is not None:
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text(text + "\n")
    typer.echo(text)


if __name__ == "__main__":
    app()
