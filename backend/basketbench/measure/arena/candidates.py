"""The arena's candidate codecs: where each one's sources come from, how its layer is built and
which levels it runs (docs/arena.md).

Every candidate writes a block format ROOT already reads (a zlib stream under "ZL", a zstd
frame under "ZS", an LZ4 block under "L4"); `root_readable` in the results is nevertheless
measured (ROOT's layer decodes the candidate's output), not taken from here.

zstd and lz4 are built at the version the reference layer (ROOT's current choice) runs, so that
a zstd or lz4 candidate differs from ROOT only by what it is meant to test (a level, long
distance matching, a context kept across buffers) and native level 10 reproduces setting 505
to the byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from basketbench.measure.arena.sources import SourcePackage

# The family's ROOT algorithm number (ECompressionAlgorithm), for rzbench's --b-codecs.
FAMILY_ALGORITHM = {"zlib": 1, "lzma": 2, "lz4": 4, "zstd": 5}

ZSTD_LEVELS = tuple(range(-7, 0)) + tuple(range(1, 23))
LZ4_LEVELS = (-8, -4, -2, 1) + tuple(range(3, 13))

# Debian's source package of each zstd / lz4 upstream version apt knows (setup-codec-sources.sh).
DEBIAN_ZSTD = {"1.4.8": "1.4.8+dfsg-2.1", "1.5.4": "1.5.4+dfsg2-5", "1.5.7": "1.5.7+dfsg-1"}
DEBIAN_LZ4 = {"1.9.3": "1.9.3-2", "1.9.4": "1.9.4-1", "1.10.0": "1.10.0-4"}
DEFAULT_ZSTD = "1.5.7"
DEFAULT_LZ4 = "1.10.0"


@dataclass(frozen=True)
class Candidate:
    name: str
    family: str  # zlib | zstd | lz4
    source: SourcePackage
    recipe: str  # how build.py compiles the library (zlib, zlib-cloudflare, zlib-ng, ...)
    defines: tuple[str, ...]  # what candidate_layer.c is compiled as
    levels: tuple[int, ...]  # native levels run by default
    what: str  # one line for docs and the JSON

    @property
    def algorithm(self) -> int:
        return FAMILY_ALGORITHM[self.family]


def reference_setting(family: str, level: int) -> int:
    """ROOT's setting a candidate level is compared with: the same zlib level (above 9: 109);
    ROOT's default setting of the family for zstd (505) and lz4 (404)."""
    if family == "zlib":
        return 100 + max(1, min(level, 9))
    if family == "zstd":
        return 505
    if family == "lz4":
        return 404
    raise ValueError(f"no reference setting for family {family!r}")


def catalogue(zstd_version: str = DEFAULT_ZSTD, lz4_version: str = DEFAULT_LZ4
              ) -> dict[str, Candidate]:
    """Every candidate, by name; zstd and lz4 at the given upstream versions."""
    zstd = SourcePackage("debian", "libzstd", DEBIAN_ZSTD[zstd_version])
    lz4 = SourcePackage("debian", "lz4", DEBIAN_LZ4[lz4_version])
    zlib_ng = SourcePackage("pypi", "zlib-ng", "1.1.0")  # bundles zlib-ng 2.3.3
    zlib_levels = tuple(range(1, 10))
    entries = [
        Candidate("zlib", "zlib", SourcePackage("debian", "zlib", "1:1.3.dfsg+really1.3.1-1"),
                  "zlib", ("ARENA_ZLIB",), zlib_levels,
                  "vanilla zlib 1.3.1 (Debian trixie), deflateInit per block as ROOT"),
        Candidate("zlib-cloudflare", "zlib", SourcePackage("pypi", "cppyy-cling", "6.32.8"),
                  "zlib-cloudflare", ("ARENA_ZLIB",), zlib_levels,
                  "Cloudflare's zlib fork as ROOT bundled it 6.18-6.38 (src/builtins/zlib)"),
        Candidate("zlib-ng", "zlib", zlib_ng, "zlib-ng", ("ARENA_ZLIBNG",), zlib_levels,
                  "zlib-ng 2.3.3, native zng_ API"),
        Candidate("zlib-ng-compat", "zlib", zlib_ng, "zlib-ng-compat", ("ARENA_ZLIB",),
                  zlib_levels, "zlib-ng 2.3.3 built ZLIB_COMPAT (the zlib API, as a builtin)"),
        Candidate("libdeflate", "zlib", SourcePackage("pypi", "deflate", "0.9.0"), "libdeflate",
                  ("ARENA_LIBDEFLATE",), tuple(range(1, 13)),
                  "libdeflate 1.26 (zlib format), a compressor per block"),
        Candidate("zstd", "zstd", zstd, "zstd", ("ARENA_ZSTD",), ZSTD_LEVELS,
                  f"zstd {zstd_version} at its native level, as ROOT calls it"),
        Candidate("zstd-ldm", "zstd", zstd, "zstd", ("ARENA_ZSTD", "ARENA_ZSTD_LDM"),
                  (1, 3, 6, 10, 15, 19),
                  f"zstd {zstd_version} with long-distance matching"),
        Candidate("zstd-ctx", "zstd", zstd, "zstd", ("ARENA_ZSTD", "ARENA_REUSE_CONTEXT"),
                  (1, 2, 3, 6, 10, 19),
                  f"zstd {zstd_version}, one context per thread kept across buffers"),
        Candidate("lz4", "lz4", lz4, "lz4", ("ARENA_LZ4",), LZ4_LEVELS,
                  f"lz4 {lz4_version}: -N fast (acceleration N), 1 default, 3..12 HC"),
        Candidate("lz4-ctx", "lz4", lz4, "lz4", ("ARENA_LZ4", "ARENA_REUSE_CONTEXT"),
                  (1, 4, 9),
                  f"lz4 {lz4_version}, one state per thread kept across buffers"),
    ]
    return {c.name: c for c in entries}


CANDIDATE_NAMES = tuple(catalogue())
