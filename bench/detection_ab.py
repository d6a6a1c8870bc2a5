"""A commit's change detection against this tree's, on copies of one seeded database: the
changes each records (every column, as text) and the CPU of its passes.

For each round, this tree and ``--baseline`` (a git ref, checked out in a temporary
worktree) each get a fresh ``TEMPLATE`` copy of ``--database`` and run the same loop, one
after the other (A, B, A, B: two processes at once disturb each other's CPU figures): every
new commit ingested on each machine (detection off, as a plain ingest), then its detection
pass (changes/detection/service.after_ingest), committed. The changes and runs tables are
then compared; any difference exits 1. Seed with ``--codec-set`` (the new documents continue
the seeded series):

    .venv/bin/python -m bench.seed --database bb_cs --codec-set
    .venv/bin/python -m bench.detection_ab --database bb_cs --baseline main

CPU medians leave out each machine's first pass (it writes the window's packed points of a
database bench.seed filled without them).
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psycopg
import typer

from bench.seed import DEFAULT_ADMIN, database_url

REPO = Path(__file__).resolve().parents[1]
app = typer.Typer(add_completion=False)


@app.command()
def compare(
    database: str = typer.Option(..., help="A database made by bench.seed --codec-set."),
    baseline: str = typer.Option("main", help="The git ref to compare this tree with."),
    commits: int = typer.Option(10, help="New commits per round (each on every machine)."),
    first: int = typer.Option(2100, help="World commit index of the first new commit."),
    rounds: int = typer.Option(3, help="Rounds of baseline then this tree."),
    confirm_runs: int = typer.Option(0, help="settings.detection_confirm_runs."),
    admin_url: str = typer.Option(DEFAULT_ADMIN, envvar="BASKETBENCH_TEST_PG_ADMIN"),
) -> None:
    with tempfile.TemporaryDirectory(prefix="bb-detection-ab-") as tmp:
        tree = Path(tmp) / "baseline"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "-q", str(tree),
                        baseline], check=True)
        try:
            sides = [(baseline, tree), ("this tree", REPO)]
            differ = False
            ratios: list[float] = []  # this tree's pass CPU / the baseline's, paired
            for k in range(rounds):
                out: dict[str, dict[str, Any]] = {}
                # alternate which side goes first: the VM's speed drifts within a round
                for name, root in sides if k % 2 == 0 else sides[::-1]:
                    copy = f"{database}_ab"
                    _fresh_copy(admin_url, database, copy)
                    report = Path(tmp) / f"{k}-{'base' if root == tree else 'this'}.json"
                    # the side's backend; the documents and this loop from this tree
                    env = {**os.environ, "PYTHONPATH": f"{root / 'backend'}{os.pathsep}{REPO}",
                           "PYTHONHASHSEED": "0"}
                    load = os.getloadavg()[0]
                    subprocess.run([sys.executable, "-m", "bench.detection_ab", "run",
                                    "--database", copy, "--commits", str(commits),
                                    "--first", str(first + k * commits),
                                    "--confirm-runs", str(confirm_runs), "--out", str(report),
                                    "--admin-url", admin_url], check=True, env=env, cwd=REPO)
                    out[name] = json.loads(report.read_text())
                    out[name]["load"] = load
                    _drop(admin_url, copy)
                base, this = out[baseline], out["this tree"]
                same = base["changes"] == this["changes"] and base["runs"] == this["runs"]
                differ |= not same
                ratios += _paired(base["passes"], this["passes"])
                typer.echo(
                    f"round {k + 1}: {len(this['changes'])} changes, {len(this['runs'])} runs, "
                    f"{'identical' if same else 'DIFFERENT'}; pass CPU median "
                    f"{_median(base['passes']):.0f} -> {_median(this['passes']):.0f} ms, "
                    f"ingest {_median(base['ingests']):.1f} -> {_median(this['ingests']):.1f} ms "
                    f"(load {base['load']:.2f} / {this['load']:.2f})")
            if ratios:
                q1, q2, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
                typer.echo(f"pass CPU, this tree / {baseline}, each pass paired with the same "
                           f"commit and machine's: median {q2:.3f} (quartiles {q1:.3f}-"
                           f"{q3:.3f}) of {len(ratios)} pairs")
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                           check=False)
    raise typer.Exit(1 if differ else 0)


def _paired(base: list[float], this: list[float]) -> list[float]:
    """this / base of each pass after each machine's first (the same commit and machine on
    both sides): a ratio per pair cancels what the commits cost, left is the code."""
    return [b / a for a, b in zip(base[3:], this[3:], strict=True) if a > 0]


def _median(values: list[float]) -> float:
    return statistics.median(values[3:] or values)  # after each machine's first pass


def _fresh_copy(admin: str, template: str, name: str) -> None:
    _drop(admin, name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')


def _drop(admin: str, name: str) -> None:
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@app.command()
def run(
    database: str = typer.Option(...),
    commits: int = typer.Option(10),
    first: int = typer.Option(2100),
    confirm_runs: int = typer.Option(0),
    out: Path = typer.Option(...),
    admin_url: str = typer.Option(DEFAULT_ADMIN),
) -> None:
    """One side of a round, in the code on PYTHONPATH: the loop, then the tables as text."""
    from basketbench.changes.detection.service import after_ingest
    from basketbench.core import gc_tuning
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine
    from basketbench.results import ingest
    from basketbench.web import guards
    from sqlalchemy import text
    from sqlalchemy.orm import Session

    from bench.documents import harness_document
    from bench.measure import read_catalog
    from bench.world import World

    url = database_url(admin_url, database)
    settings = Settings(database_url=url, detection=False,
                        detection_confirm_runs=confirm_runs)
    engine = make_engine(settings)
    cat = read_catalog(url)
    world = World(commits=max(len(cat.shas), 1), machines=len(cat.machines),
                  datasets=len(cat.datasets), configurations=len(cat.configurations))
    target = ingest.Target(None, None, None, None, None)
    # The API's collector settings (frozen start-up objects, high thresholds): with
    # CPython's defaults a full collection walks every live object and lands in whatever
    # line allocates, and a pass cost up to ~1.5x what the API pays.
    gc_tuning.apply(settings.gc)
    ingests: list[float] = []
    passes: list[float] = []
    for i in range(first, first + commits):
        sha = hashlib.sha1(f"detection-ab:{i}".encode()).hexdigest()
        for machine in range(len(cat.machines)):
            body = json.dumps(harness_document(world, i, machine, sha)).encode()
            with Session(engine) as session:
                t = time.process_time()
                stored = ingest.ingest_harness(session, settings, guards.loads(body), target)
                session.commit()
                ingests.append((time.process_time() - t) * 1000)
            with Session(engine) as session:
                t = time.process_time()
                after_ingest(session, settings, stored.document_id)
                session.commit()
                passes.append((time.process_time() - t) * 1000)
    with engine.connect() as conn:
        changes = [repr(tuple(v for k, v in zip(r._fields, r, strict=True)
                              if not k.endswith("_at")))
                   for r in conn.execute(text("SELECT * FROM changes ORDER BY id"))]
        runs = [repr(tuple(r)) for r in conn.execute(text(  # confirmation reruns requested
            "SELECT id, commit_id, tag, trigger, status FROM runs WHERE trigger <> 'webhook' "
            "ORDER BY id"))]
    engine.dispose()
    out.write_text(json.dumps({"changes": changes, "runs": runs, "ingests": ingests,
                               "passes": passes}))


if __name__ == "__main__":
    app()
