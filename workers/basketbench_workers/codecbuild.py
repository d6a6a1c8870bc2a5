"""Build pinned codec libraries from their source archives, cached by version and archive.

<cache>/<library>-<version>-<sha256[:12]>/{include/, lib/lib<x>.a, build.json, COMPLETE}.
zstd and lz4: their library sources compiled directly (as ROOT's builtins do, -O3, zstd's
xxhash namespaced ZSTD_); liblzma: xz's own configure + make of src/liblzma only. The
archives' objects are later merged into libRootZip.a, so rzbench links exactly these.
"""

from __future__ import annotations

import json
import shutil
import tarfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from basketbench.core.locks import file_lock

from basketbench_workers.codecsets import CodecSet, Pin
from basketbench_workers.codecsource import SourceArchive, obtain_source
from basketbench_workers.procs import Deadline, StageFailed, run_logged
from basketbench_workers.toolchain import Toolchain

BUILD_FORMAT = "1"
ARCHIVE_NAME = {"zstd": "libzstd.a", "lz4": "liblz4.a", "lzma": "liblzma.a"}


@dataclass(frozen=True)
class BuiltCodec:
    library: str
    version: str
    prefix: Path  # include/ and lib/
    record: dict[str, object]

    @property
    def archive(self) -> Path:
        return self.prefix / "lib" / ARCHIVE_NAME[self.library]


def default_cache() -> Path:
    return Path.home() / ".cache" / "basketbench" / "codecs"


def build_codec_set(
    codec_set: CodecSet,
    cache: Path,
    toolchain: Toolchain,
    log: Path,
    deadline: Deadline,
    jobs: int,
) -> list[BuiltCodec]:
    """Every pinned library of the set, built (or taken from the cache).

    The libraries build side by side: xz's configure runs on one core while zstd compiles.
    """
    with ThreadPoolExecutor(max_workers=max(1, len(codec_set.pins))) as pool:
        futures = [
            pool.submit(build_codec, pin, cache, toolchain, _own_log(log, pin), deadline, jobs)
            for pin in codec_set.pins
        ]
        try:
            return [future.result() for future in futures]
        finally:
            with log.open("a") as fh:  # one readable log, library by library
                for pin in codec_set.pins:
                    own = _own_log(log, pin)
                    if own.exists():
                        fh.write(own.read_text(errors="replace"))
                        own.unlink()


def _own_log(log: Path, pin: Pin) -> Path:
    return log.with_name(f"{log.name}.{pin.library}")


def _entry_for(pin: Pin, sha256: str, cache: Path) -> Path:
    return cache / f"{pin.library}-{pin.version}-{sha256[:12]}"


def _complete(entry: Path, compiler: str) -> BuiltCodec | None:
    try:
        record = json.loads((entry / "COMPLETE").read_text())
    except (OSError, ValueError):
        return None
    if record.get("format") != BUILD_FORMAT or record.get("compiler") != compiler:
        return None
    built = BuiltCodec(str(record["library"]), str(record["version"]), entry, record)
    return built if built.archive.is_file() else None


def build_codec(
    pin: Pin, cache: Path, toolchain: Toolchain, log: Path, deadline: Deadline, jobs: int
) -> BuiltCodec:
    compiler = toolchain.cc_version
    if pin.sha256 is not None:  # fast path: no apt, no archive, when it was built before
        hit = _complete(_entry_for(pin, pin.sha256, cache), compiler)
        if hit is not None:
            return hit
    source = obtain_source(pin, cache, log, deadline)
    entry = _entry_for(pin, source.sha256, cache)
    with file_lock(cache / f"{entry.name}.lock"):
        hit = _complete(entry, compiler)
        if hit is not None:
            return hit
        start = time.monotonic()
        shutil.rmtree(entry, ignore_errors=True)
        work = entry / "work"
        work.mkdir(parents=True)
        with log.open("a") as fh:
            fh.write(f"building {pin.library} {pin.version} from {source.path.name}\n")
        tree = _unpack(source, work)
        builder = {"zstd": _build_zstd, "lz4": _build_lz4, "lzma": _build_lzma}[pin.library]
        flags = builder(tree, entry, toolchain, log, deadline, jobs)
        built_version = _header_version(pin.library, entry / "include")
        if built_version != pin.version:
            raise StageFailed(
                f"{source.path.name} holds {pin.library} {built_version}, not {pin.version}"
            )
        shutil.rmtree(work, ignore_errors=True)
        record: dict[str, object] = {
            "format": BUILD_FORMAT,
            **source.record(),
            "compiler": compiler,
            "flags": flags,
            "seconds": round(time.monotonic() - start, 2),
        }
        (entry / "build.json").write_text(json.dumps(record, indent=2))
        (entry / "COMPLETE").write_text(json.dumps(record))
        with log.open("a") as fh:
            fh.write(f"built {pin.library} {pin.version} in {record['seconds']} s\n")
        return BuiltCodec(pin.library, pin.version, entry, record)


def _unpack(source: SourceArchive, work: Path) -> Path:
    with tarfile.open(source.path) as archive:
        archive.extractall(work / "src", filter="data")
    tops = [p for p in (work / "src").iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise StageFailed(f"{source.path.name}: expected one top directory, found {len(tops)}")
    return tops[0]


def _compile_all(
    sources: list[Path], flags: list[str], objdir: Path, toolchain: Toolchain, log: Path,
    deadline: Deadline, jobs: int,
) -> list[Path]:
    objdir.mkdir(parents=True, exist_ok=True)
    objects = [objdir / f"{i:03d}-{src.stem}.o" for i, src in enumerate(sources)]
    logs = [objdir / f"{i:03d}.log" for i in range(len(sources))]

    def one(i: int) -> None:
        run_logged([toolchain.cc, *flags, "-c", sources[i], "-o", objects[i]], logs[i], deadline)

    errors: list[StageFailed] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for future in [pool.submit(one, i) for i in range(len(sources))]:
            try:
                future.result()
            except StageFailed as exc:
                errors.append(exc)
    with log.open("a") as fh:
        for path in logs:
            if path.exists():
                fh.write(path.read_text(errors="replace"))
    if errors:
        raise StageFailed(f"compiling a codec library failed: {errors[0]}", errors[0].log_tail)
    return objects


def _archive(objects: list[Path], target: Path, log: Path, deadline: Deadline) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    run_logged(["ar", "rcs", target, *objects], log, deadline)


def _copy_headers(paths: list[Path], include: Path) -> None:
    include.mkdir(parents=True, exist_ok=True)
    for path in paths:
        shutil.copy2(path, include / path.name)


def _build_zstd(tree: Path, entry: Path, tc: Toolchain, log: Path, dl: Deadline, jobs: int
                ) -> list[str]:
    lib = tree / "lib"
    sources = sorted(
        p for sub in ("common", "compress", "decompress", "dictBuilder")
        for p in (lib / sub).glob("*.[cS]")
    )
    flags = ["-O3", "-fPIC", "-DXXH_NAMESPACE=ZSTD_", "-DZSTD_LEGACY_SUPPORT=0",
             f"-I{lib}", f"-I{lib / 'common'}"]
    objects = _compile_all(sources, flags, entry / "work" / "obj", tc, log, dl, jobs)
    _archive(objects, entry / "lib" / ARCHIVE_NAME["zstd"], log, dl)
    headers = [next(lib.rglob(name)) for name in ("zstd.h", "zstd_errors.h", "zdict.h")]
    _copy_headers(headers, entry / "include")
    return flags[:4]


def _build_lz4(tree: Path, entry: Path, tc: Toolchain, log: Path, dl: Deadline, jobs: int
               ) -> list[str]:
    lib = tree / "lib"
    # lz4.c + lz4hc.c: the block API ROOT uses. Not xxhash.c (ROOT links libxxhash for XXH64)
    # nor lz4frame.c, so no XXH symbol of lz4's can shadow the host's libxxhash.
    flags = ["-O3", "-fPIC", f"-I{lib}"]
    objects = _compile_all([lib / "lz4.c", lib / "lz4hc.c"], flags, entry / "work" / "obj",
                           tc, log, dl, jobs)
    _archive(objects, entry / "lib" / ARCHIVE_NAME["lz4"], log, dl)
    _copy_headers([lib / "lz4.h", lib / "lz4hc.h"], entry / "include")
    return flags[:2]


def _build_lzma(tree: Path, entry: Path, tc: Toolchain, log: Path, dl: Deadline, jobs: int
                ) -> list[str]:
    options = ["--disable-shared", "--enable-static", "--with-pic", "--disable-xz",
               "--disable-xzdec", "--disable-lzmadec", "--disable-lzmainfo",
               "--disable-lzma-links", "--disable-scripts", "--disable-doc", "--disable-nls"]
    run_logged(["./configure", "-q", *options, f"CC={tc.cc}", "CFLAGS=-O2"], log, dl, cwd=tree)
    run_logged(["make", "-s", "-C", "src/liblzma", f"-j{max(1, jobs)}"], log, dl, cwd=tree)
    built = tree / "src" / "liblzma" / ".libs" / "liblzma.a"
    if not built.is_file():
        raise StageFailed(f"the liblzma build produced no {built.name}")
    (entry / "lib").mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, entry / "lib" / ARCHIVE_NAME["lzma"])
    api = tree / "src" / "liblzma" / "api"
    shutil.copytree(api / "lzma", entry / "include" / "lzma")
    shutil.copy2(api / "lzma.h", entry / "include" / "lzma.h")
    return ["-O2", *options]


def _header_version(library: str, include: Path) -> str:
    """The version the built headers declare (a wrong archive must not pass as the pin)."""
    import re

    header, names = {
        "zstd": ("zstd.h", ("ZSTD_VERSION_MAJOR", "ZSTD_VERSION_MINOR", "ZSTD_VERSION_RELEASE")),
        "lz4": ("lz4.h", ("LZ4_VERSION_MAJOR", "LZ4_VERSION_MINOR", "LZ4_VERSION_RELEASE")),
        "lzma": ("lzma/version.h", ("LZMA_VERSION_MAJOR", "LZMA_VERSION_MINOR",
                                    "LZMA_VERSION_PATCH")),
    }[library]
    text = (include / header).read_text(errors="replace")
    parts = []
    for name in names:
        match = re.search(rf"#\s*define\s+{name}\s+(\d+)", text)
        if match is None:
            raise StageFailed(f"{header} of the built {library} declares no {name}")
        parts.append(str(int(match.group(1))))
    return ".".join(parts)
