"""The codec-versions fixture as a tree and as a git repository: ROOT's real sources from
tests/fixtures/root-sources (MANIFEST.json) plus pins of Debian's codec archives.

  cf-148   Cloudflare zlib, zstd 1.4.8, lz4 1.10.0, xz 5.4.1
  cf-157   the same tree with zstd 1.5.7 pinned
  vanilla  builtins/zlib's Cloudflare files removed: the system zlib (the March 2026 switch)
  xz-582   ROOT's real builtins/lzma pin (xz 5.8.2, an archive Debian does not carry)

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
REAL_LZMA_PIN = "root-project-root/builtins/lzma/CMakeLists.txt"
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
    origin = entry.get("origin_path", "")
    if origin.startswith(SDIST_ROOT):
        return (_sdist_tree() / origin.removeprefix(SDIST_ROOT)).read_bytes()
    return (FIXTURE / entry["file"]).read_bytes()


@functools.cache
def verified_fixture_files() -> dict[str, bytes]:
    """The manifest's files (path in the fixture -> bytes), stored or from the sdist, each
    checked against its manifest entry (length, sha256) first. Read and checked once per
    process (a tree and its repository both ask): shared, do not modify."""
    files = {}
    for entry in manifest_entries():
        data = _read(entry)
        assert len(data) == entry["length"], entry["file"]
        assert hashlib.sha256(data).hexdigest() == entry["sha256"], entry["file"]
        files[entry["file"]] = data
    return files


def fixture_tree() -> dict[str, str | bytes]:
    """The Cloudflare-era tree: every manifest file at its tree_path (but ROOT's xz 5.8.2
    pin) and the test's pins of Debian's archives."""
    stored = verified_fixture_files()
    tree: dict[str, str | bytes] = {
        entry["tree_path"]: stored[entry["file"]]
        for entry in manifest_entries() if entry["file"] != REAL_LZMA_PIN
    }
    tree.update({f"builtins/{lib}/CMakeLists.txt": pin_file(lib, v)
                 for lib, v in (("zstd", "1.4.8"), ("lz4", "1.10.0"), ("lzma", "5.4.1"))})
    tree["README.md"] = "ROOT's compression layer, assembled for basketbench's codec tests.\n"
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
    real_lzma = verified_fixture_files()[REAL_LZMA_PIN]
    commit("xz-582", {"builtins/lzma/CMakeLists.txt": real_lzma},
           "builtins: ROOT's xz 5.8.2 pin")
    return repo, shas, messages
