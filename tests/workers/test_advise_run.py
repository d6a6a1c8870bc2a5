"""POST /advise with real processes: the API queues an advise run, a real `basketbench worker`
advises on a file of its data root, reports progress, and uploads the advice document."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench_workers.config import WorkerSettings
from basketbench_workers.pipeline.stages import adopt_make_build

from tests.measure.conftest import real_file

from .conftest import FINAL, WorkerProcess, unique_tag, wait_for
from .test_integration import get, registered, start_api

pytestmark = [pytest.mark.integration, pytest.mark.slow]

SETTINGS = [101, 106, 201, 404, 505, 508]  # measure/advise/advisor.py's defaults


def test_advise_run_measures_a_data_root_file_and_stores_its_advice(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    start_worker: Callable[..., WorkerProcess],
    worker_dir: Path,
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    (data / "hzz").mkdir(parents=True)
    shutil.copy(real_file("uproot-HZZ-zlib.root"), data / "hzz" / "HZZ.root")
    (data / "escape.root").symlink_to(real_file("uproot-HZZ-zlib.root"))  # outside the root
    # Files that are no ROOT file, or no longer a whole one (issue 38).
    (data / "empty.root").write_bytes(b"")
    (data / "text.root").write_text("no ROOT file\n")
    (data / "cut.root").write_bytes(real_file("uproot-HZZ-zlib.root").read_bytes()[:100_000])
    # `make harness-build`'s rzbench, not a second compile (falls back to building).
    adopt_make_build(WorkerSettings(worker_dir=worker_dir), tmp_path / "adopt.log")

    api = start_api(api_server_factory, broker_url, tmp_path)
    tag = unique_tag()
    # An advise run is recorded against the newest commit: make one known.
    known = httpx.post(f"{api.api}/trigger", headers=api.headers, timeout=30,
                       json={"commits": ["c" * 40], "tags": [f"{tag}-idle"]})
    assert known.status_code in (201, 202), known.text
    worker = start_worker(api, broker_url, tag, BASKETBENCH_DATA_ROOT=str(data))
    wait_for(lambda: registered(api, tag), 600, "the worker to register", on_timeout=worker.log)

    def advise(path: str) -> httpx.Response:
        return httpx.post(f"{api.api}/advise", headers=api.headers, timeout=30,
                          json={"tag": tag, "path": path})

    # Paths that leave the data root never reach a worker: 422 naming the field.
    for bad in ("../x.root", "/etc/hostname", "hzz/../../x.root"):
        answer = advise(bad)
        assert answer.status_code == 422 and "path" in answer.text, (bad, answer.text)
    assert httpx.post(f"{api.api}/advise", timeout=30,
                      json={"tag": tag, "path": "hzz/HZZ.root"}).status_code == 401

    created = advise("hzz/HZZ.root")
    assert created.status_code == 201, created.text
    run_id = created.json()["run_id"]
    seen: set[str] = set()

    def finished() -> Any:
        run = get(api, f"/runs/{run_id}")
        seen.add(str(run["stage"]))
        return run["status"] in FINAL and run

    run = wait_for(finished, 600, "the advise run", interval=0.5, on_timeout=worker.log)
    assert run["status"] == "succeeded", run["log_tail"]
    assert run["suite"] == "advise" and run["progress"] == 1.0 and run["stage"] == "done"
    assert "advise" in run["timings"], run["timings"]

    advice = get(api, f"/advise/{run_id}")
    assert advice["file"] == "HZZ.root"
    # what measured it and how stable: the worker's own speed history (its worker dir)
    assert advice["speed_evidence"]["source"] in ("this-run", "history")
    assert advice["stability"]["resamples"] == 200 and advice["provenance"]["codec_versions"]
    assert sorted(m["setting"] for m in advice["measured"]) == SETTINGS
    for m in advice["measured"]:  # the file's bytes are the sum of its branches'
        assert sum(s["compressed_bytes"] for b in advice["branches"] for s in b["sizes"]
                   if s["setting"] == m["setting"]) == m["compressed_bytes"]
    # The page ranks the stored advice with the same engine: the same winner.
    again = httpx.post(f"{api.api}/recommend", headers=api.headers, timeout=30,
                       json={"candidates": advice["measured"], "model": advice["model"]})
    assert again.json()["recommended"] == advice["recommended"]
    listed = get(api, "/advise")["items"]
    assert listed[0]["run_id"] == run_id and listed[0]["has_document"] is True
    assert listed[0]["path"] == "hzz/HZZ.root" and listed[0]["status"] == "succeeded"

    # A symlink out of the data root: the worker refuses, the run fails saying why.
    escaped = advise("escape.root")
    assert escaped.status_code == 201, escaped.text
    escaped_id = escaped.json()["run_id"]
    failed = wait_for(lambda: (r := get(api, f"/runs/{escaped_id}"))["status"] in FINAL and r,
                      300, "the escaping run to fail", on_timeout=worker.log)
    assert failed["status"] == "failed" and "leaves the data root" in failed["log_tail"]
    # the Recommend page lists the failed run with its reason
    listed = {r["run_id"]: r for r in get(api, "/advise")["items"]}
    assert "leaves the data root" in listed[escaped_id]["reason"]
    assert listed[run_id]["reason"] is None
    assert httpx.get(f"{api.api}/advise/{escaped_id}", timeout=30).status_code == 404

    # Not ROOT, empty, truncated: each run fails with the reader's one-line reason, the file
    # named as given; no traceback and no path of the worker in what anyone can read.
    reasons = {"empty.root": "not a ROOT file", "text.root": "not a ROOT file",
               "cut.root": "truncated ROOT file"}
    ids = {}
    for name in reasons:
        answer = advise(name)
        assert answer.status_code == 201, answer.text
        ids[name] = answer.json()["run_id"]
    for name, reason in reasons.items():
        bad = wait_for(lambda i=ids[name]: (r := get(api, f"/runs/{i}"))["status"] in FINAL and r,
                       300, f"the run on {name} to fail", on_timeout=worker.log)
        assert bad["status"] == "failed", bad
        assert f"stage advise failed: {name}: {reason}" in bad["log_tail"], bad["log_tail"]
        public = httpx.get(f"{api.api}/runs/{ids[name]}", timeout=30).text
        listed = httpx.get(f"{api.api}/runs", timeout=30).text
        for text in (public, listed):
            assert "Traceback" not in text
            for secret in (str(tmp_path), str(data), str(worker_dir)):
                assert secret not in text, (secret, text[:2000])
