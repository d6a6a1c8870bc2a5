"""Hardware tag of this machine, from /proc/cpuinfo (x86 flags, aarch64 features).

Tags name the CPU traits that change compression speed: SIMD width (AVX2 /
AVX-512) on x86 and the CRC32 instructions on ARMv8 (zlib's checksum path).
"""

from __future__ import annotations

import platform
from pathlib import Path

# AArch64 hwcap bit for the CRC32 instructions (asm/hwcap.h: HWCAP_CRC32).
_HWCAP_CRC32 = 1 << 7
_AT_HWCAP = 16


def _first_block(cpuinfo: str) -> dict[str, str]:
    """Key/value pairs of the first processor block (the rest repeat it)."""
    fields: dict[str, str] = {}
    for line in cpuinfo.splitlines():
        if not line.strip():
            if fields:
                break
            continue
        key, sep, value = line.partition(":")
        if sep:
            fields.setdefault(key.strip().lower(), value.strip())
    return fields


def _int(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return int(value, 0)
    except ValueError:
        return None


def detect_tag_from_cpuinfo(cpuinfo: str, machine: str, hwcap: int | None = None) -> str:
    """Tag for a cpuinfo text on architecture `machine` (platform.machine())."""
    fields = _first_block(cpuinfo)
    arch = machine.lower()
    if arch in ("x86_64", "amd64", "i686", "i386"):
        return _x86_tag(fields)
    if arch in ("aarch64", "arm64", "armv8l"):
        features = set(fields.get("features", "").split())
        has_crc = "crc32" in features or (hwcap is not None and bool(hwcap & _HWCAP_CRC32))
        return "armv8-crc" if has_crc else "armv8"
    return arch or "unknown"


def _x86_tag(fields: dict[str, str]) -> str:
    vendor = fields.get("vendor_id", "")
    family = _int(fields.get("cpu family"))
    flags = set(fields.get("flags", "").split())
    if vendor == "AuthenticAMD" and family in (0x17, 0x19, 0x1A):
        return "epyc"
    if vendor == "GenuineIntel":
        if "avx512f" in flags:
            return "skylake-avx512"
        if "avx2" in flags and "bmi2" in flags:
            return "haswell"
    return "generic-x86"


def _read_hwcap() -> int | None:
    """AT_HWCAP from the auxiliary vector (aarch64 only needs it when cpuinfo is terse)."""
    try:
        data = Path("/proc/self/auxv").read_bytes()
    except OSError:
        return None
    for i in range(0, len(data) - 15, 16):
        key = int.from_bytes(data[i : i + 8], "little")
        if key == _AT_HWCAP:
            return int.from_bytes(data[i + 8 : i + 16], "little")
    return None


def detect_tag() -> str:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    machine = platform.machine()
    hwcap = _read_hwcap() if machine.lower() in ("aarch64", "arm64") else None
    return detect_tag_from_cpuinfo(cpuinfo, machine, hwcap)
