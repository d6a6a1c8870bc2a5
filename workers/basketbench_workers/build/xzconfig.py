"""liblzma without xz's configure: the config.h that configure writes, written directly.

xz's configure spends several seconds of one core on about a hundred probes whose answers
are fixed for a platform and an xz version. For the xz versions a codec set can obtain
(Debian's 5.2.5, 5.4.1 and 5.8.1) on x86-64 Linux with glibc and GCC, this module holds
those answers: the exact macro set configure writes for basketbench's options
(--disable-shared --enable-static --with-pic, tools, docs and NLS disabled), checked macro
by macro against configure's own config.h (tests/workers/test_codecsets.py). Anything else
(another version, architecture, C library or compiler) gets None, and the caller runs
configure as before.
"""

from __future__ import annotations

import platform
import sys
from functools import lru_cache
from pathlib import Path

from basketbench_workers.procs import capture

_COMMON = {
    "ASSUME_RAM": "128",
    "HAVE_CHECK_CRC32": "1", "HAVE_CHECK_CRC64": "1", "HAVE_CHECK_SHA256": "1",
    "HAVE_CLOCK_GETTIME": "1",
    "HAVE_DECODERS": "1", "HAVE_ENCODERS": "1",
    "HAVE_DLFCN_H": "1", "HAVE_FUTIMENS": "1", "HAVE_GETOPT_H": "1", "HAVE_GETOPT_LONG": "1",
    "HAVE_IMMINTRIN_H": "1", "HAVE_INTTYPES_H": "1", "HAVE_MBRTOWC": "1",
    "HAVE_MF_BT2": "1", "HAVE_MF_BT3": "1", "HAVE_MF_BT4": "1", "HAVE_MF_HC3": "1",
    "HAVE_MF_HC4": "1",
    "HAVE_POSIX_FADVISE": "1", "HAVE_PTHREAD_CONDATTR_SETCLOCK": "1",
    "HAVE_PTHREAD_PRIO_INHERIT": "1", "HAVE_STDBOOL_H": "1", "HAVE_STDINT_H": "1",
    "HAVE_STDLIB_H": "1", "HAVE_STRINGS_H": "1", "HAVE_STRING_H": "1",
    "HAVE_STRUCT_STAT_ST_ATIM_TV_NSEC": "1", "HAVE_SYS_PARAM_H": "1", "HAVE_SYS_STAT_H": "1",
    "HAVE_SYS_TYPES_H": "1", "HAVE_UINTPTR_T": "1", "HAVE_UNISTD_H": "1",
    "HAVE_VISIBILITY": "1", "HAVE_WCWIDTH": "1", "HAVE__BOOL": "1",
    "HAVE__MM_MOVEMASK_EPI8": "1", "HAVE___BUILTIN_ASSUME_ALIGNED": "1",
    "HAVE___BUILTIN_BSWAPXX": "1",
    "LT_OBJDIR": '".libs/"', "MYTHREAD_POSIX": "1", "NDEBUG": "1",
    "PACKAGE": '"xz"', "PACKAGE_NAME": '"XZ Utils"', "PACKAGE_TARNAME": '"xz"',
    "PACKAGE_URL": '"https://tukaani.org/xz/"',
    "SIZEOF_SIZE_T": "8", "STDC_HEADERS": "1",
    "TUKLIB_CPUCORES_SCHED_GETAFFINITY": "1", "TUKLIB_FAST_UNALIGNED_ACCESS": "1",
    "TUKLIB_PHYSMEM_SYSCONF": "1",
}
# The filters every version builds (the BCJ filters follow the files of simple/).
_FILTERS = ("DELTA", "LZMA1", "LZMA2", "X86", "POWERPC", "IA64", "ARM", "ARMTHUMB", "SPARC")
_SINCE_5_4 = {
    "HAVE_CLOCK_MONOTONIC": "1", "HAVE_CPUID_H": "1", "HAVE_FUNC_ATTRIBUTE_CONSTRUCTOR": "1",
    "HAVE_LZIP_DECODER": "1", "HAVE_PROGRAM_INVOCATION_NAME": "1", "HAVE_STDIO_H": "1",
    "HAVE_USABLE_CLMUL": "1", "HAVE_WCHAR_H": "1", "PACKAGE_BUGREPORT": '"xz@tukaani.org"',
}
_BY_VERSION: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "5.2.5": ({"HAVE_DECL_CLOCK_MONOTONIC": "1", "HAVE_DECL_PROGRAM_INVOCATION_NAME": "1",
               "HAVE_FCNTL_H": "1", "HAVE_LIMITS_H": "1", "HAVE_MEMORY_H": "1",
               "HAVE_SYS_TIME_H": "1", "PACKAGE_BUGREPORT": '"lasse.collin@tukaani.org"'}, ()),
    "5.4.1": ({**_SINCE_5_4, "HAVE_FCNTL_H": "1", "HAVE_LIMITS_H": "1", "HAVE_SYS_TIME_H": "1"},
              ("ARM64",)),
    "5.8.1": ({**_SINCE_5_4, "HAVE_SYS_CDEFS_H": "1", "HAVE_VASPRINTF": "1"},
              ("ARM64", "RISCV")),
}
# AC_USE_SYSTEM_EXTENSIONS: written by configure as #ifndef-guarded defines (_GNU_SOURCE is
# what glibc looks at, e.g. for sched_getaffinity in tuklib_cpucores.c).
_EXTENSIONS_5_2 = ("_ALL_SOURCE", "_DARWIN_USE_64_BIT_INODE", "_GNU_SOURCE",
                   "_POSIX_PTHREAD_SEMANTICS", "_TANDEM_SOURCE", "__EXTENSIONS__")
_EXTENSIONS_5_4 = (
    "_ALL_SOURCE", "_DARWIN_C_SOURCE", "_GNU_SOURCE", "_HPUX_ALT_XOPEN_SOCKET_API",
    "_NETBSD_SOURCE", "_OPENBSD_SOURCE", "_POSIX_PTHREAD_SEMANTICS", "_TANDEM_SOURCE",
    "__EXTENSIONS__", "__STDC_WANT_IEC_60559_ATTRIBS_EXT__", "__STDC_WANT_IEC_60559_BFP_EXT__",
    "__STDC_WANT_IEC_60559_DFP_EXT__", "__STDC_WANT_IEC_60559_FUNCS_EXT__",
    "__STDC_WANT_IEC_60559_TYPES_EXT__", "__STDC_WANT_LIB_EXT2__",
    "__STDC_WANT_MATH_SPEC_FUNCS__",
)
_EXTENSIONS = {"5.2.5": _EXTENSIONS_5_2, "5.4.1": _EXTENSIONS_5_4,
               "5.8.1": (*_EXTENSIONS_5_4, "__STDC_WANT_IEC_60559_EXT__")}
SUBDIRS = ("common", "check", "lz", "rangecoder", "lzma", "delta", "simple")


def xz_version(tree: Path) -> str | None:
    text = (tree / "src" / "liblzma" / "api" / "lzma" / "version.h").read_text(errors="replace")
    parts = []
    for name in ("MAJOR", "MINOR", "PATCH"):
        for line in text.splitlines():
            words = line.split()
            if words[:2] == ["#define", f"LZMA_VERSION_{name}"] and len(words) > 2:
                parts.append(words[2].rstrip("U"))
                break
    return ".".join(parts) if len(parts) == 3 else None


@lru_cache(maxsize=1)
def platform_is_described() -> bool:
    """x86-64 Linux, glibc, GCC (not Clang): the platform the macro values were taken on."""
    if sys.platform != "linux" or platform.machine() != "x86_64":
        return False
    if platform.libc_ver()[0] != "glibc":
        return False
    try:
        macros = capture(["cc", "-dM", "-E", "-x", "c", "/dev/null"])
    except Exception:  # noqa: BLE001 - no compiler: configure would fail the same way
        return False
    return "__GNUC__" in macros and "__clang__" not in macros and "__x86_64__" in macros


def config_macros(version: str) -> dict[str, str] | None:
    """config.h's macros for an xz version on this platform, or None when not described."""
    if version not in _BY_VERSION or not platform_is_described():
        return None
    extra, filters = _BY_VERSION[version]
    macros = {**_COMMON, **extra}
    for name in (*_FILTERS, *filters):
        macros[f"HAVE_ENCODER_{name}"] = "1"
        macros[f"HAVE_DECODER_{name}"] = "1"
    macros["PACKAGE_STRING"] = f'"XZ Utils {version}"'
    macros["PACKAGE_VERSION"] = f'"{version}"'
    macros["VERSION"] = f'"{version}"'
    return macros


def write_config_h(tree: Path, into: Path) -> Path | None:
    """Write config.h for the unpacked xz `tree` into `into`; None if not described here."""
    version = xz_version(tree)
    macros = config_macros(version) if version else None
    if macros is None:
        return None
    into.mkdir(parents=True, exist_ok=True)
    lines = [f"/* xz {version}: configure's answers on x86-64 Linux/glibc/GCC, written by "
             "basketbench (xzconfig.py) */"]
    lines += [f"#define {name} {value}" for name, value in sorted(macros.items())]
    assert version is not None
    for name in sorted(_EXTENSIONS[version]):
        lines += [f"#ifndef {name}", f"# define {name} 1", "#endif"]
    (into / "config.h").write_text("\n".join(lines) + "\n")
    return into


def liblzma_sources(tree: Path) -> list[Path]:
    """What xz's src/liblzma/Makefile compiles with those options: every C file of its
    subdirectories but the table generators and the size-optimised CRCs, plus two tuklib
    files."""
    lib = tree / "src" / "liblzma"
    sources = [
        p for sub in SUBDIRS for p in sorted((lib / sub).glob("*.c"))
        if not p.stem.endswith(("_small", "_tablegen", "_gen"))
    ]
    return sources + [tree / "src" / "common" / f"tuklib_{n}.c" for n in ("physmem", "cpucores")]


def include_dirs(tree: Path, config: Path) -> list[Path]:
    """In the Makefile's order: its own directory, config.h's, then liblzma_la_CPPFLAGS."""
    lib = tree / "src" / "liblzma"
    return [lib, config, lib / "api", *[lib / sub for sub in SUBDIRS], tree / "src" / "common"]
