"""Releases as commits: a commit tagged v6-40-00 is measured with ROOT 6.40.00's own libCore.

Real API, real git repository, the real wheel (cached in ~/.cache/basketbench/root-releases).
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench.measure.realroot.releases import RELEASES, release_commit_sha
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.releases import release_by_id, release_by_tag
from basketbench_workers.pipeline.stages import run_dir

from .conftest import unique_tag
from .gitrepo import commit_files, git, init_repo

pytestmark = [pytest.mark.integration, pytest.mark.slow]

TINY_SUITE = """name = "release-tiny"
description = "one synthetic dataset at ZSTD-5 and LZMA-1"
synthetic = ["event"]
settings = [201, 505]
min_samples = 1
target_ms = 0
"""


def test_release_tags_and_ids(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "root")
    untagged = commit_files(repo, {"README": "ROOT\n"}, "dev")
    tagged = commit_files(repo, {"README": "ROOT 6.40\n"}, "release")
    git(repo, "tag", "v6-40-00", tagged)
    git(repo, "tag", "v9-99-00", untagged)  # not a known release
    mirror = Mirror(str(repo), repo / ".git")
    assert release_by_tag(mirror, tagged) == RELEASES["6.40.00"]
    assert release_by_tag(mirror, untagged) is None
    assert release_by_id(release_commit_sha(RELEASES["6.38.00"])) == RELEASES["6.38.00"]
    assert release_by_id(tagged) is None


@pytest.mark.timeout(1800)
def test_a_tagged_release_is_measured_with_its_own_libcore(
    api_server_factory: Callable[..., Any],
    tmp_path: Path,
    worker_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("ROOT release wheels exist for x86_64 Linux only")
    api = api_server_factory(
        BASKETBENCH_BROKER_URL="redis://127.0.0.1:6379/15",
        BASKETBENCH_FRONTEND_DIST=str(tmp_path),
    )
    repo = init_repo(tmp_path / "root")
    dev = commit_files(repo, {"README": "between releases\n"}, "dev")
    release = commit_files(repo, {"README": "6.40\n"}, "v6-40-00")
    git(repo, "tag", "v6-40-00", release)
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "release-tiny.toml").write_text(TINY_SUITE)
    tag = unique_tag()

    def trigger(sha: str) -> int:
        answer = httpx.post(
            api.api + "/trigger",
            json={"repository": "bbtest/root", "commits": [sha], "tags": [tag],
                  "suite": "release-tiny"},
            headers=api.headers, timeout=30,
        )
        assert answer.status_code == 202, answer.text
        (run_id,) = answer.json()["run_ids"]
        return int(run_id)

    for key, value in {
        "BASKETBENCH_API_URL": api.url,
        "BASKETBENCH_API_TOKEN": api.token,
        "BASKETBENCH_ROOT_REPO": str(repo),
        "BASKETBENCH_WORKER_DIR": str(worker_dir),
        "BASKETBENCH_SUITES_DIR": str(suites),
        "BASKETBENCH_PROFILE": "root-release",
    }.items():
        monkeypatch.setenv(key, value)
    from basketbench_workers.embedded import run_inline

    # root-release insists on a release: an untagged commit fails with the reason
    dev_run = trigger(dev)
    assert run_inline(dev_run) == "failed"
    failed = httpx.get(f"{api.api}/runs/{dev_run}", timeout=30).json()
    assert "is not a ROOT release" in json.dumps(failed), failed

    run_id = trigger(release)
    assert run_inline(run_id) == "done"
    run = httpx.get(f"{api.api}/runs/{run_id}", timeout=30).json()
    assert run["status"] == "succeeded" and run["result_count"] > 0, run["log_tail"]
    workdir = run_dir(worker_dir, api.url, run_id)
    assert "ROOT release 6.40.00 (PyPI root==0.1a12)" in (workdir / "run.log").read_text()
    document = json.loads((workdir / "result.json").read_text())
    assert document["codecs"]["set"] == "root-6.40.00"
    assert document["codecs"]["libraries"]["zstd"] == "1.5.7"
    assert document["machine"]["root_version"] == "6.40.00"
    results = httpx.get(f"{api.api}/results", params={"run": run_id, "limit": 100}).json()
    assert results["total"] == run["result_count"]
    assert all(r["commit"] == release and r["roundtrip_ok"] for r in results["items"])
    # every result names what measured it (issue 28): the release's codecs, not the host's
    assert document["build"]["profile"] == "root-release"
    for item in results["items"]:
        p = item["provenance"]
        assert (p["codec_set"], p["root_version"]) == ("root-6.40.00", "6.40.00")
        assert p["measured_codecs"]["zstd"] == "1.5.7"
        assert (p["build_profile"], p["harness_hash"]) == (
            "root-release", document["build"]["harness_hash"])
        assert p["harness_backend"] == "root" and p["harness"] == "rzbench 0.1.0"
