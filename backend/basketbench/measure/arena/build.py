"""Build a candidate's layer: its library compiled from the source package, statically, with
candidate_layer.c on top, into one shared object rzbench can load (`rzbench ab --b LAYER`).

<cache>/layers/<candidate>-<version>-<sha256[:12]>-<key>/{layer.so, build.json}; the key covers
the recipe's format, the layer's C source and the compiler, so a change of any rebuilds. Libraries
are compiled file by file with the flags their own builds use (zlib-ng, whose generated headers
and CPU dispatch need its configure step, through its CMake build) into <cache>/libs/, once per
recipe and archive, and linked into every candidate built from them (zstd, zstd-ldm, zstd-ctx).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure.arena.candidates import Candidate
from basketbench.measure.arena.sources import Archive, obtain
from basketbench.measure.locks import file_lock

Say = Callable[[str], None]
BUILD_FORMAT = "1"
LAYER_SOURCE = Path(__file__).with_name("candidate_layer.c")


class BuildError(RuntimeError):
    """A candidate could not be built (the message says why; the log's tail included)."""


@dataclass(frozen=True)
class BuiltLayer:
    candidate: Candidate
    layer: Path
    record: dict[str, object]  # source, version, sha256, flags: recorded in the arena JSON


def _cc() -> str:
    return os.environ.get("CC", "cc")


def compiler_version() -> str:
    out = subprocess.run([_cc(), "--version"], capture_output=True, text=True, check=False)
    return (out.stdout.splitlines() or ["unknown"])[0]


def _jobs() -> int:
    return max(1, int(os.environ.get("BASKETBENCH_BUILD_JOBS", "2")))


def _run(cmd: list[str], log: Path, cwd: Path | None = None) -> None:
    with log.open("a") as fh:
        fh.write("$ " + " ".join(cmd) + "\n")
        fh.flush()
        done = subprocess.run(cmd, cwd=cwd, stdout=fh, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
        raise BuildError(f"{cmd[0]} {cmd[1] if len(cmd) > 1 else ''} failed "
                         f"(exit {done.returncode}):\n{tail}")


# Only what a recipe compiles is extracted from a large sdist (cppyy-cling: ROOT's whole tree).
_ONLY = {"zlib-cloudflare": "src/builtins/zlib/"}


def _extract(archive: Archive, into: Path, only: str | None = None) -> Path:
    """The archive's single top folder, extracted under `into`."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive.path) as tar:
        members = None
        if only is not None:
            members = [m for m in tar.getmembers()
                       if "/" in m.name and m.name.split("/", 1)[1].startswith(only)]
        tar.extractall(into, members=members, filter="data")
    tops = [p for p in into.iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise BuildError(f"{archive.path.name}: expected one top folder, found {len(tops)}")
    return tops[0]


def _compile_all(jobs: list[tuple[Path, list[str], Path]], log: Path) -> None:
    def one(job: tuple[Path, list[str], Path]) -> None:
        source, flags, obj = job
        _run([_cc(), *flags, "-c", str(source), "-o", str(obj)], log)

    with ThreadPoolExecutor(max_workers=_jobs()) as pool:
        for future in [pool.submit(one, j) for j in jobs]:
            future.result()


@dataclass
class _Library:
    include: list[Path]
    objects: list[Path]
    flags: list[str]
    version: str


def _objects(sources: list[Path], flags: list[str], out: Path, log: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(s, flags, out / f"{i:03d}_{s.stem}.o") for i, s in enumerate(sources)]
    _compile_all(jobs, log)
    return [j[2] for j in jobs]


PIC = ["-fPIC", "-fvisibility=hidden"]


def _zlib(top: Path, work: Path, log: Path) -> _Library:
    names = ["adler32", "compress", "crc32", "deflate", "gzclose", "gzlib", "gzread", "gzwrite",
             "infback", "inffast", "inflate", "inftrees", "trees", "uncompr", "zutil"]
    flags = ["-O3", *PIC, "-D_LARGEFILE64_SOURCE=1", "-DHAVE_UNISTD_H", "-DHAVE_STDARG_H"]
    objs = _objects([top / f"{n}.c" for n in names], flags + ["-I", str(top)], work, log)
    return _Library([top], objs, flags, _define(top / "zlib.h", "ZLIB_VERSION"))


def _zlib_cloudflare(top: Path, work: Path, log: Path) -> _Library:
    zdir = top / "src" / "builtins" / "zlib"
    names = ["adler32_cf", "compress", "crc32_cf", "deflate_cf", "gzclose", "gzlib", "gzread",
             "gzwrite", "inflate", "infback", "inftrees", "inffast", "trees_cf", "uncompr", "zutil"]
    # ROOT's builtins/zlib/CMakeLists.txt on x86_64 Linux: -O3 -mpclmul (+ its SSE4.2 check).
    flags = ["-O3", *PIC, "-mpclmul", "-msse4.2", "-Wno-attribute-alias",
             "-Wno-unused-function"]
    objs = _objects([zdir / f"{n}.c" for n in names], flags + ["-I", str(zdir)], work, log)
    return _Library([zdir], objs, flags, _define(zdir / "zlib.h", "ZLIB_VERSION") + "-cloudflare")


def _zlib_ng(top: Path, work: Path, log: Path, compat: bool) -> _Library:
    src = top / "src" / "zlib_ng" / "zlib-ng"
    build = work / "cmake"
    _run(["cmake", "-S", str(src), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
          f"-DZLIB_COMPAT={'ON' if compat else 'OFF'}", "-DBUILD_SHARED_LIBS=OFF",
          "-DZLIB_ENABLE_TESTS=OFF", "-DZLIBNG_ENABLE_TESTS=OFF", "-DWITH_GTEST=OFF",
          "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-DCMAKE_C_VISIBILITY_PRESET=hidden"], log)
    _run(["cmake", "--build", str(build), "-j", str(_jobs())], log)
    archive = build / ("libz.a" if compat else "libz-ng.a")
    if not archive.is_file():
        raise BuildError(f"zlib-ng's build left no {archive.name}")
    header = build / ("zlib.h" if compat else "zlib-ng.h")
    return _Library([build, src], [archive], ["cmake Release", f"ZLIB_COMPAT={compat}"],
                    _define(header, "ZLIBNG_VERSION"))


def _libdeflate(top: Path, work: Path, log: Path) -> _Library:
    ldir = top / "libdeflate"
    lib = ldir / "lib"
    sources = sorted(lib.glob("*.c")) + [lib / "x86" / "cpu_features.c"]
    flags = ["-O2", *PIC, "-I", str(ldir)]
    objs = _objects(sources, flags, work, log)
    return _Library([ldir], objs, flags, _define(ldir / "libdeflate.h",
                                                 "LIBDEFLATE_VERSION_STRING"))


def _zstd(top: Path, work: Path, log: Path) -> _Library:
    lib = top / "lib"
    sources = sorted((lib / "common").glob("*.c")) + sorted((lib / "compress").glob("*.c")) + \
        sorted((lib / "decompress").glob("*.c")) + sorted((lib / "decompress").glob("*.S"))
    flags = ["-O3", *PIC, "-DXXH_NAMESPACE=ZSTD_", "-DZSTD_MULTITHREAD=0", "-I", str(lib),
             "-I", str(lib / "common")]
    objs = _objects(sources, flags, work, log)
    return _Library([lib], objs, flags, _zstd_version(lib / "zstd.h"))


def _lz4(top: Path, work: Path, log: Path) -> _Library:
    lib = top / "lib"
    flags = ["-O3", *PIC, "-DXXH_NAMESPACE=ARENA_", "-I", str(lib)]
    objs = _objects([lib / "lz4.c", lib / "lz4hc.c", lib / "xxhash.c"], flags, work, log)
    return _Library([lib], objs, flags, _lz4_version(lib / "lz4.h"))


def _define(header: Path, name: str) -> str:
    for line in header.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[0] == "#define" and parts[1] == name:
            return parts[2].strip('"')
    raise BuildError(f"{header.name} defines no {name}")


def _zstd_version(header: Path) -> str:
    return ".".join(_define(header, f"ZSTD_VERSION_{p}") for p in ("MAJOR", "MINOR", "RELEASE"))


def _lz4_version(header: Path) -> str:
    return ".".join(_define(header, f"LZ4_VERSION_{p}") for p in ("MAJOR", "MINOR", "RELEASE"))


_RECIPES: dict[str, Callable[[Path, Path, Path], _Library]] = {
    "zlib": _zlib,
    "zlib-cloudflare": _zlib_cloudflare,
    "zlib-ng": lambda top, work, log: _zlib_ng(top, work, log, compat=False),
    "zlib-ng-compat": lambda top, work, log: _zlib_ng(top, work, log, compat=True),
    "libdeflate": _libdeflate,
    "zstd": _zstd,
    "lz4": _lz4,
}


def _key(candidate: Candidate, archive: Archive) -> str:
    digest = hashlib.sha256()
    for part in (BUILD_FORMAT, candidate.recipe, " ".join(candidate.defines), archive.sha256,
                 LAYER_SOURCE.read_text(), compiler_version()):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()[:12]


def _library(candidate: Candidate, archive: Archive, cache: Path, say: Say) -> _Library:
    """The candidate's library compiled from its archive, shared by the candidates built from
    the same recipe and archive (zstd, zstd-ldm and zstd-ctx compile zstd once)."""
    digest = hashlib.sha256()
    for part in (BUILD_FORMAT, candidate.recipe, archive.sha256, compiler_version()):
        digest.update(part.encode() + b"\0")
    entry = cache / "libs" / f"{candidate.recipe}-{archive.sha256[:12]}-{digest.hexdigest()[:12]}"
    record = entry / "library.json"
    entry.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(entry.parent / f"{entry.name}.lock"):
        if record.is_file():
            data = json.loads(record.read_text())
            return _Library([entry / p for p in data["include"]],
                            [entry / p for p in data["objects"]], data["flags"], data["version"])
        say(f"compiling {candidate.recipe} from {candidate.source.label}")
        shutil.rmtree(entry, ignore_errors=True)
        staging = Path(tempfile.mkdtemp(prefix=f"{entry.name}.", dir=entry.parent))
        try:
            top = _extract(archive, staging / "src", _ONLY.get(candidate.recipe))
            library = _RECIPES[candidate.recipe](top, staging / "lib", staging / "build.log")
            relative = {
                "include": [str(p.relative_to(staging)) for p in library.include],
                "objects": [str(p.relative_to(staging)) for p in library.objects],
                "flags": library.flags, "version": library.version,
            }
            (staging / "library.json").write_text(json.dumps(relative, indent=2))
            staging.rename(entry)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
    return _Library([entry / p for p in relative["include"]],
                    [entry / p for p in relative["objects"]], library.flags, library.version)


def build_layer(candidate: Candidate, cache: Path, say: Say = lambda _m: None) -> BuiltLayer:
    """The candidate's layer.so (built once; later calls read the cache)."""
    archive = obtain(candidate.source, cache, say)
    entry = cache / "layers" / f"{candidate.name}-{archive.sha256[:12]}-{_key(candidate, archive)}"
    record_path = entry / "build.json"
    entry.parent.mkdir(parents=True, exist_ok=True)
    with file_lock(entry.parent / f"{entry.name}.lock"):
        if record_path.is_file() and (entry / "layer.so").is_file():
            return BuiltLayer(candidate, entry / "layer.so", json.loads(record_path.read_text()))
        library = _library(candidate, archive, cache, say)
        say(f"building candidate {candidate.name}")
        staging = Path(tempfile.mkdtemp(prefix=f"{entry.name}.", dir=entry.parent))
        try:
            log = staging / "build.log"
            flags = ["-O2", "-fPIC", "-fvisibility=hidden",
                     *(f"-D{d}" for d in candidate.defines)]
            includes: list[str] = []
            for inc in library.include:
                includes += ["-I", str(inc)]
            obj = staging / "candidate_layer.o"
            _run([_cc(), *flags, *includes, "-c", str(LAYER_SOURCE), "-o", str(obj)], log)
            layer = staging / "layer.so"
            # The library's symbols stay inside the layer (--exclude-libs, hidden visibility):
            # only the RZip.h entry points and arena_candidate_version are exported.
            _run([_cc(), "-shared", "-o", str(layer), str(obj), *map(str, library.objects),
                  "-Wl,--exclude-libs,ALL", "-Wl,-z,defs", "-lc"], log)
            record: dict[str, object] = {
                "candidate": candidate.name,
                "family": candidate.family,
                "version": library.version,
                "source": candidate.source.label,
                "archive": archive.path.name,
                "sha256": archive.sha256,
                "library_flags": library.flags,
                "layer_flags": flags,
                "compiler": compiler_version(),
            }
            (staging / "build.json").write_text(json.dumps(record, indent=2))
            shutil.rmtree(entry, ignore_errors=True)
            entry.mkdir()
            for name in ("layer.so", "build.json", "build.log"):
                shutil.move(str(staging / name), entry / name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    return BuiltLayer(candidate, entry / "layer.so", record)
