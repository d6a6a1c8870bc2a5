"""CPU and wall time of change-detection passes on a database made by bench.seed.

Ingests ``--commits`` new documents on one machine (detection off, as a plain ingest),
then runs the detection pass of each (changes/detection/service.after_ingest) and
prints its times. The first pass of a process also pays imports and caches. To compare
two trees on the same database, alternate them:

    PYTHONPATH=../other/backend:../other .venv/bin/python -m bench.detection_pass --first 2200
    .venv/bin/python -m bench.detection_pass --first 2210

(use a different ``--first`` per run: each run adds its commits to the database).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time

import typer

from bench.documents import harness_document
from bench.measure import read_catalog
from bench.seed import DEFAULT_ADMIN, database_url
from bench.world import World


def main(
    database: str = typer.Option("bb_bench", help="Database made by bench.seed."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN"),
    commits: int = typer.Option(4, help="New commits to ingest and screen."),
    first: int = typer.Option(2200, help="World commit index of the first new commit."),
    machine: int = typer.Option(1, help="Machine index (0-based) of the seeded world."),
) -> None:
    from basketbench.changes.detection.service import after_ingest
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.results import ingest
    from basketbench.web import guards

    settings = Settings(database_url=database_url(admin_url, database), detection=False,
                        detection_confirm_runs=0)
    factory = make_sessionmaker(make_engine(settings))
    cat = read_catalog(database_url(admin_url, database))
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations))
    target = ingest.Target(None, None, None, None, None)
    documents = []
    for i in range(commits):
        sha = hashlib.sha1(f"detection-pass:{time.time_ns()}:{i}".encode()).hexdigest()
        doc = harness_document(world, first + i, machine, sha)
        with factory() as session:
            documents.append(ingest.ingest_harness(
                session, settings, guards.loads(json.dumps(doc).encode()), target).document_id)
    wall, cpu = [], []
    for document_id in documents:
        with factory() as session:
            t, c = time.perf_counter(), time.process_time()
            out = after_ingest(session, settings, document_id)
            wall.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
    print(f"passes: wall {[round(x) for x in wall]} ms, CPU {[round(x) for x in cpu]} ms; "
          f"median CPU after the first {statistics.median(cpu[1:] or cpu):.0f} ms; "
          f"last pass: {len(out.candidates)} candidates, {len(out.confirmed)} confirmed")


if __name__ == "__main__":
    typer.run(main)
