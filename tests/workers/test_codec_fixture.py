"""Pinned codec versions end to end, on a ROOT-layout repository with ROOT's real zlib.

The repository is assembled at test time from tests/fixtures/root-sources (ROOT 6.32's
Cloudflare builtins/zlib, verbatim, see MANIFEST.json) plus basketbench's rootcompat codec
layer in ROOT's directories, and builtins/{zstd,lz4,lzma}/CMakeLists.txt pinning versions
and archive checksums in the form of ROOT's builtins/lzma/CMakeLists.txt:

  cf-148   Cloudflare zlib, zstd 1.4.8, lz4 1.10.0, xz 5.4.1
  cf-157   the same tree with zstd 1.5.7 pinned
  vanilla  builtins/zlib's Cloudflare files removed: the system zlib (the March 2026 switch)
  xz-582   ROOT's real builtins/lzma pin (xz 5.8.2, an archive Debian does not carry)

A signed push webhook runs them on a real worker with the suite's `builtin` codec set
(zstd / lz4 / xz built from Debian's source packages, cached by version); the API's history
and compare answers must show: a ZSTD size change at the zstd upgrade, no LZ4 / LZMA change
across the Cloudflare commits, the ZLIB compression-speed step at the vanilla switch (judged
by speed ratios within one run), and the unobtainable xz failing its run with the reason.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from .conftest import (
    FINAL,
    LayoutRepo,
    WorkerProcess,
    push_payload,
    send_push,
    unique_tag,
    wait_for,
)
from .gitrepo import commit_files, git, init_repo
from .layout import rootcompat_layout_files

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "root-sources"
# Debian's orig archives (sha256 from Debian's signed Sources indexes).
ARCHIVES = {
    ("zstd", "1.4.8"): "1e8ce5c4880a6d5bd8d3186e4186607dd19b64fc98a3877fc13aeefd566d67c5",
    ("zstd", "1.5.7"): "0c092ef267edce57ba7f3f2645c861f72eaf5e76273c6c3632869423464b90a5",
    ("lz4", "1.10.0"): "537512904744b35e232912055ccf8ec66d768639ff3abe5788d90d792ec5f48b",
    ("lzma", "5.4.1"): "5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5",
}
NAMES = {"zstd": "ZSTD", "lz4": "LZ4", "lzma": "LZMA"}


def pin_file(library: str, version: str) -> str:
    """builtins/<lib>/CMakeLists.txt pinning a Debian source archive, written in the form of
    ROOT's builtins/lzma/CMakeLists.txt (the test's own text, not ROOT's)."""
    name = NAMES[library]
    return (
        f"# Pinned for the basketbench codec fixture (Debian's source archive).\n"
        f"set(ROOT_{name}_VERSION {version})\n"
        f'set(ROOT_{name}_HASH "{ARCHIVES[(library, version)]}")\n'
    )


def verified_fixture_files() -> dict[str, bytes]:
    """The stored ROOT sources (path in the fixture -> bytes), each checked against its
    manifest entry (length, sha256) first."""
    manifest = json.loads((FIXTURE / "MANIFEST.json").read_text())
    files = {}
    for entry in manifest["files"]:
        data = (FIXTURE / entry["file"]).read_bytes()
        assert len(data) == entry["length"], entry["file"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        files[entry["file"]] = data
    return files


def build_repo(path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    repo = init_repo(path)
    messages: dict[str, str] = {}
    shas: dict[str, str] = {}

    def commit(key: str, files: dict[str, str | bytes], message: str) -> None:
        shas[key] = commit_files(repo, files, message)
        messages[shas[key]] = message

    tree: dict[str, str | bytes] = dict(rootcompat_layout_files())
    tree.pop("builtins/zlib/README", None)
    stored = verified_fixture_files()
    tree.update({p: d for p, d in stored.items() if p.startswith("builtins/zlib/")})
    tree.update({f"builtins/{lib}/CMakeLists.txt": pin_file(lib, v)
                 for lib, v in (("zstd", "1.4.8"), ("lz4", "1.10.0"), ("lzma", "5.4.1"))})
    commit("cf-148", tree, "core: Cloudflare zlib, builtin zstd 1.4.8")
    commit("cf-157", {"builtins/zstd/CMakeLists.txt": pin_file("zstd", "1.5.7")},
           "builtins: zstd 1.5.7")
    git(repo, "rm", "-q", *[p for p in tree if p.startswith("builtins/zlib/")])
    commit("vanilla", {"builtins/zlib/README": "zlib: the system's (vanilla) zlib\n"},
           "builtins: replace Cloudflare zlib with vanilla zlib")
    real_lzma = stored["root-project-root/builtins/lzma/CMakeLists.txt"]
    commit("xz-582", {"builtins/lzma/CMakeLists.txt": real_lzma},
           "builtins: ROOT's xz 5.8.2 pin")
    return repo, shas, messages


def get(api: Any, path: str, **params: Any) -> Any:
    response = httpx.get(api.api + path, params=params, timeout=60)
    assert response.status_code == 200, response.text
    return response.json()


def history(api: Any, machine: str, setting: int, metric: str, dataset: str) -> dict[str, Any]:
    return dict(get(api, "/history", machine=machine, dataset=dataset, setting=setting,
                    metric=metric))


def speed_ratio(results: list[dict[str, Any]], dataset: str, num: int, den: int) -> float:
    """Compression speed of setting `num` over setting `den`, both from one run."""
    speed = {r["setting"]: r["compress_mbps"]["median"] for r in results
             if r["dataset"] == dataset and r["preconditioner"] == "none"}
    return float(speed[num] / speed[den])


@pytest.mark.timeout(2400)
def test_builtin_codecs_across_zstd_upgrade_and_vanilla_switch(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    repo, shas, messages = build_repo(tmp_path / "root")
    fixture_repo = LayoutRepo(repo, f"bbtest/codecs-{unique_tag()}", "", "", "", messages)
    api = api_server_factory(BASKETBENCH_BROKER_URL=broker_url,
                             BASKETBENCH_FRONTEND_DIST=str(tmp_path),
                             BASKETBENCH_DEFAULT_SUITE="codec-fixture")
    tag = unique_tag()
    worker = start_worker(
        api, broker_url, tag,
        BASKETBENCH_ROOT_REPO=str(repo), BASKETBENCH_PROFILE="auto",
        BASKETBENCH_PROFILES_DIR=str(FIXTURE / "profiles"),
        BASKETBENCH_SUITES_DIR=str(FIXTURE / "suites"),
    )
    wait_for(lambda: get(api, "/machines", tag=tag)["items"], 900, "the worker to register",
             on_timeout=worker.log)
    order = ["cf-148", "cf-157", "vanilla", "xz-582"]
    answer = send_push(api, push_payload(fixture_repo, [shas[k] for k in order]))
    assert answer.status_code == 202, answer.text
    run_ids = dict(zip(order, answer.json()["run_ids"], strict=True))

    def all_final() -> dict[str, dict[str, Any]] | None:
        runs = {k: get(api, f"/runs/{i}") for k, i in run_ids.items()}
        return runs if all(r["status"] in FINAL for r in runs.values()) else None

    runs = wait_for(all_final, 2000, "four runs to finish", interval=3, on_timeout=worker.log)
    for key in order[:3]:
        assert runs[key]["status"] == "succeeded", (key, runs[key]["log_tail"])
    # The pinned xz cannot be obtained: the run fails and says why; nothing is measured.
    failed = runs["xz-582"]
    assert failed["status"] == "failed" and failed["result_count"] == 0
    assert "lzma 5.8.2" in failed["log_tail"] and "Debian" in failed["log_tail"]

    machine = get(api, f"/machines/{runs['cf-148']['machine_id']}")["name"]
    assert len({runs[k]["machine_id"] for k in order[:3]}) == 1  # one machine, three sets
    results = {k: get(api, "/results", run=runs[k]["id"], limit=1000)["items"]
               for k in order[:3]}

    # Every point names the versions it was measured with.
    zstd_size = history(api, machine, 505, "compressed_bytes", "event")
    assert zstd_size["codecs"]["set"] == "builtin"
    points = {p["sha"]: p for p in zstd_size["points"]}
    assert [points[shas[k]]["codecs"]["libraries"]["zstd"] for k in order[:3]] == [
        "1.4.8", "1.5.7", "1.5.7"]
    assert {points[shas[k]]["codecs"]["libraries"]["lz4"] for k in order[:3]} == {"1.10.0"}
    assert {points[shas[k]]["codecs"]["libraries"]["lzma"] for k in order[:3]} == {"5.4.1"}

    # ZSTD sizes change at the zstd upgrade (flagged as a change), not at the zlib switch.
    zstd_changes = {c["sha"] for c in zstd_size["changes"]}
    assert shas["cf-157"] in zstd_changes and shas["vanilla"] not in zstd_changes
    cmp = get(api, "/compare", base_commit=shas["cf-148"], head_commit=shas["cf-157"],
              machine=machine, metric="compressed_bytes")
    assert cmp["base"]["codecs"]["libraries"]["zstd"] == "1.4.8"
    assert cmp["head"]["codecs"]["libraries"]["zstd"] == "1.5.7"
    changed = {(r["dataset"], r["configuration"]["setting"]) for r in cmp["rows"]
               if r["significant"]}
    assert any(s // 100 == 5 for _, s in changed), cmp["rows"]
    # LZ4 and LZMA: identical sizes across the Cloudflare commits.
    assert not any(s // 100 in (2, 4) for _, s in changed), changed
    for setting in (201, 401):
        h = history(api, machine, setting, "compressed_bytes", "event")
        assert h["changes"] == [], (setting, h["changes"])

    # ZLIB: same library code path, Cloudflare vs vanilla. Sizes change at the switch...
    zlib_cmp = get(api, "/compare", base_commit=shas["cf-157"], head_commit=shas["vanilla"],
                   machine=machine, metric="compressed_bytes")
    assert any(r["significant"] and r["configuration"]["setting"] // 100 == 1
               for r in zlib_cmp["rows"]), zlib_cmp["rows"]
    # ...and compression speed, judged against LZ4-1 measured in the same run.
    ratios = {}
    for key in order[:3]:
        ratios[key] = {s: statistics.median(
            speed_ratio(results[key], ds, s, 401) for ds in ("event", "nanoaod-offsets"))
            for s in (106, 109)}
    for s in (106, 109):
        step = ratios["cf-157"][s] / ratios["vanilla"][s]
        same = ratios["cf-148"][s] / ratios["cf-157"][s]
        assert step > 1.3, (s, ratios)  # Cloudflare compresses faster
        assert 0.75 < same < 1.33, (s, ratios)  # the zstd upgrade leaves ZLIB alone
    print("\nZLIB-x / LZ4-1 compression-speed ratios per commit: "
          + json.dumps({k: {s: round(v, 3) for s, v in r.items()} for k, r in ratios.items()})
          + "; timings: " + "; ".join(f"{k} {runs[k]['timings']}" for k in order[:3]))
