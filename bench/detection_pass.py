"""CPU of ingest and of change-detection passes on a database made by bench.seed, the two
ways a pass can read its window (settings.detection_screen_points: the packed points of
screen_points, or the reload from results) interleaved in one process.

Ingests ``--commits`` new documents on one machine (detection off, as a plain ingest) and
after each runs its detection pass (changes/detection/service.after_ingest) both ways, in
alternating order, the first of the two in a transaction rolled back, the second
committed (the history goes on as the API would leave it). Reports CPU per document of this
process ("api") and of its PostgreSQL backend ("db", from /proc: run it on the database's
host), medians over the documents after the first (which pays imports, caches and, on a
seeded database, writing the window's packed points). Seed with ``--codec-set`` so the new
documents continue the seeded series (else every pass screens new, one-point series):

    .venv/bin/python -m bench.seed --database bb_bench --codec-set
    .venv/bin/python -m bench.detection_pass --database bb_bench --commits 9

Use a different ``--first`` per run on the same database: each run adds its commits.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import typer

from bench.documents import harness_document
from bench.measure import read_catalog
from bench.seed import DEFAULT_ADMIN, database_url
from bench.world import World

_TICK = os.sysconf("SC_CLK_TCK")


def backend_cpu_ms(pid: int) -> float:
    """CPU time (user + system) of a PostgreSQL backend process, in ms."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / _TICK


def timed(pid: int, work: Callable[[], Any]) -> tuple[float, float, float]:
    """(wall, this process's CPU, the backend's CPU) of ``work``, ms."""
    t, c, d = time.perf_counter(), time.process_time(), backend_cpu_ms(pid)
    work()
    return ((time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000,
            backend_cpu_ms(pid) - d)


def main(
    database: str = typer.Option("bb_bench", help="Database made by bench.seed."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN"),
    commits: int = typer.Option(9, help="New commits to ingest and screen."),
    first: int = typer.Option(2200, help="World commit index of the first new commit."),
    machine: int = typer.Option(1, help="Machine index (0-based) of the seeded world."),
) -> None:
    from basketbench.changes.detection.service import after_ingest
    from basketbench.core import gc_tuning
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine
    from basketbench.results import ingest
    from basketbench.web import guards
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    url = database_url(admin_url, database)
    settings = Settings(database_url=url, detection=False, detection_confirm_runs=0)
    paths = {"points": settings.model_copy(update={"detection_screen_points": True}),
             "reload": settings.model_copy(update={"detection_screen_points": False})}
    engine = make_engine(settings)
    cat = read_catalog(url)
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations))
    target = ingest.Target(None, None, None, None, None)
    gc_tuning.apply(settings.gc)  # the API's collector settings (bench/detection_ab.py)
    figures: dict[str, list[tuple[float, float, float]]] = {"ingest": [], **{p: [] for p in paths}}
    with engine.connect() as conn:
        pid = int(conn.execute(text("SELECT pg_backend_pid()")).scalar_one())
        conn.commit()
        for i in range(commits):
            sha = hashlib.sha1(f"detection-pass:{time.time_ns()}:{i}".encode()).hexdigest()
            body = json.dumps(harness_document(world, first + i, machine, sha)).encode()
            stored: list[Any] = []
            with Session(bind=conn) as session:
                figures["ingest"].append(timed(
                    pid, lambda s=session, b=body, out=stored: out.append(
                        ingest.ingest_harness(s, settings, guards.loads(b), target))))
            conn.commit()
            order = list(paths) if i % 2 == 0 else list(reversed(paths))
            for k, name in enumerate(order):
                outer = conn.begin() if k == 0 else None  # the first of the two: rolled back
                with Session(bind=conn, join_transaction_mode="create_savepoint") as session:
                    figures[name].append(timed(pid, lambda s=session, n=name, d=stored[0]:
                                               after_ingest(s, paths[n], d.document_id)))
                if outer is not None:
                    outer.rollback()
                else:
                    conn.commit()
    engine.dispose()
    rows = len(json.loads(body)["results"])
    typer.echo(f"{commits} documents of {rows} results on machine {machine + 1}, "
               f"commits {first}-{first + commits - 1}; medians after the first document:")
    for name, label in (("ingest", "ingest, detection off"),
                        ("points", "detection pass, packed points"),
                        ("reload", "detection pass, reload from results")):
        f = figures[name][1:] or figures[name]
        wall, api, db = (statistics.median(x[j] for x in f) for j in range(3))
        typer.echo(f"  {label:38s} wall {wall:7.1f} ms  cpu api {api:7.1f} ms  db {db:6.1f} ms"
                   f"  (first: api {figures[name][0][1]:.0f}, db {figures[name][0][2]:.0f})")


if __name__ == "__main__":
    typer.run(main)
