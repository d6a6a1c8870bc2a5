"""Build profiles: how to turn one source tree's compression code into <prefix>/{include,lib}.

A profile is a TOML data file (profiles/*.toml, plus BASKETBENCH_PROFILES_DIR). A new
ROOT layout, an older ROOT or a fork is a new file, never new code. Two kinds:
- "root": compile the tree's own compression sources into lib/libRootZip.a, install its
  RZip.h / Compression.h, write stand-ins for the headers a full ROOT build generates;
- "rootcompat": no library from the tree; rzbench is built with its own default backend
  (for repositories without ROOT's layout, e.g. basketbench itself in the demo);
- "root-release": the commit must be a ROOT release (tag v6-40-00): measured with that
  release's own libCore (basketbench_workers.build.releases), whatever the tree holds.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

PACKAGED_PROFILES = Path(__file__).parent / "profiles"


class ProfileError(Exception):
    """A profile file is malformed or a named profile does not exist."""


@dataclass(frozen=True)
class SourceGroup:
    """Sources compiled with the same compiler and flags (e.g. ROOT's C++ files, zlib's C files)."""

    name: str
    language: Literal["c", "c++"]
    sources: tuple[str, ...]  # globs relative to the tree root
    exclude: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()  # relative to the tree root; the generated dir comes first


@dataclass(frozen=True)
class HeaderInstall:
    """Copy headers matching `source` (glob in the tree) into include/<dest>."""

    source: str
    dest: str = ""
    optional: bool = False


@dataclass(frozen=True)
class Profile:
    name: str
    version: int
    kind: Literal["root", "rootcompat", "root-release"]
    description: str
    supports: str  # human-readable version range
    tree_paths: tuple[str, ...]  # directories/files whose git tree ids form the cache key
    detect_requires: tuple[str, ...] = ()
    detect_excludes: tuple[str, ...] = ()
    priority: int = 0
    groups: tuple[SourceGroup, ...] = ()
    headers: tuple[HeaderInstall, ...] = ()
    generated: dict[str, str] = field(default_factory=dict)  # include/<name> -> text
    link_libraries: tuple[str, ...] = ()
    # "bundled": ROOT's own vanilla copy in builtins/zlib, compiled in (6.10 - 6.17)
    zlib: Literal["cloudflare", "bundled", "system", "none"] = "none"
    path: Path | None = None

    @property
    def auto_detectable(self) -> bool:
        return bool(self.detect_requires) or self.kind == "rootcompat"

    def compile_signature(self) -> list[str]:
        """Everything about the compile commands, for the cache key."""
        parts = [f"profile={self.name}@{self.version}", f"kind={self.kind}", f"zlib={self.zlib}"]
        for g in self.groups:
            parts.append(
                f"group={g.name}|{g.language}|{' '.join(g.sources)}|-{' '.join(g.exclude)}"
                f"|{' '.join(g.flags)}|{' '.join(g.defines)}|{' '.join(g.include_dirs)}"
            )
        for h in self.headers:
            parts.append(f"header={h.source}->{h.dest}")
        for name in sorted(self.generated):
            parts.append(f"generated={name}:{self.generated[name]}")
        parts.append("link=" + " ".join(self.link_libraries))
        return parts


# Test/benchmark-only build option (docs/perf/ab.md): defines this macro, with the percent of
# deliberate extra work, in every compile of a ROOT profile. Code that reads it exists only in
# test fixtures (a planted slowdown); real ROOT trees ignore it. Part of the cache key through
# the compile signature, so such builds never mix with ordinary ones.
PLANTED_WORK_MACRO = "BASKETBENCH_PLANTED_WORK_PERCENT"


def with_planted_work(profile: Profile, percent: float | None) -> Profile:
    """`profile` with the planted-work macro defined in each source group (tests only)."""
    if percent is None or profile.kind != "root":
        return profile
    define = f"{PLANTED_WORK_MACRO}={percent:g}"
    groups = tuple(replace(g, defines=(*g.defines, define)) for g in profile.groups)
    return replace(profile, groups=groups)


def _tuple(raw: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProfileError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def parse_profile(raw: dict[str, Any], where: str) -> Profile:
    for required in ("name", "version", "kind", "supports"):
        if required not in raw:
            raise ProfileError(f"{where}: missing '{required}'")
    kind = raw["kind"]
    if kind not in ("root", "rootcompat", "root-release"):
        raise ProfileError(
            f"{where}: kind must be 'root', 'rootcompat' or 'root-release', not {kind!r}"
        )
    if not isinstance(raw["version"], int):
        raise ProfileError(f"{where}: 'version' must be an integer")
    zlib = raw.get("zlib", "none")
    if zlib not in ("cloudflare", "bundled", "system", "none"):
        raise ProfileError(
            f"{where}: zlib must be cloudflare, bundled, system or none, not {zlib!r}")

    groups = []
    for i, g in enumerate(raw.get("groups", [])):
        gw = f"{where}: groups[{i}]"
        if "name" not in g or "sources" not in g:
            raise ProfileError(f"{gw}: needs 'name' and 'sources'")
        language = g.get("language", "c++")
        if language not in ("c", "c++"):
            raise ProfileError(f"{gw}: language must be 'c' or 'c++'")
        groups.append(
            SourceGroup(
                name=g["name"],
                language=language,
                sources=_tuple(g, "sources", gw),
                exclude=_tuple(g, "exclude", gw),
                flags=_tuple(g, "flags", gw),
                defines=_tuple(g, "defines", gw),
                include_dirs=_tuple(g, "include_dirs", gw),
            )
        )
    headers = []
    for i, h in enumerate(raw.get("headers", [])):
        if "source" not in h:
            raise ProfileError(f"{where}: headers[{i}] needs 'source'")
        headers.append(
            HeaderInstall(h["source"], h.get("dest", ""), bool(h.get("optional", False)))
        )
    generated = raw.get("generated", {})
    if not isinstance(generated, dict) or not all(isinstance(v, str) for v in generated.values()):
        raise ProfileError(f"{where}: 'generated' must map header names to text")
    detect = raw.get("detect", {})
    if kind == "root" and not groups:
        raise ProfileError(f"{where}: a 'root' profile needs at least one source group")

    return Profile(
        name=raw["name"],
        version=raw["version"],
        kind=kind,
        description=raw.get("description", ""),
        supports=raw["supports"],
        tree_paths=_tuple(raw, "tree_paths", where),
        detect_requires=_tuple(detect, "requires", f"{where}: detect"),
        detect_excludes=_tuple(detect, "excludes", f"{where}: detect"),
        priority=int(detect.get("priority", 0)),
        groups=tuple(groups),
        headers=tuple(headers),
        generated=dict(generated),
        link_libraries=_tuple(raw, "link_libraries", where),
        zlib=zlib,
    )


def load_profile_file(path: Path) -> Profile:
    try:
        raw = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"{path}: {exc}") from exc
    profile = parse_profile(raw, str(path))
    return Profile(**{**profile.__dict__, "path": path})


def load_profiles(extra_dir: Path | None = None) -> dict[str, Profile]:
    """All profiles by name; files in `extra_dir` override packaged ones of the same name."""
    profiles: dict[str, Profile] = {}
    dirs = [PACKAGED_PROFILES] + ([extra_dir] if extra_dir else [])
    for directory in dirs:
        for path in sorted(directory.glob("*.toml")):
            profile = load_profile_file(path)
            profiles[profile.name] = profile
    return profiles


def choose_profile(profiles: dict[str, Profile], requested: str, has_path: Any) -> Profile:
    """The named profile, or for "auto" the highest-priority profile whose detect rules match.

    `has_path(path) -> bool` answers whether the commit's tree has that path.
    """
    if requested != "auto":
        if requested not in profiles:
            raise ProfileError(f"unknown build profile {requested!r}; known: {sorted(profiles)}")
        return profiles[requested]
    candidates = sorted(
        (p for p in profiles.values() if p.auto_detectable),
        key=lambda p: (-p.priority, p.name),
    )
    for profile in candidates:
        if all(_any(has_path, p) for p in profile.detect_requires) and not any(
            _any(has_path, p) for p in profile.detect_excludes
        ):
            return profile
    raise ProfileError(
        "no build profile matches this tree (a new layout needs a profile file: "
        "BASKETBENCH_PROFILES_DIR, or name one with BASKETBENCH_PROFILE)"
    )


def _any(has_path: Any, alternatives: str) -> bool:
    """A detect rule "a|b" holds when either path exists."""
    return any(has_path(p) for p in alternatives.split("|"))
