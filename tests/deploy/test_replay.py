"""`basketbench replay --quick` against a real stack: ROOT's real released compression
sources (cppyy-cling sdists 6.14.0.0, 6.14.2.1, 6.18.0.0) and the 6.38.00 / 6.40.00 wheels as
a git history, dispatched through Redis to a real `basketbench worker` (Celery) process that
checks each release out, builds its compression layer (or loads the wheel's libCore),
measures it, compares it interleaved against the previous release (A/B) and uploads to the
API the replay started on its PostgreSQL database (made and dropped here); detection screens
each release. The changes it writes name ROOT's known events.

Downloads (sdists ~50 MB each, wheels ~250 MB each) and builds are cached under
~/.cache/basketbench (or BASKETBENCH_CACHE_DIR): the worker uses the replay's own worker
folder (<cache>/replay/worker), as `basketbench replay` does. Asserted are exact metrics and
instruction counts, and speed effects only as interleaved A/B ratios whose interval excludes
1 by far (6.18's Cloudflare zlib at level 9, 6.40's xz decoder): never a fixed timing.
"""

from __future__ import annotations

import json
import os
import platform
import random
import secrets
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from .test_demo import free_port

BASKETBENCH = str(Path(sys.executable).with_name("basketbench"))

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(3600)]


def replay_cache() -> Path:
    base = os.environ.get("BASKETBENCH_CACHE_DIR")
    return (Path(base) if base else Path.home() / ".cache" / "basketbench") / "replay"


def stack_env(database_url: str, broker: str, tag: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("BASKETBENCH_") or k == "BASKETBENCH_CACHE_DIR"}
    env.update({"BASKETBENCH_DATABASE_URL": database_url, "BASKETBENCH_BROKER_URL": broker,
                "BASKETBENCH_TAG": tag, "BASKETBENCH_LOG_LEVEL": "warning"})
    return env


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([BASKETBENCH, *args], env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_quick_replay_on_a_real_worker_finds_cloudflare_zlib_and_the_codecs_of_6_40(
        tmp_path: Path, make_pg_database: Callable[[], str]) -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("ROOT release wheels exist for x86_64 Linux only")
    tag = "replay-" + secrets.token_hex(4)
    broker = f"redis://127.0.0.1:6379/{random.randint(8, 15)}"
    env = stack_env(make_pg_database(), broker, tag)
    # Detection screens the speeds on the history too, as on a quiet machine (a busy one's are
    # left to the A/B): the A/B must be there first so that its effects are taken for the
    # series it covers (the worker uploads it before the results).
    env["BASKETBENCH_DETECTION_SKIP_BUSY_RUNS"] = "false"
    cli(env, "db", "upgrade")
    worker_token = cli(env, "token", "create", "--scope", "machine", "--name",
                       "replay-worker").strip().splitlines()[-1]
    port = free_port()
    home = tmp_path / "home"
    home.mkdir()
    cache = replay_cache()
    (cache / "worker").mkdir(parents=True, exist_ok=True)
    # the worker folder the replay links its home to: builds and corpora kept between runs
    (home / "worker").symlink_to(cache / "worker", target_is_directory=True)

    worker_log = tmp_path / "worker.log"
    with worker_log.open("wb") as log:
        worker = subprocess.Popen(
            [BASKETBENCH, "worker", "--tag", tag],
            env={**env, "BASKETBENCH_API_URL": f"http://127.0.0.1:{port}",
                 "BASKETBENCH_API_TOKEN": worker_token,
                 "BASKETBENCH_ROOT_REPO": str(cache / "history-quick.git"),
                 "BASKETBENCH_PROFILE": "auto",
                 "BASKETBENCH_WORKER_DIR": str((cache / "worker").resolve()),
                 "BASKETBENCH_SUITES_DIR": str(home / "suites"),
                 "BASKETBENCH_HEARTBEAT_SECONDS": "5"},
            cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    out = tmp_path / "replay.json"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "basketbench.cli", "replay", "--quick", "--json", str(out),
             "--home", str(home), "--port", str(port)],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=3500, check=False)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, 15)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, 9)
                worker.wait(timeout=30)
    assert done.returncode == 0, (done.stdout[-4000:] + done.stderr[-4000:]
                                  + worker_log.read_text(errors="replace")[-4000:])
    document = json.loads(out.read_text())
    assert document["failed"] == []
    assert json.loads(done.stdout[done.stdout.index("{\n"):])["changes"] == document["changes"]
    # the runs went through the broker to the worker process (one task per release, plus
    # detection's confirming A/Bs), not into the API process
    worker_text = worker_log.read_text(errors="replace")
    served = worker_text.count("Task basketbench.run_benchmark[")
    assert worker_text.count("succeeded in") >= 5 and served >= 2 * 5, worker_text[-3000:]

    releases = {r["release"]: r for r in document["releases"]}
    assert list(releases) == ["6.14.00", "6.14.02", "6.18.00", "6.38.00", "6.40.00"]
    # the sources say where something can change: 6.14/02 ships 6.14/00's compression code
    assert releases["6.14.02"]["changed_paths"] == []
    assert set(releases["6.18.00"]["changed_paths"]) >= {"core/zip", "builtins/zlib"}

    changes = document["changes"]
    for change in changes:
        assert set(change) >= {"release", "metric", "setting", "dataset", "effect_pct"}
    by_release: dict[str, list[dict[str, Any]]] = {}
    for change in changes:
        by_release.setdefault(str(change["release"]), []).append(change)
    # no change where the compression sources did not change (sizes, counts nor A/B speeds)
    assert "6.14.02" not in by_release, by_release.get("6.14.02")
    at_618 = by_release["6.18.00"]
    # Cloudflare zlib (6.18): ZLIB sizes at 1..9, its instruction counts, its speed by A/B
    assert {101, 109} <= {c["setting"] for c in at_618 if c["metric"] == "compressed_bytes"}
    assert any(c["metric"] == "compress_instructions_per_mb" and c["setting"] in (101, 109)
               for c in at_618), at_618
    ab_618 = [c for c in at_618 if c["test"] == "ab"]
    assert any(c["metric"] == "compress_mbps" and c["setting"] == 109
               and c["direction"] == "improvement" and c["effect_pct"] > 20
               and c["ci_low_pct"] > 0 for c in ab_618), at_618
    # 6.40: zstd 1.4.8 -> 1.5.7 changes ZSTD sizes; xz 5.2.4 -> 5.8.2 LZMA decompression,
    # in instructions and in speed against 6.38.00's libCore (its parent release)
    at_640 = by_release["6.40.00"]
    assert any(c["metric"] == "compressed_bytes" and c["setting"] == 505 for c in at_640)
    assert any(c["metric"] == "decompress_instructions_per_mb" and c["setting"] == 201
               for c in at_640), at_640
    assert any(c["test"] == "ab" and c["metric"] == "decompress_mbps" and c["setting"] == 201
               and c["effect_pct"] > 20 for c in at_640), at_640
    # the first wheel release starts its own series (its libCore, not a source build)
    assert "6.38.00" not in by_release, by_release.get("6.38.00")

    results = [m for m in document["measured"] if m["kind"] == "result"]
    measured = {(m["release"], m["dataset"], m["setting"]): m for m in results}
    assert all(m["roundtrip_ok"] for m in results)
    # 6.14/00 and 6.14/02: the same sources, byte-identical output
    for (release, dataset, setting), m in measured.items():
        if release == "6.14.00":
            assert measured[("6.14.02", dataset, setting)]["compressed_bytes"] == \
                m["compressed_bytes"]
    # the A/B effects: each release against the previous one, with intervals
    ab = [m for m in document["measured"] if m["kind"] == "ab"]
    pairs = {(m["release"], m["reference_release"]) for m in ab if m["role"] == "release run"}
    assert pairs == {("6.14.02", "6.14.00"), ("6.18.00", "6.14.02"), ("6.40.00", "6.38.00")}
    for m in ab:
        assert m["pairs"] >= 5 and m["ci_low"] <= m["ratio"] <= m["ci_high"], m
