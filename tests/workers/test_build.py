"""Cache keys from git tree ids and the compression-layer build, on a real git repository
in ROOT's layout made from the rootcompat sources."""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from basketbench_workers.build.cachekey import build_inputs, harness_source_hash
from basketbench_workers.build.gitmirror import Mirror
from basketbench_workers.build.layer import complete_layer, link_layer
from basketbench_workers.build.profiles import (
    PLANTED_WORK_MACRO,
    load_profiles,
    with_planted_work,
)
from basketbench_workers.build.rootbuild import LIBRARY_NAME, build_library
from basketbench_workers.build.toolchain import Toolchain, detect_toolchain
from basketbench_workers.procs import Deadline, StageFailed
from basketbench_workers.sandbox import Policy, Sandbox

from .gitrepo import commit_files, init_repo
from .layout import REPO_ROOT, lz4_source_path, rootcompat_layout_files, slow_down_lz4


@pytest.fixture(scope="module")
def layout_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    repo = init_repo(tmp_path_factory.mktemp("rootlike") / "root")
    files = rootcompat_layout_files()
    base = commit_files(repo, files, "ROOT layout from rootcompat")
    docs = commit_files(repo, {"README.md": "docs only\n"}, "docs: no compression change")
    lz4 = lz4_source_path(files)
    slow = commit_files(
        repo, {lz4: slow_down_lz4(Path(repo / lz4).read_text())}, "lz4: extra pass per byte"
    )
    return repo, [base, docs, slow]


def _mirror(layout_repo: tuple[Path, list[str]], tmp_path: Path) -> Mirror:
    repo, _ = layout_repo
    mirror = Mirror(str(repo), tmp_path / "mirror.git")
    mirror.update(tmp_path / "git.log", Deadline("checkout", 60))
    return mirror


def test_cache_key_follows_compression_trees_only(
    layout_repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, (base, docs, slow) = layout_repo
    mirror = _mirror(layout_repo, tmp_path)
    profile = load_profiles()["test-layout"]
    tc = detect_toolchain()

    def key(sha: str, toolchain: Toolchain = tc, harness: str = "h1") -> str:
        return build_inputs(profile, lambda p: mirror.tree_id(sha, p), toolchain, harness).key()

    assert key(base) == key(docs)  # README-only commit: same build
    assert key(base) != key(slow)  # core/lz4 changed
    other_compiler = Toolchain(tc.cc, tc.cxx, tc.cc_version + " (patched)", tc.cxx_version)
    assert key(base) != key(base, toolchain=other_compiler)
    assert key(base) != key(base, harness="h2")
    inputs = build_inputs(profile, lambda p: mirror.tree_id(base, p), tc, "h1")
    assert (
        inputs.tree_ids["core/lz4"]
        == subprocess.run(
            ["git", "--git-dir", str(mirror.path), "rev-parse", f"{base}:core/lz4"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    assert inputs.tree_ids["builtins/zlib"] != "absent"


def test_profile_flags_change_the_key(layout_repo: tuple[Path, list[str]], tmp_path: Path) -> None:
    _, (base, _, _) = layout_repo
    mirror = _mirror(layout_repo, tmp_path)
    profile = load_profiles()["test-layout"]
    changed = type(profile)(**{**profile.__dict__, "version": profile.version + 1})
    tc = detect_toolchain()
    assert (
        build_inputs(profile, lambda p: mirror.tree_id(base, p), tc, "h").key()
        != build_inputs(changed, lambda p: mirror.tree_id(base, p), tc, "h").key()
    )


def test_harness_hash_ignores_build_dirs(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.cpp").write_text("int a;\n")
    first = harness_source_hash(tmp_path)
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "rzbench").write_text("binary")
    assert harness_source_hash(tmp_path) == first
    (tmp_path / "src" / "a.cpp").write_text("int b;\n")
    assert harness_source_hash(tmp_path) != first


def test_export_and_build_the_compression_layer(
    layout_repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, (base, _, _) = layout_repo
    mirror = _mirror(layout_repo, tmp_path)
    profile = load_profiles()["test-layout"]
    tree = tmp_path / "tree"
    log = tmp_path / "build.log"
    mirror.export(base, list(profile.tree_paths), tree, log, Deadline("checkout", 60))
    assert (tree / "core/zip/inc/RZip.h").is_file()
    assert not (tree / "README.md").exists()  # only the profile's directories

    start = time.monotonic()
    entry = tmp_path / "entry"  # a build cache entry: <entry>/prefix, <entry>/layer
    archive = build_library(
        profile,
        tree,
        entry / "prefix",
        tmp_path / "work",
        detect_toolchain(),
        log,
        Deadline("build", 300),
        2,
        {"ROOT_COMMIT": base},
        Sandbox(Policy()),
    )
    assert archive.name == LIBRARY_NAME and archive.stat().st_size > 0
    symbols = subprocess.run(
        ["nm", "-g", "--defined-only", str(archive)], capture_output=True, text=True, check=True
    ).stdout
    for name in ("R__zipMultipleAlgorithm", "R__unzip", "R__unzip_header"):
        assert f" T {name}" in symbols, name
    assert (entry / "prefix/include/RZip.h").is_file()
    assert (entry / "prefix/include/Compression.h").is_file()
    assert time.monotonic() - start < 300

    # The loadable layer rzbench `ab` dlopens: only the RZip C API leaves it, and loaded
    # the way rzbench loads it (RTLD_LOCAL | RTLD_DEEPBIND) it round-trips a buffer.
    so = link_layer(entry, profile, detect_toolchain(), log, Deadline("build", 120), base,
                    {"zlib": "1.2.13"})
    assert so == entry / "layer" / "libbbzip.so" and complete_layer(entry) == so
    exported = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True,
                              text=True, check=True).stdout.split()
    assert {"R__zipMultipleAlgorithm", "R__unzip", "R__unzip_header"} <= set(exported)
    assert not [s for s in exported if "zip_zlib" in s or s.startswith("_Z")], exported
    record = json.loads((entry / "layer" / "layer.json").read_text())
    assert record["commit"] == base and record["profile"] == "test-layout"
    assert record["codec_versions"] == {"zlib": "1.2.13"}
    assert _roundtrip(so, b"basketbench layer " * 500) == b"basketbench layer " * 500


def _roundtrip(so: Path, data: bytes) -> bytes:
    lib = ctypes.CDLL(str(so), mode=os.RTLD_NOW | os.RTLD_LOCAL | os.RTLD_DEEPBIND)
    src, size = ctypes.create_string_buffer(data, len(data)), ctypes.c_int(len(data))
    out = ctypes.create_string_buffer(len(data) + 64)
    out_size, irep = ctypes.c_int(len(data) + 64), ctypes.c_int(0)
    lib.R__zipMultipleAlgorithm(ctypes.c_int(1), ctypes.byref(size), src, ctypes.byref(out_size),
                                out, ctypes.byref(irep), ctypes.c_int(1))  # ZLIB-1
    assert 0 < irep.value < len(data), irep.value
    back = ctypes.create_string_buffer(len(data))
    zsize, bsize, brep = ctypes.c_int(irep.value), ctypes.c_int(len(data)), ctypes.c_int(0)
    lib.R__unzip(ctypes.byref(zsize), out, ctypes.byref(bsize), back, ctypes.byref(brep))
    assert brep.value == len(data), brep.value
    return back.raw


def test_planted_work_option_changes_only_root_builds_and_their_key(
    layout_repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    _, (base, _, _) = layout_repo
    mirror = _mirror(layout_repo, tmp_path)
    profiles = load_profiles()
    tc = detect_toolchain()
    plain = profiles["test-layout"]
    planted = with_planted_work(plain, 2.0)
    assert all(f"{PLANTED_WORK_MACRO}=2" in g.defines for g in planted.groups)
    assert with_planted_work(plain, None) is plain
    assert with_planted_work(profiles["rootcompat"], 2.0) is profiles["rootcompat"]
    keys = {build_inputs(p, lambda x: mirror.tree_id(base, x), tc, "h").key()
            for p in (plain, planted)}
    assert len(keys) == 2  # never mixed with ordinary builds in the cache


def test_compile_error_fails_with_the_log_tail(tmp_path: Path) -> None:
    profile = load_profiles()["test-layout"]
    tree = tmp_path / "tree"
    for rel, content in rootcompat_layout_files().items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(content if isinstance(content, bytes) else content.encode())
    (tree / "core/zstd/src/broken.cpp").write_text("this is not C++;\n")
    with pytest.raises(StageFailed) as info:
        build_library(
            profile,
            tree,
            tmp_path / "prefix",
            tmp_path / "work",
            detect_toolchain(),
            tmp_path / "build.log",
            Deadline("build", 300),
            2,
            {},
            Sandbox(Policy()),
        )
    assert "broken.cpp" in info.value.log_tail
    assert "error" in info.value.log_tail


def test_repo_root_has_the_rootcompat_sources() -> None:
    assert (REPO_ROOT / "bench-harness/rootcompat/include/RZip.h").is_file()


def test_harness_snapshot_is_frozen_per_process(tmp_path: Path) -> None:
    from basketbench_workers.build.cachekey import harness_snapshot

    source = tmp_path / "harness"
    (source / "src").mkdir(parents=True)
    (source / "CMakeLists.txt").write_text("project(x)\n")
    (source / "src" / "a.cpp").write_text("int a;\n")
    (source / "build").mkdir()
    (source / "build" / "junk.o").write_text("x")
    copy, digest = harness_snapshot(source, tmp_path / "snap")
    assert (copy / "src" / "a.cpp").read_text() == "int a;\n"
    assert not (copy / "build").exists()
    (source / "src" / "a.cpp").write_text("int b;\n")  # edited while the worker runs
    assert harness_snapshot(source, tmp_path / "snap") == (copy, digest)
    assert (copy / "src" / "a.cpp").read_text() == "int a;\n"
    with pytest.raises(StageFailed, match="no harness sources"):
        harness_snapshot(tmp_path / "nowhere", tmp_path / "snap")
