"""Compile a tree's compression layer into <prefix>/include + <prefix>/lib/libRootZip.a.

What to compile comes from the build profile; this module only knows how to run
a compiler over source groups and archive the objects.
"""

from __future__ import annotations

import fnmatch
import json
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from basketbench_workers.build.codecs import BuiltCodec
from basketbench_workers.build.profiles import Profile, SourceGroup
from basketbench_workers.build.toolchain import Toolchain
from basketbench_workers.procs import Deadline, StageFailed, run_logged
from basketbench_workers.sandbox import Sandbox

LIBRARY_NAME = "libRootZip.a"


def _expand(tree: Path, group: SourceGroup) -> list[Path]:
    files: set[Path] = set()
    for pattern in group.sources:
        files.update(p for p in tree.glob(pattern) if p.is_file())
    rel = sorted(f.relative_to(tree).as_posix() for f in files)
    kept = [r for r in rel if not any(fnmatch.fnmatch(r, ex) for ex in group.exclude)]
    return [tree / r for r in kept]


def install_headers(profile: Profile, tree: Path, include: Path, context: dict[str, str]) -> None:
    include.mkdir(parents=True, exist_ok=True)
    for rule in profile.headers:
        matches = [p for p in tree.glob(rule.source) if p.is_file()]
        if not matches and not rule.optional:
            raise StageFailed(f"profile {profile.name}: no header matches {rule.source}")
        target_dir = include / rule.dest
        target_dir.mkdir(parents=True, exist_ok=True)
        for header in matches:
            shutil.copy2(header, target_dir / header.name)
    for name, text in profile.generated.items():
        target = include / name
        target.parent.mkdir(parents=True, exist_ok=True)
        for key, value in context.items():
            text = text.replace(f"@{key}@", value)
        target.write_text(text)


def build_library(
    profile: Profile,
    tree: Path,
    prefix: Path,
    work: Path,
    toolchain: Toolchain,
    log: Path,
    deadline: Deadline,
    jobs: int,
    context: dict[str, str],
    sandbox: Sandbox,
    codecs: tuple[BuiltCodec, ...] = (),
) -> Path:
    """Build the library; returns the archive path. StageFailed (with log tail) on any error.

    With pinned `codecs`, ROOT's files compile against their headers and their objects go
    into the same archive, so rzbench links those versions, not the host's libraries.

    The compilers run sandboxed: a commit's source may `#include` any file it names, and a
    compile error prints what it read into the run's log.
    """
    include = prefix / "include"
    lib = prefix / "lib"
    # Generated stand-ins live in their own dir so they come first on the include path.
    generated_only = work / "generated"
    for d in (include, lib, generated_only):
        shutil.rmtree(d, ignore_errors=True)
    install_headers(profile, tree, include, context)
    install_headers(Profile(**{**profile.__dict__, "headers": ()}), tree, generated_only, context)
    # ROOT/RConfig.hxx includes "../RVersion.h": an (empty) ROOT/ dir on the include path
    # makes that resolve to the generated RVersion.h when the tree has none of its own.
    (generated_only / "ROOT").mkdir(exist_ok=True)

    jobs_list: list[list[str]] = []
    objects: list[Path] = []
    for group in profile.groups:
        sources = _expand(tree, group)
        if not sources:
            raise StageFailed(f"profile {profile.name}: group {group.name} matches no source file")
        for src in sources:
            rel = src.relative_to(tree).as_posix()
            obj = work / "obj" / group.name / (rel.replace("/", "__") + ".o")
            obj.parent.mkdir(parents=True, exist_ok=True)
            cmd = [toolchain.compiler_for(group.language), *group.flags]
            cmd += [f"-D{d}" for d in group.defines]
            cmd += [f"-I{generated_only}", f"-I{generated_only / 'ROOT'}"]
            cmd += [f"-I{codec.prefix / 'include'}" for codec in codecs]
            cmd += [f"-I{tree / d}" for d in group.include_dirs]
            cmd += ["-c", str(src), "-o", str(obj)]
            jobs_list.append(cmd)
            objects.append(obj)

    logs = [work / "logs" / f"cc-{i}.log" for i in range(len(jobs_list))]
    readable = [tree, generated_only, *(codec.prefix / "include" for codec in codecs)]
    writable = [work / "obj"]
    with log.open("a") as fh:
        fh.write(sandbox.describe(sandbox.limits(deadline.seconds)))

    def compile_one(i: int) -> None:
        sandbox.run_logged(jobs_list[i], logs[i], deadline, work / "obj", readable, writable)

    errors: list[StageFailed] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for future in [pool.submit(compile_one, i) for i in range(len(jobs_list))]:
            try:
                future.result()
            except StageFailed as exc:
                errors.append(exc)
    with log.open("a") as fh:  # one readable log, in source order
        for path in logs:
            if path.exists():
                fh.write(path.read_text(errors="replace"))
    if errors:
        raise StageFailed(
            f"compiling the compression layer failed: {errors[0]}", errors[0].log_tail
        )

    for codec in codecs:
        objects += _codec_objects(codec, work / f"codec-{codec.library}", log, deadline)
    archive = lib / LIBRARY_NAME
    lib.mkdir(parents=True, exist_ok=True)
    run_logged(["ar", "rcs", archive, *objects], log, deadline)
    (prefix / "rootzip.json").write_text(
        json.dumps(
            {
                "profile": profile.name,
                "profile_version": profile.version,
                "zlib": profile.zlib,
                "link_libraries": list(profile.link_libraries),
                "objects": len(objects),
                "codecs": [codec.record for codec in codecs],
            },
            indent=2,
        )
    )
    return archive


def _codec_objects(codec: BuiltCodec, into: Path, log: Path, deadline: Deadline) -> list[Path]:
    """The members of a built codec archive, renamed so no two libraries' objects collide."""
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    run_logged(["ar", "x", codec.archive], log, deadline, cwd=into)
    objects = []
    for member in sorted(into.iterdir()):
        renamed = into / f"{codec.library}-{codec.version}__{member.name}"
        member.rename(renamed)
        objects.append(renamed)
    if not objects:
        raise StageFailed(f"{codec.archive} holds no object")
    return objects
