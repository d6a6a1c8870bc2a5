"""measure/rzbench/noise.py: load, steal and governor around a run, and the busy flag."""

from __future__ import annotations

from pathlib import Path

from basketbench.measure.rzbench import noise


def fake_proc(root: Path, load1: float, stat: list[int]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "loadavg").write_text(f"{load1} 1.00 0.50 2/300 4242\n")
    (root / "stat").write_text("cpu  " + " ".join(map(str, stat)) + " 0 0\ncpu0 1 2 3\n")
    (root / "cpuinfo").write_text("processor\t: 0\ncpu MHz\t\t: 2596.136\n")
    return root


def test_snapshot_reads_proc_and_falls_back_to_cpuinfo(tmp_path: Path) -> None:
    proc = fake_proc(tmp_path / "proc", 0.25, [10, 0, 5, 80, 1, 0, 0, 4])
    snap = noise.snapshot(proc, tmp_path / "no-sys")
    assert snap["load1"] == 0.25 and snap["governor"] is None
    assert snap["cpu_times"] == {"user": 10, "nice": 0, "system": 5, "idle": 80, "iowait": 1,
                                 "irq": 0, "softirq": 0, "steal": 4}
    assert snap["frequencies_mhz"] == [2596.136]


def test_quiet_run_is_not_busy_and_steal_is_measured(tmp_path: Path) -> None:
    start = noise.snapshot(fake_proc(tmp_path / "a", 0.2, [0, 0, 0, 1000, 0, 0, 0, 0]))
    end = noise.snapshot(fake_proc(tmp_path / "b", 1.1, [90, 0, 6, 1100, 0, 0, 0, 4]))
    load = noise.summarize(start, end, cores=2)
    assert load["busy"] is False and load["busy_reasons"] == []
    assert load["steal_fraction"] == 4 / 200
    assert load["cpu_busy_fraction"] == 1 - 100 / 200


def test_busy_when_loaded_or_stolen(tmp_path: Path) -> None:
    start = noise.snapshot(fake_proc(tmp_path / "a", 3.5, [0, 0, 0, 1000, 0, 0, 0, 0]))
    end = noise.snapshot(fake_proc(tmp_path / "b", 0.5, [80, 0, 0, 1100, 0, 0, 0, 20]))
    load = noise.summarize(start, end, cores=2)
    assert load["busy"] is True
    assert load["busy_reasons"] == [
        "load average 3.50 at start, the previous job's 1 aside (>= 1 beside it)",
        "steal 10.0% of CPU time (>= 5%)"]


def test_a_worker_running_jobs_back_to_back_is_not_busy(tmp_path: Path) -> None:
    # issue 32: a dedicated 2-core worker starts each job at a load of ~1 (its previous
    # job) and ends it at ~1 (the run itself): no other work, so not busy
    start = noise.snapshot(fake_proc(tmp_path / "a", 1.05, [0, 0, 0, 1000, 0, 0, 0, 0]))
    end = noise.snapshot(fake_proc(tmp_path / "b", 1.4, [90, 0, 6, 1100, 0, 0, 0, 0]))
    assert noise.summarize(start, end, cores=2)["busy"] is False
    # one more busy thread beside it on 2 cores is busy
    start = noise.snapshot(fake_proc(tmp_path / "c", 2.1, [0, 0, 0, 1000, 0, 0, 0, 0]))
    load = noise.summarize(start, end, cores=2)
    assert load["busy"] is True and load["busy_reasons"][0].startswith("load average 2.10")
