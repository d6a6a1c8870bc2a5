"""The backend benchmark (bench/seed.py + bench/measure.py) at a tiny scale: it seeds a
fresh database through the real migrations, serves it with `basketbench serve`, and
every query and ingest answers correctly; the numbers it reports are sane."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
COMMITS, MACHINES, DATASETS, CONFIGURATIONS = 30, 2, 2, 5  # 30: one merge
PAIRS = DATASETS * CONFIGURATIONS


def _db_url(admin: str, name: str) -> str:
    return admin.rsplit("/", 1)[0] + "/" + name


@pytest.fixture
def bench_database(pg_admin_url: str) -> Iterator[str]:
    name = "bbtest_bench_" + uuid.uuid4().hex[:12]
    yield name
    with psycopg.connect(pg_admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(args: list[str], pg_admin_url: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env["BASKETBENCH_TEST_PG_ADMIN"] = pg_admin_url
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.integration
def test_seed_and_measure_tiny_scale(bench_database: str, pg_admin_url: str,
                                     tmp_path: Path) -> None:
    seeded = _run(["bench.seed", "--database", bench_database, "--commits", str(COMMITS),
                   "--machines", str(MACHINES), "--datasets", str(DATASETS),
                   "--configurations", str(CONFIGURATIONS), "--quiet",
                   "--report", str(tmp_path / "seed.json")], pg_admin_url)
    assert seeded.returncode == 0, seeded.stderr
    seed = json.loads((tmp_path / "seed.json").read_text())
    assert seed["results"] == COMMITS * MACHINES * PAIRS == 600
    assert seed["rows_per_s_copy"] > 0
    # The rebuilt indexes are the ones the migration made.
    assert set(seed["index_s"]) == {"ix_results_series", "ix_results_commit_machine",
                                    "ix_results_run_id", "ix_results_document_id"}

    with psycopg.connect(_db_url(pg_admin_url, bench_database)) as conn:
        assert conn.execute("SELECT count(*) FROM results").fetchone() == (600,)
        assert conn.execute("SELECT count(*) FROM runs").fetchone() == (COMMITS * MACHINES,)
        # git order: a merge sits after both of its parents.
        orders: dict[str, int] = dict(conn.execute('SELECT sha, "order" FROM commits').fetchall())
        graph = conn.execute('SELECT parents, "order" FROM commits').fetchall()
        merges = [(parents, order) for parents, order in graph if len(parents) == 2]
        assert merges
        for parents, order in graph:
            assert order == 1 + max((orders[p] for p in parents), default=-1)

    requests, docs = 3, 2
    measured = _run(["bench.measure", "--database", bench_database, "--requests",
                     str(requests), "--warmup", "0", "--ingest-docs", str(docs),
                     "--ingest-uploaders", "2",
                     "--out", str(tmp_path / "measure.json")], pg_admin_url)
    assert measured.returncode == 0, measured.stdout + measured.stderr
    report = json.loads((tmp_path / "measure.json").read_text())
    names = [q["name"] for q in report["queries"]]
    for expected in ("history", "tradeoff", "compare 2 commits", "compare 2 machines",
                     "configurations (filtered)", "configurations/dimensions",
                     "configurations/latest", "commits", "runs", "results"):
        assert any(n.startswith(expected) for n in names), expected
    for q in report["queries"]:
        # every answer was 200 with the expected number of points / rows
        assert q["ok"] == q["requests"] == requests, q
        assert 0 < q["p50_ms"] <= q["p95_ms"] <= q["max_ms"] < 60_000, q
        assert q["mean_bytes"] > 0
        # answers over 1 kB travel gzipped (httpx asks for it, like browsers)
        assert q["mean_wire_bytes"] < q["mean_bytes"] or q["mean_bytes"] < 1024, q
    ingest = report["ingest"]
    assert ingest["problems"] == []
    assert ingest["results_stored"] == docs * PAIRS
    assert ingest["duplicate_ok"] is True
    assert ingest["results_per_s"] > 0 and ingest["document_bytes"] > 1000
    concurrent = report["ingest_concurrent"]
    assert concurrent["uploaders"] == 2 and concurrent["problems"] == []
    assert concurrent["results_stored"] == docs * PAIRS and concurrent["results_per_s"] > 0
    assert report["sizes"]["row_counts"]["results"] == 600
    assert "results" in measured.stdout and "ingest, 2 uploaders:" in measured.stdout

    with psycopg.connect(_db_url(pg_admin_url, bench_database)) as conn:
        # what ingest added was stored (above) and removed again: the seeded history is
        # what the next measurement sees
        assert report["ingested_commits_removed"] == 2 * docs
        assert conn.execute("SELECT count(*) FROM results").fetchone() == (600,)
        assert conn.execute("SELECT count(*) FROM commits").fetchone() == (COMMITS,)
        # ingest reused the seeded machines and configurations (same fingerprints)
        assert conn.execute("SELECT count(*) FROM machines").fetchone() == (MACHINES,)
        assert conn.execute("SELECT count(*) FROM configurations").fetchone() == (
            CONFIGURATIONS,)


def test_seed_rejects_bad_scale(pg_admin_url: str) -> None:
    bad = _run(["bench.seed", "--machines", "7", "--quiet"], pg_admin_url)
    assert bad.returncode == 2
    assert "machines must be 1..3" in bad.stderr


@pytest.mark.integration
def test_hardening_compares_a_commit_with_this_tree(bench_database: str, pg_admin_url: str,
                                                    tmp_path: Path) -> None:
    """bench.api_throughput --baseline: the commit's backend and this tree served side by side
    on one database, the same answers from both, ingest measured on both and removed."""
    seeded = _run(["bench.seed", "--database", bench_database, "--commits", str(COMMITS),
                   "--machines", str(MACHINES), "--datasets", str(DATASETS),
                   "--configurations", str(CONFIGURATIONS), "--quiet"], pg_admin_url)
    assert seeded.returncode == 0, seeded.stderr
    out = tmp_path / "hardening.json"
    ran = _run(["bench.api_throughput", "--database", bench_database, "--baseline", "HEAD",
                "--throughput-only", "--no-detection", "--requests", "3", "--warmup", "0",
                "--ingest-docs", "2", "--ingest-rounds", "2", "--compare-answers", "2",
                "--out", str(out)], pg_admin_url)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(out.read_text())
    assert len(report["servers"]) == 2 and report["servers"][1] == "this tree"
    assert report["servers"][0].startswith("HEAD (")
    same = report["same_answers"]
    assert same["requests"] == 4 * 2 and same["identical"] == same["requests"], same
    for label in report["servers"]:
        timings = report["sequential"][label]
        assert [t["ok"] for t in timings] == [3] * 4, timings
        for ingest in report["ingest"][label]:
            assert ingest["problems"] == [] and ingest["duplicate_ok"] is True
            assert ingest["results_stored"] == 2 * PAIRS and ingest["results_per_s"] > 0
    assert report["ingested_commits_removed"] == 2 * 2 * 2  # 2 servers x 2 uploader rounds
    assert "answers compared: 8 of 8 identical" in ran.stdout
    with psycopg.connect(_db_url(pg_admin_url, bench_database)) as conn:
        assert conn.execute("SELECT count(*) FROM results").fetchone() == (600,)


@pytest.mark.integration
def test_paired_reads_of_this_code_on_another_environment(bench_database: str,
                                                          pg_admin_url: str,
                                                          tmp_path: Path) -> None:
    """bench.api_throughput --baseline-venv --paired: this tree's code served from another
    virtual environment (here the same one: no package differs) beside this one, every
    hot request sent to both, each pair's ratio reported."""
    seeded = _run(["bench.seed", "--database", bench_database, "--commits", str(COMMITS),
                   "--machines", str(MACHINES), "--datasets", str(DATASETS),
                   "--configurations", str(CONFIGURATIONS), "--quiet"], pg_admin_url)
    assert seeded.returncode == 0, seeded.stderr
    out = tmp_path / "paired.json"
    ran = _run(["bench.api_throughput", "--database", bench_database,
                "--baseline-venv", sys.prefix, "--paired", "4", "--throughput-only",
                "--no-detection", "--requests", "2", "--warmup", "0", "--ingest-docs", "1",
                "--ingest-rounds", "1", "--compare-answers", "1", "--out", str(out)],
               pg_admin_url)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(out.read_text())
    assert report["packages_differing"] == {}
    baseline, this = report["servers"]
    assert baseline.startswith("this tree, venv ") and this == "this tree"
    assert set(report["paired"]) == {t["name"] for t in report["sequential"][this]}
    for name, paired in report["paired"].items():
        assert paired["pairs"] == 4 and paired["failed"] == 0, (name, paired["problems"])
        assert set(paired["servers"]) == {baseline, this}
        low, high = paired["ratio_quartiles"]
        assert 0 < low <= paired["ratio_median"] <= high, paired
        for side in paired["servers"].values():
            assert 0 < side["p50_ms"] <= side["p95_ms"] and side["cpu_api_ms"] >= 0
    assert "paired, history" in ran.stdout

    no_venv = _run(["bench.api_throughput", "--database", bench_database,
                    "--baseline-venv", str(tmp_path), "--throughput-only"], pg_admin_url)
    assert no_venv.returncode == 2
    # typer draws the message in a box as wide as the terminal: its words, unwrapped
    words = " ".join(re.sub(r"[\u2500-\u257f]", " ", no_venv.stderr).split())
    assert "no bin/python (not a virtual environment)" in words, no_venv.stderr


def test_paired_figures_leave_out_and_name_the_pairs_a_server_failed() -> None:
    """A pair with a non-200 answer is not timed: the ratio comes from the pairs both
    servers answered, and the line printed names the failures."""
    from bench.api_throughput import _pair_figures, describe_pairs

    times = {"base": [10.0, 20.0, 40.0], "this": [5.0, 20.0, 80.0]}
    cpu = {"base": [0.03, 0.01], "this": [0.06, 0.02]}
    figures = _pair_figures(times, cpu, 4, "base", "this")
    assert figures["ratio_median"] == 1.0  # ratios 0.5, 1, 2
    assert figures["ratio_quartiles"] == [0.75, 1.5]
    assert figures["servers"]["this"]["cpu_api_ms"] == 15.0  # per request sent (4)
    p = {"pairs": 3, "failed": 1, "problems": ["[this] 503 /history {}: b'busy'"],
         **figures}
    line = describe_pairs("history", p, ["base", "this"])
    assert line.startswith("paired, history: this / base 1.0 (quartiles 0.75-1.5, 3 pairs)")
    assert line.endswith("1 pairs failed: [\"[this] 503 /history {}: b'busy'\"]")
    assert _pair_figures({"base": [], "this": []}, cpu, 2, "base", "this")["ratio_median"] \
        is None


def test_a_baseline_venv_given_relative_runs_from_the_servers_own_directory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bench.api_throughput import venv_command

    monkeypatch.chdir(Path(sys.prefix).parent)
    python, *rest = venv_command(Path(Path(sys.prefix).name))
    assert Path(python).is_absolute() and Path(python).exists()
    assert Path(python).parent.parent == Path(sys.prefix) and rest == ["-m", "basketbench.cli"]
