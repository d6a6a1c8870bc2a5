"""The demo's release history: ROOT 6.38.00 and 6.40.00 measured with their own libCore as
commits before the checkout's, on one machine, so history and compare show ROOT's changes.

Real wheels (cached in ~/.cache/basketbench/root-releases), embedded SQLite, the quick suite.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench.harness.root_release import RELEASES, release_commit_sha

from .test_demo import COMMIT, _get, clean_env, free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(2400)]


def _serve(home: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = clean_env(home) | {"BASKETBENCH_DATA_DIR": str(home)}
    log = (home / "check-server.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "basketbench.cli", "serve", "--host", "127.0.0.1",
         "--port", str(port)],
        cwd=home, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        assert proc.poll() is None, (home / "check-server.log").read_text()
        try:
            if httpx.get(f"{url}/api/v1/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        assert time.monotonic() < deadline, "the API did not start"
        time.sleep(0.3)


def test_the_demo_history_shows_two_root_releases_and_the_checkout(tmp_path: Path) -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("ROOT release wheels exist for x86_64 Linux only")
    env = clean_env(tmp_path) | {"BASKETBENCH_DEMO_RELEASES": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "demo", "--no-serve", "--quick",
         "--port", str(free_port()), "--home", str(tmp_path), "--commit", COMMIT],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=2300, check=False,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "ROOT 6.38.00: run" in done.stdout and "ROOT 6.40.00: run" in done.stdout, done.stdout

    old, new = (release_commit_sha(RELEASES[v]) for v in ("6.38.00", "6.40.00"))
    proc, url = _serve(tmp_path)
    try:
        with httpx.Client(base_url=url, timeout=30) as api:
            runs = _get(api, "/api/v1/runs")["items"]
            assert {r["commit"] for r in runs} == {old, new, COMMIT}
            assert all(r["status"] == "succeeded" for r in runs), runs
            # one machine: the codec build is not part of the fingerprint
            machines = _get(api, "/api/v1/machines")["items"]
            assert len(machines) == 1, machines
            machine = machines[0]["name"]

            def history(setting: int, codecs: str | None = None) -> list[dict[str, Any]]:
                params: dict[str, Any] = {"codecs": codecs} if codecs else {}
                points: list[dict[str, Any]] = _get(
                    api, "/api/v1/history", machine=machine, dataset="hzz",
                    metric="compressed_bytes", setting=setting, **params)["points"]
                return points

            # The releases' own codecs are one series (versions per point), the checkout's
            # host libraries another: a codec change is never mixed with a code change.
            zstd = history(505, "builtin")
            assert [p["sha"] for p in zstd] == [old, new]  # the releases, in order
            assert [p["codecs"]["libraries"]["zstd"] for p in zstd] == ["1.4.8", "1.5.7"]
            sizes = [p["value"] for p in zstd]
            assert sizes[0] != sizes[1], sizes  # zstd 1.4.8 (6.38) -> 1.5.7 (6.40)
            assert [p["sha"] for p in history(505, "host")] == [COMMIT]  # the checkout's own
            zlib = [p["value"] for p in history(101, "builtin")]
            assert len(zlib) == 2 and len(set(zlib)) == 1, zlib  # the same host libz in both

            compare = _get(api, "/api/v1/compare", base_commit=old, head_commit=new,
                           machine=machine, dataset="hzz", metric="compressed_bytes")
            by_setting = {r["configuration"]["setting"]: r for r in compare["rows"]
                          if r["configuration"].get("preconditioner", "none") == "none"}
            assert by_setting[505]["delta_pct"] != 0, by_setting[505]
            assert by_setting[101]["delta_pct"] == 0, by_setting[101]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
