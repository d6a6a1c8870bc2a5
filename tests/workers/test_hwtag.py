"""Hardware tag detection from cpuinfo texts of real CPU families."""

from __future__ import annotations

import pytest
from basketbench_workers.hwtag import detect_tag, detect_tag_from_cpuinfo


def x86(vendor: str, family: int, model: int, flags: str) -> str:
    block = (
        f"processor\t: 0\nvendor_id\t: {vendor}\ncpu family\t: {family}\nmodel\t\t: {model}\n"
        f"model name\t: test cpu\nflags\t\t: {flags}\n"
    )
    # Two identical blocks, as on a real multi-core machine.
    return block + "\n" + block.replace("processor\t: 0", "processor\t: 1") + "\n"


HASWELL_FLAGS = "fpu sse sse2 ssse3 sse4_1 sse4_2 avx avx2 bmi1 bmi2 fma"


@pytest.mark.parametrize(
    ("cpuinfo", "tag"),
    [
        (x86("GenuineIntel", 6, 63, HASWELL_FLAGS), "haswell"),  # Xeon E5 v3
        (x86("GenuineIntel", 6, 85, HASWELL_FLAGS + " avx512f avx512bw"), "skylake-avx512"),
        (x86("AuthenticAMD", 23, 49, HASWELL_FLAGS), "epyc"),  # Zen 2 (family 0x17)
        (x86("AuthenticAMD", 25, 1, HASWELL_FLAGS + " avx512f"), "epyc"),  # Zen 4 (0x19)
        (x86("AuthenticAMD", 21, 2, "sse sse2 avx"), "generic-x86"),  # Bulldozer
        (x86("GenuineIntel", 6, 42, "sse sse2 sse4_2 avx"), "generic-x86"),  # Sandy Bridge
    ],
)
def test_x86_tags(cpuinfo: str, tag: str) -> None:
    assert detect_tag_from_cpuinfo(cpuinfo, "x86_64") == tag


ARM_CPUINFO = (
    "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 {crc}"
    "atomics cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n\n"
)


def test_aarch64_crc32_from_features() -> None:
    assert detect_tag_from_cpuinfo(ARM_CPUINFO.format(crc="crc32 "), "aarch64") == "armv8-crc"
    assert detect_tag_from_cpuinfo(ARM_CPUINFO.format(crc=""), "aarch64") == "armv8"


def test_aarch64_crc32_from_hwcap_when_cpuinfo_is_terse() -> None:
    assert detect_tag_from_cpuinfo("processor\t: 0\n", "aarch64", hwcap=1 << 7) == "armv8-crc"
    assert detect_tag_from_cpuinfo("processor\t: 0\n", "aarch64", hwcap=0b11) == "armv8"


def test_unknown_architecture_is_its_own_tag() -> None:
    assert detect_tag_from_cpuinfo("", "riscv64") == "riscv64"


def test_this_machine_has_a_tag() -> None:
    assert detect_tag() in {
        "haswell",
        "skylake-avx512",
        "epyc",
        "generic-x86",
        "armv8-crc",
        "armv8",
    }
