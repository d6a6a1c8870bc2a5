"""Builds of (compression layer + rzbench) cached by their inputs' key.

One cache entry per key: <root>/<key>/{prefix/, bin/rzbench, inputs.txt, COMPLETE}.
COMPLETE is written last, so an entry left by a killed worker is rebuilt, and a
file lock keeps two workers sharing a directory from building the same key at once.

rzbench itself is built incrementally in one build tree per harness version
(<root>/harness-<hash>/): its prefix is a stable path the new compression layer is
copied into, so a new key recompiles only the harness files that include RZip.h and
relinks, instead of building the whole harness again.
"""

from __future__ import annotations

import logging
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure.locks import file_lock

from basketbench_workers.build.cachekey import BuildInputs
from basketbench_workers.build.codecs import BuiltCodec
from basketbench_workers.build.layer import complete_layer, host_libraries, link_layer
from basketbench_workers.build.profiles import Profile
from basketbench_workers.build.rootbuild import build_library
from basketbench_workers.build.toolchain import Toolchain
from basketbench_workers.procs import Deadline, StageFailed, run_logged
from basketbench_workers.sandbox import Sandbox

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class BuildResult:
    key: str
    rzbench: Path
    prefix: Path | None
    cache_hit: bool
    seconds: float
    # <entry>/layer/libbbzip.so (build/layer.py): what `rzbench ab` loads; None for builds
    # without a compression library of their own (rootcompat, releases) or a failed link
    layer: Path | None = None

    @property
    def entry(self) -> Path | None:
        """The cache entry directory (the A/B harness's BUILD argument), when it has a layer."""
        return self.layer.parent.parent if self.layer is not None else None


def _sync(source: Path, target: Path) -> None:
    """Make `target` a copy of `source`, touching only files whose bytes differ, so make
    recompiles only what includes a changed header and otherwise just relinks."""
    wanted = {p.relative_to(source) for p in source.rglob("*") if p.is_file()}
    if target.exists():
        for path in sorted(target.rglob("*"), reverse=True):
            rel = path.relative_to(target)
            if path.is_file() and rel not in wanted:
                path.unlink()
    for rel in sorted(wanted):
        src, dst = source / rel, target / rel
        if dst.is_file() and dst.read_bytes() == src.read_bytes():
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)  # new mtime: dependents rebuild


def _find_rzbench(build_dir: Path) -> Path:
    direct = build_dir / "rzbench"
    if direct.is_file():
        return direct
    found = sorted(p for p in build_dir.rglob("rzbench") if p.is_file())
    if not found:
        raise StageFailed("the harness build produced no rzbench binary")
    return found[0]


def build_rzbench(
    harness_source: Path,
    build_dir: Path,
    prefix: Path | None,
    log_path: Path,
    deadline: Deadline,
    jobs: int,
    sandbox: Sandbox | None = None,
) -> Path:
    """Configure (first time) and build rzbench in `build_dir`; returns the binary.

    With a `prefix` (a commit's compression layer: its headers are compiled into the harness,
    its objects linked), cmake and the compilers run in `sandbox`."""
    if not (harness_source / "CMakeLists.txt").is_file():
        raise StageFailed("no harness sources (CMakeLists.txt missing)")
    backend = ["-DRZBENCH_BACKEND=rootcompat"]
    if prefix is not None:
        backend = ["-DRZBENCH_BACKEND=root", f"-DROOT_ZIP_PREFIX={prefix}"]

    def run(cmd: list[str | Path]) -> None:
        if sandbox is None or prefix is None:
            run_logged(cmd, log_path, deadline)
        else:
            sandbox.run_logged(cmd, log_path, deadline, build_dir,
                               readable=[harness_source, prefix], writable=[build_dir])

    run(
        [
            "cmake",
            "-S",
            harness_source,
            "-B",
            build_dir,
            "-DCMAKE_BUILD_TYPE=Release",
            "-DRZBENCH_TESTS=OFF",
            *backend,
        ]
    )
    run(["cmake", "--build", build_dir, "--target", "rzbench", "-j", str(jobs)])
    if sandbox is not None and prefix is not None:
        sandbox.reclaim(build_dir)
    return _find_rzbench(build_dir)


class BuildCache:
    def __init__(self, root: Path, harness_source: Path, toolchain: Toolchain, jobs: int,
                 sandbox: Sandbox) -> None:
        self.root = root
        self.harness_source = harness_source
        self.toolchain = toolchain
        self.jobs = jobs
        self.sandbox = sandbox

    def entry(self, key: str) -> Path:
        return self.root / key

    def lookup(self, key: str) -> Path | None:
        entry = self.entry(key)
        if (entry / "COMPLETE").is_file():
            return Path((entry / "COMPLETE").read_text().strip())
        return None

    def get_or_build(
        self,
        profile: Profile,
        inputs: BuildInputs,
        export_tree: object,
        log_path: Path,
        deadline: Deadline,
        context: dict[str, str],
        codecs: object = None,
    ) -> BuildResult:
        """The cached build for `inputs`, building it if needed.

        `codecs() -> tuple[BuiltCodec, ...]` builds or fetches the pinned codec libraries; it
        is only called on a cache miss, so a hit needs neither apt nor the codec cache.

        `export_tree(dest: Path)` writes the commit's profile directories into dest;
        it is only called on a cache miss.
        """
        start = time.monotonic()
        key = inputs.key()
        entry = self.entry(key)
        with file_lock(self.root / f"{key}.lock"):
            binary = self.lookup(key)
            if binary is not None and binary.is_file():
                seconds = time.monotonic() - start
                with log_path.open("a") as fh:
                    fh.write(f"build cache hit: key {key[:16]} ({profile.name}), {seconds:.3f} s\n")
                layer = self._layer(entry, profile, binary, log_path, deadline, context)
                return BuildResult(key, binary, self._prefix(entry, profile), True, seconds, layer)

            shutil.rmtree(entry, ignore_errors=True)
            entry.mkdir(parents=True)
            (entry / "inputs.txt").write_text("\n".join(inputs.lines()) + "\n")
            with log_path.open("a") as fh:
                fh.write(f"build cache miss: key {key[:16]} ({profile.name}); building\n")
            prefix = self._prefix(entry, profile)
            if prefix is not None:
                tree = entry / "src"
                export_tree(tree)  # type: ignore[operator]
                built: tuple[BuiltCodec, ...] = codecs() if codecs else ()  # type: ignore[operator]
                build_library(
                    profile,
                    tree,
                    prefix,
                    entry / "work",
                    self.toolchain,
                    log_path,
                    deadline,
                    self.jobs,
                    context,
                    self.sandbox,
                    built,
                )
                self.sandbox.reclaim(entry)
                shutil.rmtree(tree, ignore_errors=True)
                shutil.rmtree(entry / "work", ignore_errors=True)
            binary = self._harness(inputs.harness_hash, prefix, log_path, deadline)
            (entry / "bin").mkdir()
            shutil.copy2(binary, entry / "bin" / "rzbench")
            binary = entry / "bin" / "rzbench"
            layer = self._layer(entry, profile, binary, log_path, deadline, context)
            (entry / "COMPLETE").write_text(str(binary))
            seconds = time.monotonic() - start
            with log_path.open("a") as fh:
                fh.write(f"built key {key[:16]} in {seconds:.1f} s\n")
            return BuildResult(key, binary, prefix, False, seconds, layer)

    def cached_layer(self, key: str, profile: Profile, log_path: Path, deadline: Deadline,
                     commit: str) -> Path | None:
        """The layer of a complete cached build of `key` (linked now for an older entry),
        None when this machine has no such build: never builds one."""
        entry = self.entry(key)
        with file_lock(self.root / f"{key}.lock"):
            binary = self.lookup(key)
            if binary is None or not binary.is_file():
                return None
            return self._layer(entry, profile, binary, log_path, deadline,
                               {"ROOT_COMMIT": commit})

    def adopt(self, profile: Profile, inputs: BuildInputs, binary: Path,
              log_path: Path) -> BuildResult | None:
        """Take an rzbench built elsewhere (`make harness-build`) as the cached build for
        `inputs`, when the cache has none: the caller vouches that it was built from the
        same sources. Never replaces an existing entry."""
        if profile.kind != "rootcompat":
            return None  # a ROOT profile's binary needs the commit's own codec library
        key = inputs.key()
        entry = self.entry(key)
        with file_lock(self.root / f"{key}.lock"):
            if self.lookup(key) is not None:
                return None
            shutil.rmtree(entry, ignore_errors=True)
            (entry / "bin").mkdir(parents=True)
            (entry / "inputs.txt").write_text("\n".join(inputs.lines()) + "\n")
            shutil.copy2(binary, entry / "bin" / "rzbench")
            (entry / "COMPLETE").write_text(str(entry / "bin" / "rzbench"))
            with log_path.open("a") as fh:
                fh.write(f"build cache: adopted {binary} as key {key[:16]} ({profile.name})\n")
            return BuildResult(key, entry / "bin" / "rzbench", None, True, 0.0)

    def _harness(
        self, harness_hash: str, prefix: Path | None, log_path: Path, deadline: Deadline
    ) -> Path:
        flavour = "root" if prefix is not None else "rootcompat"
        name = f"harness-{harness_hash[:16]}-{flavour}"
        with file_lock(self.root / f"{name}.lock"):
            stable_prefix = None
            build_dir = self.root / name / "build"
            if prefix is not None:
                stable_prefix = self.root / name / "prefix"
                _sync(prefix, stable_prefix)
                if self.sandbox.enabled:
                    # Configured with the paths the sandbox shows (its own build tree).
                    build_dir = self.root / name / "sandboxed-build"
            return build_rzbench(
                self.harness_source,
                build_dir,
                stable_prefix,
                log_path,
                deadline,
                self.jobs,
                self.sandbox,
            )

    def _layer(self, entry: Path, profile: Profile, rzbench: Path, log_path: Path,
               deadline: Deadline, context: dict[str, str]) -> Path | None:
        """The entry's loadable layer, linked now if it has none yet (entries cached before
        layers existed keep their archive, so this takes a link, not a rebuild). A failed
        link is logged and leaves the build without a layer: the run is still measured,
        only its A/B stage is skipped."""
        if self._prefix(entry, profile) is None:
            return None
        found = complete_layer(entry)
        if found is not None:
            return found
        try:
            return link_layer(entry, profile, self.toolchain, log_path, deadline,
                              context.get("ROOT_COMMIT", ""),
                              host_libraries(rzbench, self.sandbox))
        except StageFailed as exc:
            with log_path.open("a") as fh:
                fh.write(f"layer: not linked ({exc}); the A/B stage will have no layer for "
                         "this build\n")
            return None

    @staticmethod
    def _prefix(entry: Path, profile: Profile) -> Path | None:
        return entry / "prefix" if profile.kind == "root" else None
