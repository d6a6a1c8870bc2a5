"""The codec arena per commit with real processes: PostgreSQL, Redis, `basketbench serve`,
`basketbench worker`, a git history in ROOT's layout. A suite with an `[arena]` table runs
the arena after the benchmark with the commit's own build as ROOT's reference layer (its
rzbench sandboxed) and uploads the document with the commit: the Codec arena page's board
and the first point of its history."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from basketbench_workers.pipeline.stages import run_dir

from .conftest import (
    FINAL,
    LayoutRepo,
    WorkerProcess,
    push_payload,
    send_push,
    unique_tag,
    wait_for,
)
from .gitrepo import commit_files, init_repo
from .layout import rootcompat_layout_files
from .test_integration import get

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SUITE = """
name = "arena-pipeline-test"
aliases = ["default", "quick"]
description = "one setting timed, then the codec arena on HZZ"
settings = [505]
min_samples = 3
target_ms = 10

[[corpora]]
name = "hzz"
files = ["uproot-HZZ-zlib.root"]

[arena]
files = ["uproot-HZZ.root"]
candidates = ["zstd:10"]
pairs = 3
target_ms = 5
"""


@pytest.fixture(scope="module")
def layout_repo(tmp_path_factory: pytest.TempPathFactory) -> LayoutRepo:
    repo = init_repo(tmp_path_factory.mktemp("arena-history") / "root")
    base = commit_files(repo, rootcompat_layout_files(), "core: compression layer in ROOT's layout")
    return LayoutRepo(repo, f"bbtest/arena-{uuid.uuid4().hex[:6]}", base, base, base,
                      {base: "core: compression layer in ROOT's layout"})


@pytest.mark.timeout(2400)
def test_a_commit_gets_its_arena_board_measured_against_its_own_layer(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    worker_dir: Path,
    tmp_path: Path,
) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "arena-pipeline-test.toml").write_text(SUITE)
    api = api_server_factory(BASKETBENCH_BROKER_URL=broker_url,
                             BASKETBENCH_FRONTEND_DIST=str(tmp_path))
    tag = unique_tag()
    worker = start_worker(api, broker_url, tag, BASKETBENCH_SUITES_DIR=str(suites))
    wait_for(lambda: get(api, "/machines", tag=tag)["items"], 900, "the worker to register",
             on_timeout=worker.log)
    sha = layout_repo.base
    answer = send_push(api, push_payload(layout_repo, [sha]))
    assert answer.status_code == 202, answer.text
    (run_id,) = answer.json()["run_ids"]

    def final() -> dict[str, Any] | None:
        run = get(api, f"/runs/{run_id}")
        return run if run["status"] in FINAL else None

    run = wait_for(final, 1500, f"the run of {sha[:8]}", interval=2, on_timeout=worker.log)
    assert run["status"] == "succeeded", (run["log_tail"], worker.log()[-4000:])
    assert "arena" in run["timings"], run["timings"]
    log = (run_dir(worker_dir, api.url, run_id) / "run.log").read_text()
    assert "arena: uploaded:" in log, log[-3000:]

    [board] = get(api, "/arena", file="uproot-HZZ.root", shapes="true")["boards"]
    assert board["run"]["commit"] == sha and board["run"]["run_id"] == run_id
    [row] = board["results"]
    # zstd 10 is what ROOT's 505 runs, built from the same upstream version as the commit's
    # layer links: the same bytes, read back by ROOT, at a speed ratio measured with pairs
    assert (row["candidate"], row["level"], row["reference_setting"]) == ("zstd", 10, 505)
    assert row["size_change_pct"] == 0 and row["roundtrip_ok"] and row["root_readable"]
    assert row["compress_ratio"]["pairs"] + row["compress_ratio"]["disturbed_pairs"] == 3
    assert board["shapes"], "the per-shape sizes"
    history = get(api, "/arena/history", file="uproot-HZZ.root", machine=board["run"]["machine"],
                  candidate="zstd", level=10, reference_setting=505)
    assert [p["commit"] for p in history["points"]] == [sha]
