"""Codec sets: which zstd / lz4 / xz (liblzma) a build links, chosen per suite or trigger.

- `host`: the machine's installed libraries, as a default ROOT source build links them
  (nothing is built; the versions rzbench reports at run time are recorded);
- `builtin`: the versions the commit's own tree pins for ROOT's builtins: each
  builtins/<dir>/CMakeLists.txt names `ROOT_<NAME>_VERSION` and `ROOT_<NAME>_HASH` (the
  sha256 of the source archive), the form of ROOT's builtins/lzma/CMakeLists.txt;
- a named set (codecsets/*.toml, plus BASKETBENCH_CODECSETS_DIR), e.g. the versions a
  ROOT binary release carries.

Pinned libraries are built from source (codecbuild.py); a version that cannot be obtained
fails the run with the reason, never falls back to another version.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from basketbench_workers.procs import StageFailed

PACKAGED_SETS = Path(__file__).parent / "codecsets"
LIBRARIES = ("zstd", "lz4", "lzma")
# builtins/<dir>/CMakeLists.txt and the NAME in ROOT_<NAME>_VERSION / ROOT_<NAME>_HASH.
BUILTIN_DIRS = {"zstd": ("zstd", "ZSTD"), "lz4": ("lz4", "LZ4"), "lzma": ("lzma", "LZMA")}
_VERSION = re.compile(r"^\d+(\.\d+){1,3}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


class CodecSetError(StageFailed):
    """A codec set is unknown or malformed, or a tree's pins cannot be read."""


@dataclass(frozen=True)
class Pin:
    library: str  # zstd | lz4 | lzma
    version: str  # upstream version, e.g. 1.5.7
    sha256: str | None = None  # of the source archive, when the set pins one


@dataclass(frozen=True)
class CodecSet:
    name: str
    kind: Literal["host", "builtin", "named"]
    pins: tuple[Pin, ...] = ()
    root_version: str | None = None
    description: str = ""

    def signature(self) -> list[str]:
        """What the build cache key needs to know about the set."""
        parts = [f"codecs={self.name}|{self.kind}"]
        parts += [f"codec {p.library}={p.version}|{p.sha256 or '-'}" for p in self.pins]
        return parts


def _check_version(value: object, where: str) -> str:
    if not isinstance(value, str) or not _VERSION.match(value):
        raise CodecSetError(f"{where}: version must look like 1.5.7, not {value!r}")
    return value


def load_named_sets(extra_dir: Path | None = None) -> dict[str, CodecSet]:
    sets: dict[str, CodecSet] = {}
    for directory in [PACKAGED_SETS] + ([extra_dir] if extra_dir else []):
        for path in sorted(directory.glob("*.toml")):
            try:
                raw = tomllib.loads(path.read_text())
            except (OSError, tomllib.TOMLDecodeError) as exc:
                raise CodecSetError(f"{path}: {exc}") from exc
            name = raw.get("name")
            if not isinstance(name, str) or name in ("host", "builtin") or not name:
                raise CodecSetError(f"{path}: 'name' must be a string other than host/builtin")
            pins = tuple(
                Pin(lib, _check_version(raw[lib], f"{path}: {lib}"))
                for lib in LIBRARIES
                if lib in raw
            )
            if not pins:
                raise CodecSetError(f"{path}: names no library version ({', '.join(LIBRARIES)})")
            root_version = raw.get("root_version")
            sets[name] = CodecSet(
                name, "named", pins, str(root_version) if root_version else None,
                str(raw.get("description", "")),
            )
    return sets


def choose_codec_set(requested: str, extra_dir: Path | None = None) -> CodecSet:
    """The set named by a trigger, suite or the worker's default; builtin pins come later."""
    if requested == "host":
        return CodecSet("host", "host", description="the machine's installed libraries")
    if requested == "builtin":
        return CodecSet("builtin", "builtin", description="the versions the commit pins")
    sets = load_named_sets(extra_dir)
    if requested not in sets:
        raise CodecSetError(
            f"unknown codec set {requested!r}; known: host, builtin, {', '.join(sorted(sets))}"
        )
    return sets[requested]


def builtin_pins(read_file: Callable[[str], str | None]) -> tuple[Pin, ...]:
    """The versions and archive checksums a tree pins in builtins/<lib>/CMakeLists.txt.

    `read_file(path)` returns the file's text at the commit, or None when it is absent.
    A tree without a pin for a library cannot be measured with `builtin`: that fails.
    """
    pins = []
    for library in LIBRARIES:
        directory, name = BUILTIN_DIRS[library]
        path = f"builtins/{directory}/CMakeLists.txt"
        text = read_file(path)
        if text is None:
            raise CodecSetError(f"codec set builtin: this tree has no {path}")
        version = _cmake_set(text, f"ROOT_{name}_VERSION")
        sha = _cmake_set(text, f"ROOT_{name}_HASH")
        if version is None or sha is None:
            raise CodecSetError(
                f"codec set builtin: {path} pins no source archive "
                f"(no set(ROOT_{name}_VERSION ...) and set(ROOT_{name}_HASH ...))"
            )
        _check_version(version, path)
        if not _SHA256.match(sha.lower()):
            raise CodecSetError(f"{path}: ROOT_{name}_HASH is not a sha256: {sha!r}")
        pins.append(Pin(library, version, sha.lower()))
    return tuple(pins)


def _cmake_set(text: str, variable: str) -> str | None:
    match = re.search(
        rf"^\s*set\(\s*{variable}\s+\"?([^\s\")]+)\"?\s*\)", text, flags=re.MULTILINE
    )
    return match.group(1) if match else None


def with_pins(codec_set: CodecSet, pins: tuple[Pin, ...]) -> CodecSet:
    return CodecSet(codec_set.name, codec_set.kind, pins, codec_set.root_version,
                    codec_set.description)
