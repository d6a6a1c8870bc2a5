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


# (CPU implementer, CPU part) of /proc/cpuinfo on aarch64 -> core name (Arm's and Apple's
# published part numbers); the name is recorded, the tag only depends on the CRC32 feature.
_ARM_PARTS = {
    (0x41, 0xD03): "Cortex-A53", (0x41, 0xD07): "Cortex-A57", (0x41, 0xD08): "Cortex-A72",
    (0x41, 0xD0B): "Cortex-A76", (0x41, 0xD0C): "Neoverse N1", (0x41, 0xD40): "Neoverse V1",
    (0x41, 0xD49): "Neoverse N2", (0x41, 0xD4F): "Neoverse V2",
    (0x50, 0x000): "APM X-Gene", (0x61, 0x022): "Apple M1 Icestorm",
    (0x61, 0x023): "Apple M1 Firestorm", (0x61, 0x024): "Apple M1 Pro/Max Icestorm",
    (0x61, 0x025): "Apple M1 Pro/Max Firestorm",
}
_ARM_ARCHES = ("aarch64", "arm64", "armv8l")


def detect_tag_from_cpuinfo(cpuinfo: str, machine: str, hwcap: int | None = None) -> str:
    """Tag for a cpuinfo text on architecture `machine` (platform.machine())."""
    fields = _first_block(cpuinfo)
    arch = machine.lower()
    if arch in ("x86_64", "amd64", "i686", "i386"):
        return _x86_tag(fields)
    if arch in _ARM_ARCHES:
        return "armv8-crc" if "crc32" in cpu_features(cpuinfo, machine, hwcap) else "armv8"
    return arch or "unknown"


def cpu_features(cpuinfo: str, machine: str, hwcap: int | None = None) -> list[str]:
    """The CPU's feature names (x86 `flags`, aarch64 `Features`), sorted; on aarch64 the
    kernel's HWCAP_CRC32 bit counts too, for kernels whose cpuinfo omits the Features line."""
    fields = _first_block(cpuinfo)
    arch = machine.lower()
    found = set(fields.get("features" if arch in _ARM_ARCHES else "flags", "").split())
    if arch in _ARM_ARCHES and hwcap is not None and hwcap & _HWCAP_CRC32:
        found.add("crc32")
    return sorted(found)


def cpu_name(cpuinfo: str, machine: str) -> str:
    """`model name` on x86; on aarch64 the core named by its implementer and part numbers."""
    fields = _first_block(cpuinfo)
    if machine.lower() not in _ARM_ARCHES:
        return fields.get("model name", "unknown")
    implementer, part = _int(fields.get("cpu implementer")), _int(fields.get("cpu part"))
    if implementer is None or part is None:
        return fields.get("model name", "unknown")
    return _ARM_PARTS.get((implementer, part), f"implementer {implementer:#x} part {part:#05x}")


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


def hwcap_from_auxv(data: bytes) -> int | None:
    """AT_HWCAP from an auxiliary vector (pairs of native 64-bit words, little-endian on
    every aarch64 Linux we support)."""
    for i in range(0, len(data) - 15, 16):
        key = int.from_bytes(data[i : i + 8], "little")
        if key == _AT_HWCAP:
            return int.from_bytes(data[i + 8 : i + 16], "little")
    return None


def _read_hwcap() -> int | None:
    """AT_HWCAP of this process (aarch64 only needs it when cpuinfo is terse)."""
    try:
        return hwcap_from_auxv(Path("/proc/self/auxv").read_bytes())
    except OSError:
        return None


def detect_tag() -> str:
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    except OSError:
        cpuinfo = ""
    machine = platform.machine()
    hwcap = _read_hwcap() if machine.lower() in ("aarch64", "arm64") else None
    return detect_tag_from_cpuinfo(cpuinfo, machine, hwcap)
