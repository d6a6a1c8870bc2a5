"""A source tree in ROOT's layout whose compression files are basketbench's own rootcompat
sources (bench-harness/rootcompat), for the worker tests."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ROOTCOMPAT = REPO_ROOT / "bench-harness" / "rootcompat"


def _target_dir(name: str) -> str:
    for codec in ("lz4", "zstd", "lzma"):
        if codec in name.lower():
            return f"core/{codec}/src"
    return "core/zip/src"


def rootcompat_layout_files() -> dict[str, str | bytes]:
    """Path in the ROOT-like tree -> content, from the rootcompat sources on disk."""
    files: dict[str, str | bytes] = {}
    for header in sorted((ROOTCOMPAT / "include").glob("*")):
        files[f"core/zip/inc/{header.name}"] = header.read_bytes()
    for source in sorted((ROOTCOMPAT / "src").glob("*")):
        files[f"{_target_dir(source.name)}/{source.name}"] = source.read_bytes()
    files["builtins/zlib/README"] = "this tree uses the system zlib\n"
    files["README.md"] = "A ROOT-layout test tree built from basketbench's rootcompat sources.\n"
    return files


def lz4_source_path(files: dict[str, str | bytes]) -> str:
    return next(p for p in files if p.startswith("core/lz4/src/") and p.endswith(".cpp"))


def slow_down_lz4(source: str, passes: int = 6) -> str:
    """Make LZ4 decompression measurably slower: extra passes over every compressed byte
    before decoding (a deliberate regression for the tracker to catch)."""
    match = re.search(
        r"int\s+unzip_lz4\s*\(\s*const\s+uint8_t\s*\*\s*(\w+)\s*,\s*int\s+(\w+)", source
    )
    if match is None:
        raise AssertionError("rootcompat's LZ4 decoder changed shape: update slow_down_lz4()")
    block, size = match.group(1), match.group(2)
    body = source.index("{", match.end())
    extra = (
        f"\n   {{ // deliberate regression (basketbench worker test)\n"
        f"      volatile unsigned sink = 0;\n"
        f"      for (int pass = 0; pass < {passes}; ++pass)\n"
        f"         for (int i = 0; i < {size}; ++i)\n"
        f"            sink = sink + {block}[i];\n"
        f"   }}\n"
    )
    return source[: body + 1] + extra + source[body + 1 :]


def rzip_source_path(files: dict[str, str | bytes]) -> str:
    return next(p for p in files if p.startswith("core/zip/src/") and p.endswith("rzip.cpp"))


def plant_compression_work(source: str) -> str:
    """A planted slowdown for the per-commit A/B test: with the test build option
    BASKETBENCH_TEST_PLANTED_WORK_PERCENT=<p> (the worker compiles with
    -DBASKETBENCH_PLANTED_WORK_PERCENT=<p>), every (100 / p)-th R__zipMultipleAlgorithm call
    compresses its input a second time into a scratch buffer: p % more compression work,
    whatever the codec and level, counted in calls rather than timed (a clock-timed spin
    measured 7-24 % instead of 2 % on a loaded VM). Without the option the block compiles to
    nothing."""
    signature = ("R__zipMultipleAlgorithm(int cxlevel, int *srcsize, char *src, int *tgtsize, "
                 "char *tgt, int *irep")
    if signature not in source:
        raise AssertionError("rootcompat's rzip.cpp changed shape: update plant_compression_work()")
    body = source.index("{", source.index(signature))
    extra = (
        "\n#ifdef BASKETBENCH_PLANTED_WORK_PERCENT // deliberate extra work (basketbench test)\n"
        "   {\n"
        "      static thread_local unsigned planted_calls = 0;\n"
        "      static thread_local std::vector<char> planted_scratch;\n"
        "      if (++planted_calls >= unsigned(100.0 / BASKETBENCH_PLANTED_WORK_PERCENT)) {\n"
        "         planted_calls = 0; // the call below counts as 1: no recursion beyond it\n"
        "         planted_scratch.resize(*tgtsize > 0 ? *tgtsize : 1);\n"
        "         int size = *srcsize, room = *tgtsize, written = 0;\n"
        "         R__zipMultipleAlgorithm(cxlevel, &size, src, &room, planted_scratch.data(),\n"
        "                                 &written, algorithm);\n"
        "      }\n"
        "   }\n"
        "#endif\n"
    )
    return "#include <vector>\n" + source[: body + 1] + extra + source[body + 1 :]
