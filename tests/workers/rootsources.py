"""The codec-versions fixture as a tree and as a git repository, in ROOT's layout.

What is ROOT's and what is ours (nothing of ROOT's is stored in this repository):
- builtins/zlib: ROOT 6.32's bundled Cloudflare zlib, read at test time from the
  cppyy-cling 6.32.8 sdist on PyPI (downloaded with its sha256 checked, cached outside the
  clone; every file checked against its length and sha256 in MANIFEST.json);
- core/zip, core/lz4, core/zstd, core/lzma: rzbench's own ROOT-compatible layer
  (bench-harness/rootcompat), each file put where ROOT keeps the one it stands for, and one
  C file of ours (``FIXTURE_C``) for the profiles' C group;
- builtins/{zstd,lz4,lzma}/CMakeLists.txt: pins in the form ROOT writes them (``pin_file``).

  cf-148   Cloudflare zlib, zstd 1.4.8, lz4 1.10.0, xz 5.4.1
  cf-157   the same tree with zstd 1.5.7 pinned
  vanilla  builtins/zlib's Cloudflare files removed: the system zlib (the March 2026 switch)
  xz-582   the xz release ROOT 6.40 pins (5.8.2, an archive Debian does not carry)

What the fixture checks is this project's pipeline (profile detection and builds, codec
sets, records, history). That the profiles compile ROOT's own files of that era was shown
by every test run until 2026-11-28 (docs/perf/workers.md); that our layer writes ROOT's
bytes is checked against real releases (tests/measure/test_root_release.py).

Used by tests/workers/test_codec_fixture.py and bench/codec_build_time.py.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

from .gitrepo import commit_files, git, init_repo

REPO_ROOT = Path(__file__).resolve().parents[2]
FIXTURE = REPO_ROOT / "tests" / "fixtures" / "root-sources"
ROOTCOMPAT = REPO_ROOT / "bench-harness" / "rootcompat"
# Debian's orig archives (sha256 from Debian's signed Sources indexes).
ARCHIVES = {
    ("zstd", "1.4.8"): "1e8ce5c4880a6d5bd8d3186e4186607dd19b64fc98a3877fc13aeefd566d67c5",
    ("zstd", "1.5.7"): "0c092ef267edce57ba7f3f2645c861f72eaf5e76273c6c3632869423464b90a5",
    ("lz4", "1.10.0"): "537512904744b35e232912055ccf8ec66d768639ff3abe5788d90d792ec5f48b",
    ("lzma", "5.4.1"): "5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5",
    # ROOT 6.40's pin (upstream's xz-5.8.2 tarball, as ROOT's builtins/lzma states it):
    # no Debian release carries 5.8.2, so a run that needs it must fail and say so.
    ("lzma", "5.8.2"): "ce09c50a5962786b83e5da389c90dd2c15ecd0980a258dd01f70f9e7ce58a8f1",
}
NAMES = {"zstd": "ZSTD", "lz4": "LZ4", "lzma": "LZMA"}
# Our layer at ROOT's paths: tree path -> file under bench-harness/rootcompat.
LAYER = {
    "core/zip/inc/RZip.h": "include/RZip.h",
    "core/zip/inc/Compression.h": "include/Compression.h",
    "core/zip/src/RZip.cxx": "src/rzip.cpp",
    "core/zip/src/ZipZLIB.cxx": "src/codec_zlib.cpp",
    "core/zip/src/block_format.hpp": "src/block_format.hpp",
    "core/lz4/src/ZipLZ4.cxx": "src/codec_lz4.cpp",
    "core/zstd/src/ZipZSTD.cxx": "src/codec_zstd.cpp",
    "core/lzma/src/ZipLZMA.cxx": "src/codec_lzma.cpp",
}
# ROOT's trees have C sources (the old CS codec, ZipLZMA.c) and the profiles build them as
# a group of their own, which must match a file: ours names the layer, so a test can see
# that the library it loads is the one built from this tree.
FIXTURE_C = ("core/zip/src/FixtureLayer.c", """\
/* basketbench codec fixture (not ROOT's code): rzbench's rootcompat layer in ROOT's layout.
   ROOT keeps C sources here (its old CS codec); the fixture's layer has none, and the build
   profiles compile the C files of a tree as a group of their own. */
const char *R__fixture_layer(void)
{
   return "basketbench codec fixture: rootcompat in ROOT's layout";
}
""")


def pin_file(library: str, version: str) -> str:
    """builtins/<lib>/CMakeLists.txt pinning a source archive, in the form ROOT's
    builtins/lzma/CMakeLists.txt has (set(ROOT_<LIB>_VERSION ...), set(ROOT_<LIB>_HASH
    "...")), written by this test."""
    name = NAMES[library]
    return (
        f"# Pinned for the basketbench codec fixture.\n"
        f"set(ROOT_{name}_VERSION {version})\n"
        f'set(ROOT_{name}_HASH "{ARCHIVES[(library, version)]}")\n'
        f"\nset(ROOT_{name}_PREFIX ${{CMAKE_BINARY_DIR}}/builtins/{name}-prefix)\n"
    )


def manifest_entries() -> list[dict[str, Any]]:
    return list(json.loads((FIXTURE / "MANIFEST.json").read_text())["files"])


# ROOT's files the manifest takes from a PyPI sdist are not stored in the clone: they are
# read from the sdist, downloaded at test time with its sha256 checked and cached outside the
# clone by the replay's source fetcher (the same archive `basketbench replay` uses).
SDIST = ("cppyy-cling", "6.32.8",
         "f51ea2e9bd1418c27d1fca3ba97e322ad660a5e18180aad2d17fb55db43a0b49")
# where the manifest's origin_path of such a file starts (the sdist's archive layout)
SDIST_ROOT = f"{SDIST[0].replace('-', '_')}-{SDIST[1]}/src/"


@functools.cache
def _sdist_tree() -> Path:
    from basketbench_devtools.replay import sources

    cache = sources.replay_cache()
    listed = [s for s in sources.fetch_index(cache, _quiet) if s.version == SDIST[1]]
    assert listed and listed[0].sha256 == SDIST[2], (
        f"PyPI lists {SDIST[0]} {SDIST[1]} as {listed[0].sha256 if listed else 'absent'}, "
        f"the manifest's files were taken from the archive with sha256 {SDIST[2]}")
    return sources.source_tree(listed[0], cache, _quiet).path


def _quiet(_message: str) -> None:  # the fetcher's progress lines: not in test output
    pass


def _read(entry: dict[str, Any]) -> bytes:
    origin = entry["origin_path"]
    assert origin.startswith(SDIST_ROOT), entry["file"]  # nothing of ROOT's is stored here
    return (_sdist_tree() / origin.removeprefix(SDIST_ROOT)).read_bytes()


@functools.cache
def verified_fixture_files() -> dict[str, bytes]:
    """The manifest's files (path in the fixture -> bytes), from the sdist, each checked
    against its manifest entry (length, sha256) first. Read and checked once per
    process (a tree and its repository both ask): shared, do not modify."""
    files = {}
    for entry in manifest_entries():
        data = _read(entry)
        assert len(data) == entry["length"], entry["file"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        files[entry["file"]] = data
    return files


def layer_files() -> dict[str, str | bytes]:
    """Our layer at ROOT's paths, and the fixture's C file."""
    files: dict[str, str | bytes] = {path: (ROOTCOMPAT / ours).read_bytes()
                                     for path, ours in LAYER.items()}
    files[FIXTURE_C[0]] = FIXTURE_C[1]
    return files


def fixture_tree() -> dict[str, str | bytes]:
    """The Cloudflare-era tree: ROOT's builtins/zlib from the sdist, our layer, and pins of
    Debian's archives."""
    stored = verified_fixture_files()
    tree: dict[str, str | bytes] = {entry["tree_path"]: stored[entry["file"]]
                                    for entry in manifest_entries()}
    tree.update(layer_files())
    tree.update({f"builtins/{lib}/CMakeLists.txt": pin_file(lib, v)
                 for lib, v in (("zstd", "1.4.8"), ("lz4", "1.10.0"), ("lzma", "5.4.1"))})
    tree["README.md"] = ("A ROOT-layout tree for basketbench's codec tests: ROOT's builtins/zlib, "
                         "rzbench's rootcompat layer in core/.\n")
    return tree


def vanilla_tree() -> dict[str, str | bytes]:
    """After the March 2026 switch: builtins/zlib's bundled (Cloudflare) zlib is gone."""
    tree = {p: d for p, d in fixture_tree().items() if not p.startswith("builtins/zlib/")}
    tree["builtins/zlib/README"] = "zlib: the system's (vanilla) zlib\n"
    return tree


def build_repo(path: Path) -> tuple[Path, dict[str, str], dict[str, str]]:
    repo = init_repo(path)
    messages: dict[str, str] = {}
    shas: dict[str, str] = {}

    def commit(key: str, files: dict[str, str | bytes], message: str) -> None:
        shas[key] = commit_files(repo, files, message)
        messages[shas[key]] = message

    tree = fixture_tree()
    commit("cf-148", tree, "core: ROOT's compression layer, Cloudflare zlib, builtin zstd 1.4.8")
    commit("cf-157", {"builtins/zstd/CMakeLists.txt": pin_file("zstd", "1.5.7")},
           "builtins: zstd 1.5.7")
    git(repo, "rm", "-q", *[p for p in tree if p.startswith("builtins/zlib/")])
    commit("vanilla", {"builtins/zlib/README": "zlib: the system's (vanilla) zlib\n"},
           "builtins: replace Cloudflare zlib with vanilla zlib")
    commit("xz-582", {"builtins/lzma/CMakeLists.txt": pin_file("lzma", "5.8.2")},
           "builtins: xz 5.8.2, as ROOT 6.40 pins it")
    return repo, shas, messages
