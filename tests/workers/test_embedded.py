"""Embedded mode: `run_inline(run_id)` runs the same task code in-process against a real API.

The repository has no ROOT layout (like basketbench's own in the demo), so the automatic
profile choice must fall back to `rootcompat` and still produce a real, stored run.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench_workers.pipeline.stages import run_dir

from .conftest import unique_tag
from .gitrepo import commit_files, init_repo

pytestmark = [pytest.mark.integration, pytest.mark.slow]


@pytest.mark.timeout(900)
def test_run_inline_uses_rootcompat_for_a_repository_without_root_layout(
    api_server_factory: Callable[..., Any],
    tmp_path: Path,
    worker_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A broker URL nobody consumes: the API only queues; the test runs the run inline.
    api = api_server_factory(
        BASKETBENCH_BROKER_URL="redis://127.0.0.1:6379/15",
        BASKETBENCH_FRONTEND_DIST=str(tmp_path),
    )
    repo = init_repo(tmp_path / "demo-repo")
    sha = commit_files(repo, {"README.md": "not ROOT\n", "src/x.py": "print(1)\n"}, "demo")
    tag = unique_tag()
    answer = httpx.post(
        api.api + "/trigger",
        json={"repository": "bbtest/demo", "commits": [sha], "tags": [tag], "suite": "quick"},
        headers=api.headers,
        timeout=30,
    )
    assert answer.status_code == 202, answer.text
    (run_id,) = answer.json()["run_ids"]

    for key, value in {
        "BASKETBENCH_API_URL": api.url,
        "BASKETBENCH_API_TOKEN": api.token,
        "BASKETBENCH_ROOT_REPO": str(repo),
        "BASKETBENCH_WORKER_DIR": str(worker_dir),
        "BASKETBENCH_PROFILE": "auto",
    }.items():
        monkeypatch.setenv(key, value)
    from basketbench_workers.embedded import run_inline

    assert run_inline(run_id) == "done"
    run = httpx.get(f"{api.api}/runs/{run_id}", timeout=30).json()
    assert run["status"] == "succeeded" and run["result_count"] > 0, run["log_tail"]
    log = (run_dir(worker_dir, api.url, run_id) / "run.log").read_text()
    assert "build profile rootcompat" in log
    results = httpx.get(f"{api.api}/results", params={"run": run_id, "limit": 1000}).json()
    assert results["total"] == run["result_count"]
    assert all(r["commit"] == sha and r["roundtrip_ok"] for r in results["items"])
    # A second call for the same run does nothing (idempotent by status).
    assert run_inline(run_id) == "skipped"
