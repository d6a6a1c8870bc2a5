"""Stage deadlines, log tails, the attempt counter (real Redis) and the prefix sync."""

from __future__ import annotations

import os
import secrets
import time
from pathlib import Path

import pytest
from basketbench_workers.agent.attempts import MemoryAttempts, RedisAttempts
from basketbench_workers.build.cache import _sync
from basketbench_workers.pipeline.suites import load_suites
from basketbench_workers.procs import Deadline, StageFailed, StageTimeout, run_logged


def test_stage_time_limit_kills_the_command(tmp_path: Path) -> None:
    start = time.monotonic()
    with pytest.raises(StageTimeout, match="stage 'benchmark' exceeded its time limit"):
        run_logged(["sleep", "30"], tmp_path / "log", Deadline("benchmark", 1.0))
    assert time.monotonic() - start < 10
    assert "killed: stage 'benchmark'" in (tmp_path / "log").read_text()


def test_failure_carries_the_log_tail(tmp_path: Path) -> None:
    script = "for i in $(seq 1 200); do echo line $i; done; echo 'fatal: boom' >&2; exit 3"
    with pytest.raises(StageFailed) as info:
        run_logged(["sh", "-c", script], tmp_path / "log", Deadline("build", 30))
    assert "exit code 3" in str(info.value)
    assert "fatal: boom" in info.value.log_tail
    assert "line 200" in info.value.log_tail and "line 1\n" not in info.value.log_tail


def test_progress_lines_are_streamed(tmp_path: Path) -> None:
    seen: list[str] = []
    script = "echo 'progress 1 2' >&2; echo 'progress 2 2' >&2"
    run_logged(
        ["sh", "-c", script],
        tmp_path / "log",
        Deadline("benchmark", 30),
        on_stderr_line=seen.append,
    )
    assert [s.strip() for s in seen] == ["progress 1 2", "progress 2 2"]


def test_exit_code_one_is_accepted_when_asked(tmp_path: Path) -> None:
    rc = run_logged(["sh", "-c", "exit 1"], tmp_path / "log", Deadline("b", 30), ok_codes=(0, 1))
    assert rc == 1


def test_attempt_counters() -> None:
    memory = MemoryAttempts()
    assert [memory.next(7), memory.next(7), memory.next(8)] == [1, 2, 1]
    url = os.environ.get("BASKETBENCH_TEST_REDIS", "redis://127.0.0.1:6379/14")
    redis_attempts = RedisAttempts(url, prefix=f"bbtest:{secrets.token_hex(6)}:")
    assert [redis_attempts.next(1), redis_attempts.next(1), redis_attempts.next(2)] == [1, 2, 1]


def test_sync_touches_only_changed_files(tmp_path: Path) -> None:
    src, dst = tmp_path / "src", tmp_path / "dst"
    (src / "include").mkdir(parents=True)
    (src / "include" / "RZip.h").write_text("a")
    (src / "lib.a").write_text("1")
    _sync(src, dst)
    header_mtime = (dst / "include" / "RZip.h").stat().st_mtime_ns
    time.sleep(0.01)
    (src / "lib.a").write_text("2")
    (dst / "stale.h").write_text("old")
    _sync(src, dst)
    assert (dst / "include" / "RZip.h").stat().st_mtime_ns == header_mtime  # unchanged: kept
    assert (dst / "lib.a").read_text() == "2"
    assert not (dst / "stale.h").exists()


def test_backend_default_suite_name_maps_to_quick(tmp_path: Path) -> None:
    assert load_suites()["default"].name == "quick"
    (tmp_path / "ci.toml").write_text(
        'name = "ci"\naliases = ["default"]\nsynthetic = ["zeros"]\nsettings = [101]\n'
    )
    assert load_suites(tmp_path)["default"].name == "ci"  # an operator's suite wins
