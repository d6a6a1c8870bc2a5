"""Codec sets without a worker process: choosing, pins from a tree, Debian sources, records."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from basketbench_workers.build.cachekey import BuildInputs
from basketbench_workers.build.codecsets import (
    CodecSet,
    CodecSetError,
    Pin,
    builtin_pins,
    choose_codec_set,
    load_named_sets,
)
from basketbench_workers.build.codecsource import CodecUnavailable, obtain_source, upstream_of
from basketbench_workers.pipeline.stages import record_codecs
from basketbench_workers.pipeline.suites import SuiteError, parse_suite
from basketbench_workers.procs import Deadline, StageFailed

from tests.deploy.dockerfile import parse

# A builtins/lzma/CMakeLists.txt in the form ROOT 6.40 writes it (our text: a comment
# block, the two pins, then the rest of the build's CMake, which the reader must skip).
ROOT_FORM_LZMA = """\
# The version below is the one the build downloads; update both lines together.
# 17 Dec 2025: xz 5.8.2
set(ROOT_LZMA_VERSION 5.8.2)
set(ROOT_LZMA_HASH "ce09c50a5962786b83e5da389c90dd2c15ecd0980a258dd01f70f9e7ce58a8f1")

set(ROOT_LZMA_PREFIX ${CMAKE_BINARY_DIR}/builtins/LZMA-prefix)
if(MSVC)
    set(lzma_extra_cmake_args -DCMAKE_CXXFLAGS_RELEASE=${CMAKE_CXX_FLAGS_RELEASE})
endif()
ExternalProject_Add(LZMA URL_HASH SHA256=${ROOT_LZMA_HASH})
"""
needs_apt = pytest.mark.skipif(shutil.which("apt-cache") is None, reason="needs Debian's apt")


def test_named_sets_and_the_two_special_ones() -> None:
    sets = load_named_sets()
    assert {"root-6.38.00", "root-6.40.00", "debian-trixie"} <= sets.keys()
    release = sets["root-6.40.00"]
    assert release.root_version == "6.40.00"
    assert {p.library: p.version for p in release.pins} == {
        "zstd": "1.5.7", "lz4": "1.10.0", "lzma": "5.8.2"}
    assert choose_codec_set("host").kind == "host" and not choose_codec_set("host").pins
    assert choose_codec_set("builtin").kind == "builtin"
    with pytest.raises(CodecSetError, match="unknown codec set 'nope'.*debian-trixie"):
        choose_codec_set("nope")


def test_named_set_files_are_checked(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text('name = "mine"\nzstd = "latest"\n')
    with pytest.raises(CodecSetError, match="version must look like 1.5.7"):
        load_named_sets(tmp_path)
    (tmp_path / "bad.toml").write_text('name = "host"\nzstd = "1.5.7"\n')
    with pytest.raises(CodecSetError, match="other than host/builtin"):
        load_named_sets(tmp_path)


def test_builtin_pins_read_roots_own_cmake_form() -> None:
    files = {
        "builtins/lzma/CMakeLists.txt": ROOT_FORM_LZMA,
        "builtins/zstd/CMakeLists.txt": 'set(ROOT_ZSTD_VERSION 1.5.7)\nset(ROOT_ZSTD_HASH "'
        + "ab" * 32 + '")\n',
        "builtins/lz4/CMakeLists.txt": "set(ROOT_LZ4_VERSION 1.10.0)\nset(ROOT_LZ4_HASH "
        + "CD" * 32 + ")\n",
    }
    pins = {p.library: p for p in builtin_pins(files.get)}
    assert pins["lzma"] == Pin("lzma", "5.8.2",
                               "ce09c50a5962786b83e5da389c90dd2c15ecd0980a258dd01f70f9e7ce58a8f1")
    assert pins["zstd"].sha256 == "ab" * 32 and pins["lz4"].sha256 == "cd" * 32


def test_builtin_without_pins_fails_with_the_reason() -> None:
    in_tree = {"builtins/zstd/CMakeLists.txt": "project(zstd LANGUAGES C)\n",
               "builtins/lz4/CMakeLists.txt": "", "builtins/lzma/CMakeLists.txt": ROOT_FORM_LZMA}
    with pytest.raises(CodecSetError, match="builtins/zstd/CMakeLists.txt pins no source"):
        builtin_pins(in_tree.get)
    with pytest.raises(CodecSetError, match="has no builtins/zstd/CMakeLists.txt"):
        builtin_pins({}.get)


@pytest.mark.parametrize(("debian", "upstream"), [
    ("1.4.8+dfsg-2.1", "1.4.8"), ("1.5.4+dfsg2-5", "1.5.4"), ("5.2.5-2.1~deb11u1", "5.2.5"),
    ("1:1.2.13.dfsg-1", "1.2.13"), ("1.10.0-4", "1.10.0"), ("5.8.1-1+deb13u1", "5.8.1"),
])
def test_upstream_version_of_a_debian_version(debian: str, upstream: str) -> None:
    assert upstream_of(debian) == upstream


@needs_apt
def test_a_version_debian_does_not_carry_fails_never_falls_back(tmp_path: Path) -> None:
    with pytest.raises(CodecUnavailable, match=r"lzma 5\.8\.2: no Debian source package "
                       r"xz-utils of that version.*5\.8\.1"):
        obtain_source(Pin("lzma", "5.8.2"), tmp_path, tmp_path / "log", Deadline("build", 60))


@needs_apt
def test_a_pinned_checksum_must_match_debians_archive(tmp_path: Path) -> None:
    with pytest.raises(CodecUnavailable, match="pins source archive sha256 0000.*lz4_1.10.0"):
        obtain_source(Pin("lz4", "1.10.0", "0" * 64), tmp_path, tmp_path / "log",
                      Deadline("build", 60))


def _document(path: Path, libraries: dict[str, str]) -> Path:
    path.write_text(json.dumps({"machine": {"libraries": libraries}, "results": []}))
    return path


def test_record_codecs_fills_the_document_and_checks_the_pins(tmp_path: Path) -> None:
    libs = {"zlib": "1.2.13", "zstd": "1.5.7", "lz4": "1.10.0", "lzma": "5.8.1"}
    trixie = choose_codec_set("debian-trixie")
    doc = _document(tmp_path / "ok.json", libs)
    record_codecs(doc, trixie)
    assert json.loads(doc.read_text())["codecs"] == {
        "set": "debian-trixie", "root_version": None, "libraries": libs}
    # rzbench measured another zstd than the set pins: the run fails, nothing is uploaded.
    wrong = _document(tmp_path / "wrong.json", {**libs, "zstd": "1.5.4"})
    with pytest.raises(StageFailed, match="pins zstd 1.5.7, but rzbench reports '1.5.4'"):
        record_codecs(wrong, trixie)


def test_the_build_key_names_the_codec_set() -> None:
    base = BuildInputs({"core/zip": "a"}, "gcc 12", ("profile=x@1",), "h")
    pinned = CodecSet("builtin", "builtin", (Pin("zstd", "1.5.7", "ab" * 32),))
    other = CodecSet("builtin", "builtin", (Pin("zstd", "1.4.8", "cd" * 32),))
    keys = {BuildInputs(base.tree_ids, base.compiler, base.profile_signature, "h",
                        tuple(s.signature())).key() for s in (pinned, other)}
    assert len(keys) == 2 and base.key() not in keys
    # host adds nothing: existing cache entries stay valid
    assert BuildInputs(base.tree_ids, base.compiler, base.profile_signature, "h", ()).key() \
        == base.key()


def test_a_suite_names_its_codec_set() -> None:
    raw = {"name": "s", "synthetic": ["event"], "codecs": "builtin"}
    assert parse_suite(raw, "s.toml").codecs == "builtin"
    assert parse_suite({**raw, "codecs": None}, "s.toml").codecs is None
    with pytest.raises(SuiteError, match="'codecs' must name a codec set"):
        parse_suite({**raw, "codecs": 5}, "s.toml")


def test_the_worker_image_can_obtain_pinned_sources() -> None:
    """The image runs the script a host worker runs for its deb-src lines, keeps the Sources
    indexes (its non-root worker cannot run apt-get update) and puts the codec cache on the
    worker's volume."""
    repo = Path(__file__).resolve().parents[2]
    worker = parse(repo / "docker" / "worker.Dockerfile")
    script = "scripts/setup-codec-sources.sh"
    assert any(script in ins.value for ins in worker.of("COPY"))
    runs = [ins.value for ins in worker.of("RUN")]
    setup = next(r for r in runs if "setup-codec-sources.sh" in r)
    assert "rm -rf /var/lib/apt/lists/*" not in setup and "_Packages" in setup
    assert any("BASKETBENCH_CODEC_CACHE=/var/lib/basketbench/codecs" in i.value
               for i in worker.of("ENV"))
    assert "Types: deb-src" in (repo / script).read_text()
