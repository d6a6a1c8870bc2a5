"""Pinned codec libraries built from Debian's source archives: one compile pool for a set,
liblzma without xz's configure (its config.h written by xzconfig.py, checked against
configure's own), the cache by version."""

from __future__ import annotations

import lzma
import re
import shutil
import subprocess
import tarfile
import time
from pathlib import Path

import pytest
from basketbench_workers.build import xzconfig
from basketbench_workers.build.codecs import build_codec_set, default_cache
from basketbench_workers.build.codecsets import CodecSet, Pin
from basketbench_workers.build.codecsource import obtain_source
from basketbench_workers.build.toolchain import detect_toolchain
from basketbench_workers.procs import Deadline

needs_apt = pytest.mark.skipif(shutil.which("apt-cache") is None, reason="needs Debian's apt")
described = pytest.mark.skipif(not xzconfig.platform_is_described(),
                               reason="xzconfig describes x86-64 Linux/glibc/GCC only")
# Debian's archives (sha256 from its signed Sources indexes), as a tree would pin them.
LZ4_1_10_0 = "537512904744b35e232912055ccf8ec66d768639ff3abe5788d90d792ec5f48b"
XZ_5_4_1 = "5d9827aa1875b21c288f78864bb26d2650b436ea8d2cad364e4921eb6266a5a5"
CONFIGURE_OPTIONS = ["--disable-shared", "--enable-static", "--with-pic", "--disable-xz",
                     "--disable-xzdec", "--disable-lzmadec", "--disable-lzmainfo",
                     "--disable-lzma-links", "--disable-scripts", "--disable-doc",
                     "--disable-nls"]


def test_unknown_xz_versions_and_platforms_fall_back_to_configure(tmp_path: Path) -> None:
    assert xzconfig.config_macros("5.6.3") is None  # not a version Debian carries
    tree = tmp_path / "xz-5.6.3"
    (tree / "src/liblzma/api/lzma").mkdir(parents=True)
    (tree / "src/liblzma/api/lzma/version.h").write_text(
        "#define LZMA_VERSION_MAJOR 5\n#define LZMA_VERSION_MINOR 6\n"
        "#define LZMA_VERSION_PATCH 3\n")
    assert xzconfig.xz_version(tree) == "5.6.3"
    assert xzconfig.write_config_h(tree, tmp_path / "cfg") is None
    assert not (tmp_path / "cfg").exists()


def _macros(compiler: str, config_h: Path) -> str:
    """Every macro defined after including config.h: the compiler's view, conditionals done."""
    return subprocess.run([compiler, "-dM", "-E", "-include", str(config_h), "-x", "c",
                           "/dev/null"], check=True, capture_output=True, text=True).stdout


@needs_apt
@described
@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("version", ["5.2.5", "5.4.1", "5.8.1"])
def test_xz_config_is_configures_own(version: str, tmp_path: Path) -> None:
    """Same macros after preprocessing and the same source list as xz's configure + Makefile
    give for the options the fallback path runs configure with."""
    source = obtain_source(Pin("lzma", version), default_cache(), tmp_path / "apt.log",
                           Deadline("build", 600))
    with tarfile.open(source.path) as archive:
        archive.extractall(tmp_path, filter="data")
    tree = tmp_path / f"xz-{version}"
    cc = detect_toolchain().cc
    subprocess.run(["./configure", "-q", *CONFIGURE_OPTIONS, f"CC={cc}", "CFLAGS=-O2"],
                   cwd=tree, check=True, capture_output=True)
    ours = xzconfig.write_config_h(tree, tmp_path / "ours")
    assert ours is not None
    assert _macros(cc, ours / "config.h") == _macros(cc, tree / "config.h")
    plan = subprocess.run(["make", "-n", "-C", "src/liblzma"], cwd=tree, check=True,
                          capture_output=True, text=True).stdout
    compiled = set(re.findall(r"-o liblzma_la-(\w+)\.lo", plan))
    assert compiled == {p.stem for p in xzconfig.liblzma_sources(tree)}


def _xz_probe(built: Path, tmp_path: Path) -> Path:
    """A program of ours linked with the built liblzma.a: prints its version, then compresses
    stdin as an .xz stream (preset 6, CRC64: what Python's lzma.compress does)."""
    program = tmp_path / "probe.c"
    program.write_text(r"""
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
int main(void) {
   static uint8_t in[1 << 20], out[1 << 21];
   size_t n = fread(in, 1, sizeof in, stdin);
   lzma_stream s = LZMA_STREAM_INIT;
   if (lzma_easy_encoder(&s, 6, LZMA_CHECK_CRC64) != LZMA_OK) return 1;
   s.next_in = in; s.avail_in = n; s.next_out = out; s.avail_out = sizeof out;
   if (lzma_code(&s, LZMA_FINISH) != LZMA_STREAM_END) return 2;
   fprintf(stderr, "%s\n", lzma_version_string());
   fwrite(out, 1, s.total_out, stdout);
   lzma_end(&s);
   return 0;
}
""")
    binary = tmp_path / "probe"
    subprocess.run([detect_toolchain().cc, "-O2", str(program), f"-I{built / 'include'}",
                    str(built / "lib" / "liblzma.a"), "-pthread", "-o", str(binary)],
                   check=True)
    return binary


@needs_apt
@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_set_builds_in_one_pool_then_comes_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "codecs"
    cache.mkdir()
    # The archives Debian serves are downloaded once per machine; the builds here are new.
    (default_cache() / "sources").mkdir(parents=True, exist_ok=True)
    (cache / "sources").symlink_to(default_cache() / "sources")
    pins = (Pin("lz4", "1.10.0", LZ4_1_10_0), Pin("lzma", "5.4.1", XZ_5_4_1))
    codec_set = CodecSet("test", "named", pins)
    log = tmp_path / "build.log"
    built = build_codec_set(codec_set, cache, detect_toolchain(), log,
                            Deadline("build", 1500), 2)
    assert [(b.library, b.version) for b in built] == [("lz4", "1.10.0"), ("lzma", "5.4.1")]
    for codec in built:
        assert codec.archive.is_file() and (codec.prefix / "COMPLETE").is_file()
        assert codec.record["built_with"] == ["lz4 1.10.0", "lzma 5.4.1"]
        assert float(str(codec.record["set_cpu_seconds"])) > 0
    text = log.read_text()
    assert "built lz4 1.10.0, lzma 5.4.1 in" in text and "of compiler CPU" in text
    lzma_built = built[1]
    if xzconfig.platform_is_described():
        assert "no configure" in " ".join(map(str, lzma_built.record["flags"]))
        assert "./configure" not in text
    # The hand-configured liblzma is xz 5.4.1 and writes the bytes the host's configure-built
    # liblzma writes (Debian bookworm's is 5.4.1 too; Python's lzma module uses it).
    probe = _xz_probe(lzma_built.prefix, tmp_path)
    data = (Path(lzma.__file__).read_bytes() * 40)[: 1 << 20]
    run = subprocess.run([str(probe)], input=data, capture_output=True, check=True)
    assert run.stderr.decode().strip() == "5.4.1"
    assert lzma.decompress(run.stdout) == data
    if _host_xz_version() == "5.4.1":
        assert run.stdout == lzma.compress(data, preset=6, check=lzma.CHECK_CRC64)

    # Built before, pinned by checksum: found without apt, the archive or a compiler.
    start = time.monotonic()
    again = build_codec_set(codec_set, cache, detect_toolchain(), log, Deadline("build", 60), 2)
    assert time.monotonic() - start < 1.0
    assert [b.prefix for b in again] == [b.prefix for b in built]


def _host_xz_version() -> str | None:
    found = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "liblzma5"],
                           capture_output=True, text=True, check=False).stdout
    return found.split("-")[0] or None
