"""`basketbench demo` end to end: embedded SQLite, no broker, a free port, a temp folder.

The demo triggers a run of this checkout's HEAD through POST /api/v1/trigger; the API runs
the Celery task code in-process (harness build, rzbench, ingest). Afterwards a fresh
`basketbench serve` on the same SQLite file must show the stored results, and a second
demo must reuse them instead of measuring again.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from .support import REPO


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def clean_env(home: Path) -> dict[str, str]:
    """No database, broker or token from the caller: the demo's embedded defaults."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env["BASKETBENCH_DEMO_HOME"] = str(home)
    return env


def head_sha() -> str:
    return subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


# The commit the demos of this module measure: HEAD when the module started (the tree is
# shared; a commit made meanwhile must not turn the second demo into a new measurement).
COMMIT = head_sha()


def run_demo(
    home: Path, port: int, *extra: str, timeout: float = 1200
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "demo", "--no-serve", "--quick",
         "--port", str(port), "--home", str(home), "--commit", COMMIT, *extra],
        cwd=home, env=clean_env(home), capture_output=True, text=True, timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def demo_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("demo")


@pytest.fixture(scope="module")
def first_demo(demo_home: Path) -> subprocess.CompletedProcess[str]:
    started = time.monotonic()
    done = run_demo(demo_home, free_port())
    print(f"first demo: {time.monotonic() - started:.1f} s\n{done.stdout}\n{done.stderr}")
    return done


@pytest.fixture(scope="module")
def api(demo_home: Path, first_demo: subprocess.CompletedProcess[str]) -> Iterator[httpx.Client]:
    """A new server on the SQLite file the demo left behind."""
    assert first_demo.returncode == 0, first_demo.stdout + first_demo.stderr
    port = free_port()
    env = clean_env(demo_home) | {"BASKETBENCH_DATA_DIR": str(demo_home)}
    log = (demo_home / "verify-server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "basketbench.cli", "serve", "--host", "127.0.0.1",
         "--port", str(port)],
        cwd=demo_home, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (demo_home / "verify-server.log").read_text()
            try:
                if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the API did not start"
            time.sleep(0.3)
        with httpx.Client(base_url=url, timeout=30) as client:
            yield client
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


FRONTEND = REPO / "frontend"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _get(client: httpx.Client, path: str, **params: Any) -> Any:
    response = client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.integration
@pytest.mark.slow
def test_demo_prints_progress_and_the_url(first_demo: subprocess.CompletedProcess[str]) -> None:
    assert first_demo.returncode == 0, first_demo.stdout + first_demo.stderr
    out = first_demo.stdout
    assert "through POST /api/v1/trigger" in out
    assert re.search(r"run \d+: succeeded", out), out
    # Polled once a second: short stages (a cached build) may pass unseen; measuring not.
    stages = set(re.findall(r"stage=(\S+)", out))
    assert {"benchmark", "done"} <= stages, stages
    percents = [int(p) for p in re.findall(r"stage=benchmark\s+(\d+) %", out)]
    assert percents == sorted(percents), percents
    # the summary names the measured commit, its result count and its run (issue 25)
    stored = re.search(r"\): (\d+) results \(run \d+", out)
    assert stored and int(stored.group(1)) > 0, out
    assert re.search(r"dashboard: http://127\.0\.0\.1:\d+/", out), out


@pytest.mark.integration
@pytest.mark.slow
def test_the_run_and_its_results_are_stored(api: httpx.Client) -> None:
    runs = _get(api, "/api/v1/runs")
    assert runs["total"] == 1
    run = runs["items"][0]
    assert run["status"] == "succeeded"
    assert run["commit"] == COMMIT
    assert run["repository"] == "basketbench"
    assert run["suite"] == "demo-quick"
    assert run["result_count"] > 0
    # every stage of the worker's pipeline ran (and was timed) inside the API process
    assert {"checkout", "build", "benchmark", "upload"} <= set(run["timings"]), run["timings"]

    results = _get(api, "/api/v1/results", run=run["id"], limit=1000)
    assert results["total"] == run["result_count"]
    datasets = {r["dataset"] for r in results["items"]}
    # real ROOT baskets and the synthetic generators, as the quick demo suite names them
    assert "hzz" in datasets, datasets
    assert {"event", "nanoaod-offsets"} <= datasets, datasets
    settings = {r["setting"] for r in results["items"] if r.get("setting")}
    assert {101, 404, 505} <= settings, settings
    for r in results["items"]:
        if r.get("setting"):
            assert r["ratio"] > 0 and r["compressed_bytes"] > 0
            assert r["compress_mbps"]["median"] > 0 and r["decompress_mbps"]["median"] > 0

    machines = _get(api, "/api/v1/machines")
    assert machines["total"] == 1
    assert machines["items"][0]["tag"] == run["tag"]


def git_field(fmt: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), "log", "-1", f"--format={fmt}", COMMIT],
                          capture_output=True, text=True, check=True).stdout.strip()


@pytest.mark.integration
@pytest.mark.slow
def test_the_demo_commit_carries_author_date_and_message_from_git(api: httpx.Client) -> None:
    commit = _get(api, f"/api/v1/commits/{COMMIT}")
    assert commit["author"] == git_field("%an")
    assert commit["message"].splitlines()[0] == git_field("%s")
    stored = datetime.fromisoformat(commit["date"])
    if stored.tzinfo is None:
        stored = stored.replace(tzinfo=UTC)
    assert stored == datetime.fromisoformat(git_field("%aI"))
    assert commit["parents"] == git_field("%P").split()


@pytest.mark.integration
@pytest.mark.slow
def test_sigterm_stops_the_demo_and_its_api(demo_home: Path, api: httpx.Client) -> None:
    """What `make demo` passes on when it gets SIGTERM: the API must not keep serving."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "basketbench.cli", "demo", "--quick", "--port", str(port),
         "--home", str(demo_home), "--commit", COMMIT],
        cwd=demo_home, env=clean_env(demo_home), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert proc.stdout is not None
        seen = []
        for line in proc.stdout:  # waits for the state, not for a time
            seen.append(line)
            if "serving; Ctrl-C to stop" in line:
                break
        assert httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=10).status_code == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) is not None
    finally:
        if proc.poll() is None:
            proc.kill()
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{port}/api/v1/health", timeout=5)
    assert "".join(seen).count("was measured already") == 1


@pytest.mark.integration
@pytest.mark.slow
def test_a_second_demo_reuses_the_run(
    demo_home: Path, api: httpx.Client
) -> None:
    started = time.monotonic()
    again = run_demo(demo_home, free_port(), timeout=300)
    took = time.monotonic() - started
    assert again.returncode == 0, again.stdout + again.stderr
    assert "was measured already" in again.stdout
    assert "triggered run" not in again.stdout
    assert "cached" in again.stdout  # the corpus is not extracted again
    assert _get(api, "/api/v1/runs")["total"] == 1
    assert took < 120, f"second demo took {took:.0f} s"


def test_a_busy_port_stops_with_a_message(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        done = run_demo(tmp_path, port, timeout=120)
    assert done.returncode == 1
    assert f"port {port} on 127.0.0.1 is in use" in done.stderr
    assert "--port" in done.stderr


@pytest.mark.integration
@pytest.mark.slow
@pytest.mark.skipif(
    not (FRONTEND / "dist" / "index.html").is_file()
    or not (FRONTEND / "node_modules" / "playwright-core").is_dir()
    or shutil.which("node") is None
    or not Path(CHROMIUM).exists(),
    reason="needs the built dashboard, frontend/node_modules and Chromium (make setup)",
)
def test_the_dashboard_plots_the_demo_results(api: httpx.Client, demo_home: Path) -> None:
    """The landing page, opened in Chromium, draws the demo's trade-off on a real dataset:
    one point per measured codec setting, without console errors."""
    shot = demo_home / "dashboard.png"
    done = subprocess.run(
        ["node", str(REPO / "tests" / "deploy" / "dashboard_check.mjs"), str(FRONTEND),
         str(api.base_url).rstrip("/") + "/", str(shot)],
        capture_output=True, text=True, timeout=180, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["console_errors"] == []
    assert "/tradeoffs" in seen["url"]
    dataset = re.search(r"dataset=([^&]+)", seen["url"])
    assert dataset, seen["url"]
    run = _get(api, "/api/v1/runs")["items"][0]
    results = _get(api, "/api/v1/results", run=run["id"], dataset=dataset.group(1), limit=1000)
    # memcpy (setting 0) is named above the plot, not plotted: it would squeeze the codecs
    codecs = [r for r in results["items"] if r.get("setting")]
    assert seen["points"] == len(codecs) > 1
    # the demo opens on real ROOT baskets, not on a synthetic generator
    dims = _get(api, "/api/v1/configurations/dimensions")
    assert dataset.group(1) not in dims["synthetic_datasets"], dims
    assert shot.stat().st_size > 10_000


def test_an_unknown_commit_stops_with_a_message(tmp_path: Path) -> None:
    done = run_demo(tmp_path, free_port(), "--commit", "no-such-revision", timeout=120)
    assert done.returncode == 1
    assert "'no-such-revision' is not a commit of the git checkout" in done.stderr
