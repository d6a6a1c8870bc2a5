"""Pinned codec versions end to end, on a repository in ROOT's layout.

The repository is assembled at test time (tests/workers/rootsources.py): ROOT 6.32's
Cloudflare builtins/zlib from the cppyy-cling 6.32.8 sdist (downloaded from PyPI and
cached outside the clone, each file checked against MANIFEST.json), rzbench's own
rootcompat layer at ROOT's core/ paths, and builtins/{zstd,lz4,lzma}/CMakeLists.txt pins
written in ROOT's form. Nothing of ROOT's is stored in this repository.

  cf-148   Cloudflare zlib, zstd 1.4.8, lz4 1.10.0, xz 5.4.1
  cf-157   the same tree with zstd 1.5.7 pinned
  vanilla  builtins/zlib's Cloudflare files removed: the system zlib (the March 2026 switch)
  xz-582   the xz ROOT 6.40 pins (5.8.2, an archive Debian does not carry)

The worker's packaged build profiles compile it (root-cloudflare-zlib before the switch,
root-vanilla-zlib after, chosen automatically) and rzbench's `root` backend runs it.
- The profiles' builds: the layer each builds from the tree, against rzbench's rootcompat
  library over the same host libraries, on every HZZ basket at 101-109, 201-209, 401-409,
  501-509: the same bytes, but ZLIB over the tree's Cloudflare zlib.
- The pipeline: a signed push webhook runs the four commits on a real worker with the suite's
  `builtin` codec set (zstd / lz4 / xz built from Debian's source packages, cached by
  version); the API's history and compare answers must show a ZSTD size change at the zstd
  upgrade, no LZ4 / LZMA change across the Cloudflare commits, the ZLIB compression-speed
  step at the vanilla switch (judged by speed ratios within one run), and the unobtainable xz
  failing its run with the reason.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench.measure.realroot import groundtruth as gt
from basketbench.measure.rootio.extract import extract_corpus
from basketbench_workers.build.profiles import load_profiles
from basketbench_workers.build.rootbuild import build_library
from basketbench_workers.build.toolchain import detect_toolchain
from basketbench_workers.procs import Deadline
from basketbench_workers.sandbox import Policy, Sandbox

from tests.measure.conftest import real_file

from .conftest import (
    FINAL,
    LayoutRepo,
    WorkerProcess,
    push_payload,
    send_push,
    unique_tag,
    wait_for,
)
from .rootsources import (
    FIXTURE,
    FIXTURE_C,
    LAYER,
    ROOTCOMPAT,
    SDIST_ROOT,
    build_repo,
    fixture_tree,
    manifest_entries,
    vanilla_tree,
)

pytestmark = [pytest.mark.slow]

REPO_ROOT = Path(__file__).resolve().parents[2]
ROOTCOMPAT_SO = REPO_ROOT / "bench-harness" / "build" / "librootcompat_rzip.so"


def test_fixture_stores_nothing_of_roots_and_names_where_each_file_comes_from() -> None:
    entries = manifest_entries()
    stored = {str(p.relative_to(FIXTURE)) for p in FIXTURE.rglob("*") if p.is_file()}
    assert stored == {"MANIFEST.json", "suites/codec-fixture.toml"}
    # ROOT's files are read from PyPI's sdist at test time: its builtins/zlib only
    assert entries and all(e["origin_path"].startswith(SDIST_ROOT) and
                           e["file"].startswith("builtins/zlib/") and
                           e["tree_path"] == e["file"] for e in entries)
    assert "builtins/zlib/deflate_cf.c" in {e["file"] for e in entries}
    # core/ is ours: rootcompat's files at ROOT's paths, and the fixture's C file
    assert all((ROOTCOMPAT / ours).is_file() for ours in LAYER.values())
    assert {"core/zip/src/RZip.cxx", "core/zstd/src/ZipZSTD.cxx"} <= LAYER.keys()
    assert b"not ROOT's code" in FIXTURE_C[1].encode()


def build_shared_layer(profile_name: str, tree_files: dict[str, str | bytes],
                       work: Path) -> Path:
    """The tree's compression layer built by a packaged profile over the host's libraries,
    then linked into a shared library for ctypes (as the ground-truth tests load rootcompat)."""
    tree = work / "tree"
    for rel, data in tree_files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data.encode() if isinstance(data, str) else data)
    profile = load_profiles()[profile_name]
    toolchain = detect_toolchain()
    archive = build_library(profile, tree, work / "prefix", work / "build", toolchain,
                            work / "build.log", Deadline("build", 1200),
                            int(os.environ.get("BASKETBENCH_BUILD_JOBS", "2")),
                            {"ROOT_COMMIT": "fixture"}, Sandbox(Policy()))
    shared = work / f"lib{profile_name}.so"
    subprocess.run([toolchain.cxx, "-shared", "-o", str(shared), "-Wl,--whole-archive",
                    str(archive), "-Wl,--no-whole-archive",
                    *[f"-l{lib}" for lib in profile.link_libraries]], check=True)
    return shared


@pytest.fixture(scope="module")
def hzz_corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hzz") / "uproot-HZZ-uncompressed.bbc"
    extract_corpus([real_file("uproot-HZZ-uncompressed.root")], out,
                   "uproot-HZZ-uncompressed")
    return out


@pytest.mark.timeout(1800)
@pytest.mark.parametrize("profile_name", ["root-vanilla-zlib", "root-cloudflare-zlib"])
def test_profiles_build_the_trees_layer_byte_for_byte(
    profile_name: str, hzz_corpus: Path, tmp_path: Path
) -> None:
    if not ROOTCOMPAT_SO.is_file():
        pytest.skip(f"{ROOTCOMPAT_SO} is not built (make harness-build)")
    cloudflare = profile_name == "root-cloudflare-zlib"
    shared = build_shared_layer(profile_name, fixture_tree() if cloudflare else vanilla_tree(),
                                tmp_path)
    rows = gt.compare_parallel([hzz_corpus], gt.SETTINGS, ROOTCOMPAT_SO, shared)
    print(f"\n{profile_name}:\n" + gt.markdown(rows, "rootcompat", f"{profile_name}'s build"))
    assert len(rows) == len(gt.SETTINGS) and all(r.baskets > 0 for r in rows)
    for row in rows:
        if row.setting // 100 == 1 and cloudflare:
            continue  # the tree's Cloudflare zlib against the system zlib: checked below
        # Same zlib / liblzma / liblz4 / libzstd / libxxhash on both sides: the same bytes.
        assert not row.differs, (row.setting, row.first_difference)
    if cloudflare:
        zlib = [r for r in rows if r.setting // 100 == 1]
        assert all(r.differs for r in zlib if r.setting % 100 >= 2), gt.markdown(zlib, "a", "b")
    # The library is the one the profile built from this tree (its C group included), and
    # our layer has no CS compressor: algorithm 3 yields no bytes and says why.
    probe = ("import ctypes, sys; from pathlib import Path; "
             "from basketbench.measure.realroot.groundtruth import RZip; "
             "lib = ctypes.CDLL(sys.argv[1]); lib.R__fixture_layer.restype = ctypes.c_char_p; "
             "print(lib.R__fixture_layer().decode()); "
             "print(RZip(Path(sys.argv[1]), deepbind=True).compress(306, bytes(range(256)) * 64))")
    cs = subprocess.run([sys.executable, "-c", probe, str(shared)], capture_output=True,
                        text=True, check=False)
    assert cs.returncode == 0, cs
    assert cs.stdout.splitlines() == [
        "basketbench codec fixture: rootcompat in ROOT's layout", "None"], cs
    assert "the old 'CS' algorithm is not implemented" in cs.stderr, cs


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


def profiles_used(worker_dir: Path) -> dict[str, str]:
    """commit -> build profile, from the run logs the worker keeps."""
    used = {}
    for log in worker_dir.rglob("run.log"):
        for line in log.read_text(errors="replace").splitlines():
            if line.startswith("commit ") and "; build profile " in line:
                sha, rest = line[len("commit "):].split("; build profile ", 1)
                used[sha] = rest.split()[0]
    return used


@pytest.mark.integration
@pytest.mark.timeout(2400)
def test_builtin_codecs_across_zstd_upgrade_and_vanilla_switch(
    api_server_factory: Callable[..., Any],
    broker_url: str,
    layout_repo: LayoutRepo,
    start_worker: Callable[..., WorkerProcess],
    worker_dir: Path,
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
    # The packaged profiles built ROOT's sources, each chosen from the tree.
    used = profiles_used(worker_dir)
    assert [used.get(shas[k]) for k in order[:3]] == [
        "root-cloudflare-zlib", "root-cloudflare-zlib", "root-vanilla-zlib"], used
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
