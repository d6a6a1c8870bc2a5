"""Build pinned codec libraries from their source archives, cached by version and archive.

<cache>/<library>-<version>-<sha256[:12]>/{include/, lib/lib<x>.a, build.json, COMPLETE}.
Every library is compiled directly from its sources, without its own build system: zstd
(common + compress + decompress + dictBuilder, -O3, its xxhash namespaced ZSTD_), lz4
(lz4.c + lz4hc.c, -O3) and liblzma (xz's src/liblzma, -O2, with the config.h xz's configure
would write, see xzconfig.py; configure itself where that module has no answer). All sources of
every library a set still needs go through one pool of BASKETBENCH_BUILD_JOBS compilers,
largest first, so a 2-core machine stays busy until the last object. The archives' objects
are later merged into libRootZip.a, so rzbench links exactly these versions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tarfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from basketbench.measure.locks import file_lock

from basketbench_workers.build import xzconfig
from basketbench_workers.build.codecsets import CodecSet, Pin
from basketbench_workers.build.codecsource import SourceArchive, obtain_source
from basketbench_workers.build.toolchain import Toolchain
from basketbench_workers.procs import Deadline, StageFailed, run_logged

# Per library: a new way of building one library rebuilds only that library's entries.
BUILD_FORMAT = {"zstd": "1", "lz4": "1", "lzma": "2"}
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


@dataclass(frozen=True)
class CompileJob:
    source: Path
    flags: tuple[str, ...]
    obj: Path
    log: Path


@dataclass
class _Plan:
    """One library still to build: its compile jobs and how to install the result."""

    pin: Pin
    source: SourceArchive
    entry: Path
    jobs: list[CompileJob] = field(default_factory=list)
    install_headers: Callable[[Path], None] = lambda _include: None
    flags: list[str] = field(default_factory=list)  # recorded, not replayed
    fallback: Callable[[int], None] | None = None  # a build system to run instead (jobs)


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
    """Every pinned library of the set, built (or taken from the cache)."""
    compiler = toolchain.cc_version
    built: dict[str, BuiltCodec] = {}
    missing = []
    for pin in codec_set.pins:
        hit = None
        if pin.sha256 is not None:  # fast path: no apt, no archive, when it was built before
            hit = _complete(_entry_for(pin, pin.sha256, cache), compiler)
        if hit is not None:
            built[pin.library] = hit
        else:
            missing.append(pin)
    if missing:
        sources = _obtain_all(missing, cache, log, deadline)
        with ExitStack() as locks:
            plans = []
            # Locks in name order: two workers building overlapping sets cannot deadlock.
            for pin, source in sorted(zip(missing, sources, strict=True),
                                      key=lambda ps: _entry_for(ps[0], ps[1].sha256, cache)):
                entry = _entry_for(pin, source.sha256, cache)
                locks.enter_context(file_lock(cache / f"{entry.name}.lock"))
                hit = _complete(entry, compiler)
                if hit is not None:
                    built[pin.library] = hit
                else:
                    plans.append(_plan(pin, source, entry, toolchain, log, deadline))
            for codec in _build_plans(plans, toolchain, log, deadline, jobs):
                built[codec.library] = codec
    return [built[pin.library] for pin in codec_set.pins]


def _obtain_all(pins: list[Pin], cache: Path, log: Path, deadline: Deadline
                ) -> list[SourceArchive]:
    """The verified source archives, asked of apt side by side (each answer takes seconds)."""
    with ThreadPoolExecutor(max_workers=len(pins)) as pool:
        futures = [pool.submit(obtain_source, pin, cache, _own_log(log, pin), deadline)
                   for pin in pins]
        try:
            return [future.result() for future in futures]
        finally:
            _merge_logs(log, [_own_log(log, pin) for pin in pins])


def _own_log(log: Path, pin: Pin) -> Path:
    return log.with_name(f"{log.name}.{pin.library}")


def _merge_logs(log: Path, parts: list[Path]) -> None:
    with log.open("a") as fh:  # one readable log, part by part
        for part in parts:
            if part.exists():
                fh.write(part.read_text(errors="replace"))
                part.unlink()


def _entry_for(pin: Pin, sha256: str, cache: Path) -> Path:
    return cache / f"{pin.library}-{pin.version}-{sha256[:12]}"


def _complete(entry: Path, compiler: str) -> BuiltCodec | None:
    try:
        record = json.loads((entry / "COMPLETE").read_text())
    except (OSError, ValueError):
        return None
    library = str(record.get("library"))
    if record.get("format") != BUILD_FORMAT.get(library) or record.get("compiler") != compiler:
        return None
    built = BuiltCodec(str(record["library"]), str(record["version"]), entry, record)
    return built if built.archive.is_file() else None


def _plan(pin: Pin, source: SourceArchive, entry: Path, toolchain: Toolchain, log: Path,
          deadline: Deadline) -> _Plan:
    shutil.rmtree(entry, ignore_errors=True)
    work = entry / "work"
    work.mkdir(parents=True)
    with log.open("a") as fh:
        fh.write(f"building {pin.library} {pin.version} from {source.path.name}\n")
    tree = _unpack(source, work)
    plan = _Plan(pin, source, entry)
    planner = {"zstd": _plan_zstd, "lz4": _plan_lz4, "lzma": _plan_lzma}[pin.library]
    planner(plan, tree, work / "obj", toolchain, log, deadline)
    return plan


def _build_plans(plans: list[_Plan], toolchain: Toolchain, log: Path, deadline: Deadline,
                 jobs: int) -> list[BuiltCodec]:
    if not plans:
        return []
    start, cpu = time.monotonic(), _children_cpu()
    for plan in plans:
        if plan.fallback is not None:
            plan.fallback(jobs)
    _compile(
        [job for plan in plans if plan.fallback is None for job in plan.jobs],
        toolchain, log, deadline, jobs,
    )
    out = []
    for plan in plans:
        if plan.fallback is None:
            archive = plan.entry / "lib" / ARCHIVE_NAME[plan.pin.library]
            archive.parent.mkdir(parents=True, exist_ok=True)
            run_logged(["ar", "rcs", archive, *[job.obj for job in plan.jobs]], log, deadline)
        plan.install_headers(plan.entry / "include")
        built_version = _header_version(plan.pin.library, plan.entry / "include")
        if built_version != plan.pin.version:
            raise StageFailed(f"{plan.source.path.name} holds {plan.pin.library} "
                              f"{built_version}, not {plan.pin.version}")
    seconds, cpu_seconds = time.monotonic() - start, _children_cpu() - cpu
    for plan in plans:
        shutil.rmtree(plan.entry / "work", ignore_errors=True)
        record: dict[str, object] = {
            "format": BUILD_FORMAT[plan.pin.library],
            **plan.source.record(),
            "compiler": toolchain.cc_version,
            "flags": plan.flags,
            "sources": len(plan.jobs),
            # Built together with the set's other libraries: wall and CPU of the whole set.
            "seconds": round(seconds, 2),
            "set_cpu_seconds": round(cpu_seconds, 2),
            "built_with": sorted(f"{p.pin.library} {p.pin.version}" for p in plans),
        }
        (plan.entry / "build.json").write_text(json.dumps(record, indent=2))
        (plan.entry / "COMPLETE").write_text(json.dumps(record))
        out.append(BuiltCodec(plan.pin.library, plan.pin.version, plan.entry, record))
    with log.open("a") as fh:
        fh.write(f"built {', '.join(f'{p.pin.library} {p.pin.version}' for p in plans)} in "
                 f"{seconds:.1f} s ({cpu_seconds:.1f} s of compiler CPU, "
                 f"{sum(len(p.jobs) for p in plans)} sources, {jobs} jobs)\n")
    return out


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def _unpack(source: SourceArchive, work: Path) -> Path:
    with tarfile.open(source.path) as archive:
        archive.extractall(work / "src", filter="data")
    tops = [p for p in (work / "src").iterdir() if p.is_dir()]
    if len(tops) != 1:
        raise StageFailed(f"{source.path.name}: expected one top directory, found {len(tops)}")
    return tops[0]


def _compile(
    jobs_list: list[CompileJob], toolchain: Toolchain, log: Path, deadline: Deadline, jobs: int
) -> None:
    """Compile every job, the largest sources first (they bound the wall time)."""
    ordered = sorted(jobs_list, key=lambda j: j.source.stat().st_size, reverse=True)

    def one(job: CompileJob) -> None:
        job.obj.parent.mkdir(parents=True, exist_ok=True)
        run_logged([toolchain.cc, *job.flags, "-c", job.source, "-o", job.obj], job.log, deadline)

    errors: list[StageFailed] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for future in [pool.submit(one, job) for job in ordered]:
            try:
                future.result()
            except StageFailed as exc:
                errors.append(exc)
    _merge_logs(log, [job.log for job in jobs_list])
    if errors:
        raise StageFailed(f"compiling a codec library failed: {errors[0]}", errors[0].log_tail)


def _jobs(sources: list[Path], flags: list[str], objdir: Path, prefix: str) -> list[CompileJob]:
    return [
        CompileJob(src, tuple(flags), objdir / f"{prefix}-{i:03d}-{src.stem}.o",
                   objdir / f"{prefix}-{i:03d}.log")
        for i, src in enumerate(sources)
    ]


def _copy_headers(paths: list[Path]) -> Callable[[Path], None]:
    def install(include: Path) -> None:
        include.mkdir(parents=True, exist_ok=True)
        for path in paths:
            shutil.copy2(path, include / path.name)

    return install


def _plan_zstd(plan: _Plan, tree: Path, objdir: Path, _tc: Toolchain, _log: Path,
               _dl: Deadline) -> None:
    lib = tree / "lib"
    # dictBuilder too: rzbench trains ZSTD dictionaries (ZDICT_trainFromBuffer), and they must
    # come from the pinned version, not the host's libzstd. legacy/ and deprecated/ are not
    # compiled (ZSTD_LEGACY_SUPPORT=0: ROOT never wrote pre-1.0 frames).
    sources = sorted(
        p for sub in ("common", "compress", "decompress", "dictBuilder")
        for p in (lib / sub).glob("*.[cS]")
    )
    flags = ["-O3", "-fPIC", "-DXXH_NAMESPACE=ZSTD_", "-DZSTD_LEGACY_SUPPORT=0",
             f"-I{lib}", f"-I{lib / 'common'}"]
    plan.jobs = _jobs(sources, flags, objdir, "zstd")
    plan.install_headers = _copy_headers(
        [next(lib.rglob(name)) for name in ("zstd.h", "zstd_errors.h", "zdict.h")])
    plan.flags = flags[:4]


def _plan_lz4(plan: _Plan, tree: Path, objdir: Path, _tc: Toolchain, _log: Path,
              _dl: Deadline) -> None:
    lib = tree / "lib"
    # lz4.c + lz4hc.c: the block API ROOT uses. Not xxhash.c (ROOT links libxxhash for XXH64)
    # nor lz4frame.c, so no XXH symbol of lz4's can shadow the host's libxxhash.
    flags = ["-O3", "-fPIC", f"-I{lib}"]
    plan.jobs = _jobs([lib / "lz4.c", lib / "lz4hc.c"], flags, objdir, "lz4")
    plan.install_headers = _copy_headers([lib / "lz4.h", lib / "lz4hc.h"])
    plan.flags = flags[:2]


def _plan_lzma(plan: _Plan, tree: Path, objdir: Path, tc: Toolchain, log: Path,
               dl: Deadline) -> None:
    api = tree / "src" / "liblzma" / "api"

    def install(include: Path) -> None:
        include.mkdir(parents=True, exist_ok=True)
        shutil.copytree(api / "lzma", include / "lzma")
        shutil.copy2(api / "lzma.h", include / "lzma.h")

    plan.install_headers = install
    config = xzconfig.write_config_h(tree, objdir.parent / "config")
    if config is not None:
        sources = xzconfig.liblzma_sources(tree)
        flags = ["-O2", "-fPIC", "-DPIC", "-pthread", "-fvisibility=hidden", "-DHAVE_CONFIG_H",
                 "-DTUKLIB_SYMBOL_PREFIX=lzma_",
                 *[f"-I{d}" for d in xzconfig.include_dirs(tree, config)]]
        plan.jobs = _jobs(sources, flags, objdir, "lzma")
        plan.flags = ["-O2", "config.h written by basketbench (xzconfig.py), no configure"]
        return
    # A platform xzconfig.py does not describe: xz's own configure + make, as before.
    options = ["--disable-shared", "--enable-static", "--with-pic", "--disable-xz",
               "--disable-xzdec", "--disable-lzmadec", "--disable-lzmainfo",
               "--disable-lzma-links", "--disable-scripts", "--disable-doc", "--disable-nls"]

    def configure_and_make(jobs: int) -> None:
        run_logged(["./configure", "-q", *options, f"CC={tc.cc}", "CFLAGS=-O2"], log, dl,
                   cwd=tree)
        run_logged(["make", "-s", "-C", "src/liblzma", f"-j{max(1, jobs)}"], log, dl, cwd=tree)
        built = tree / "src" / "liblzma" / ".libs" / "liblzma.a"
        if not built.is_file():
            raise StageFailed(f"the liblzma build produced no {built.name}")
        (plan.entry / "lib").mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, plan.entry / "lib" / ARCHIVE_NAME["lzma"])

    plan.fallback = configure_and_make
    plan.flags = ["-O2", *options]


def _header_version(library: str, include: Path) -> str:
    """The version the built headers declare (a wrong archive must not pass as the pin)."""
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
