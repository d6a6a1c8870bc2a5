"""Issue 38: texts a run shows the world (GET /runs is public) name no path of the worker."""

from __future__ import annotations

from pathlib import Path

from basketbench_workers.agent.redact import Redactor, worker_redactor


def test_paths_become_names_relative_to_what_they_point_into(tmp_path: Path) -> None:
    data = tmp_path / "data"
    work = tmp_path / "worker"
    redact = worker_redactor(data, work)
    assert redact(f"advise {data}/hzz/HZZ.root") == "advise $DATA_ROOT/hzz/HZZ.root"
    assert redact(f"see {work}/runs/7/run.log") == "see $WORKER_DIR/runs/7/run.log"
    assert redact("with /opt/tools/bin/rzbench --x") == "with .../rzbench --x"
    assert redact('File "/usr/lib/python3/x.py", line 3') == 'File ".../x.py", line 3'


def test_resolved_forms_and_what_is_not_a_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    redact = Redactor([(link, "$DATA_ROOT")])
    assert redact(f"{real}/a.root and {link}/b.root") == "$DATA_ROOT/a.root and $DATA_ROOT/b.root"
    for keep in ("http://127.0.0.1:8000/api/v1/runs/3", "ratio 1/2", "a/b/c", "/tmp", "/"):
        assert redact(keep) == keep
