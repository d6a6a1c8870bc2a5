"""The demo's release history: ROOT 6.38.00 and 6.40.00 measured with their own libCore as
commits before the checkout's, on one machine, so history and compare show ROOT's changes,
in the API and on the dashboard's bare history and compare pages (Chromium).

Real wheels (cached in ~/.cache/basketbench/root-releases), embedded SQLite, the quick suite.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench.measure.realroot.releases import RELEASES, release_commit_sha

from .support import REPO
from .test_demo import CHROMIUM, COMMIT, FRONTEND, _get, clean_env, free_port

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
        check_dashboard(url, tmp_path / "history-releases.png", old, new)
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def check_dashboard(url: str, shot: Path, old: str, new: str) -> None:
    """A newcomer's bare history and compare pages, in Chromium: the releases' line beside the
    checkout's, never joined, and compare defaulting to 6.38.00 -> 6.40.00 with the ZSTD
    size change."""
    missing = [what for what, ok in (
        ("the built dashboard (make frontend-build)", (FRONTEND / "dist" / "index.html").is_file()),
        ("frontend/node_modules", (FRONTEND / "node_modules" / "playwright-core").is_dir()),
        ("node", shutil.which("node") is not None), ("Chromium", Path(CHROMIUM).exists()))
        if not ok]
    if missing:
        pytest.skip(f"the API checks passed; the dashboard checks need {', '.join(missing)}")
    done = subprocess.run(
        ["node", str(REPO / "tests" / "deploy" / "dashboard_check.mjs"), str(FRONTEND), url,
         str(shot), "releases"],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["console_errors"] == [], seen["console_errors"]

    history = seen["history"]
    assert "hzz" in history["url"], history["url"]  # opens on real ROOT baskets
    lines = {line["name"].rsplit(" · ", 1)[-1]: line for line in history["lines"]}
    assert set(lines) == {"builtin", "host"}, history["lines"]
    assert lines["builtin"]["shas"] == [old, new]  # the releases, in order, one line
    assert lines["builtin"]["text"] == ["ROOT 6.38.00", "ROOT 6.40.00"]
    assert lines["host"]["shas"] == [COMMIT]  # the checkout, its own line
    assert lines["builtin"]["dash"] != lines["host"]["dash"]
    options = history["codec_options"]
    assert any(o.startswith("builtin: ROOT's own copies, ROOT 6.38.00 → 6.40.00 (zstd 1.4.8 → "
                            "1.5.7") for o in options), options
    assert any(o.startswith("host: ") for o in options), options
    assert shot.stat().st_size > 10_000

    compare = seen["compare"]
    assert (compare["base"], compare["head"]) == (old, new), compare["url"]
    assert not compare["no_common_series"]
    assert "ROOT 6.38.00" in compare["codecs"] and "ROOT 6.40.00" in compare["codecs"]
    sizes = {s["configuration"]: s["delta"] for s in compare["sizes"] if s["dataset"] == "hzz"}
    assert sizes["ZSTD-5"] not in ("0.00 %", "—"), sizes  # zstd 1.4.8 -> 1.5.7
    assert sizes["ZLIB-1"] == "0.00 %", sizes
    # issue 32: the two releases were measured at different times: no speed verdict that an
    # interleaved A/B or instruction counts do not back, and the A/B is offered
    speeds = compare["speeds"]
    assert speeds and all(s["kind"] in ("ab", "counts") or not s["decided"] for s in speeds)
    assert compare["offers_ab"]
    assert compare["links"] == [old[:10], new[:10]], compare["links"]
