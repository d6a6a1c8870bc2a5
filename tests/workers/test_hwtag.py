"""Hardware tag detection from cpuinfo texts of real CPU families."""

from __future__ import annotations

import pytest
from basketbench_workers.agent.hwtag import (
    cpu_features,
    cpu_name,
    detect_tag,
    detect_tag_from_cpuinfo,
    hwcap_from_auxv,
)


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


# /proc/cpuinfo of real ARMv8 machines under Linux (first processor block).
def arm(features: str, implementer: int, variant: int, part: int, revision: int) -> str:
    return (f"processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: {features}\n"
            f"CPU implementer\t: {implementer:#x}\nCPU architecture: 8\n"
            f"CPU variant\t: {variant:#x}\n"
            f"CPU part\t: {part:#05x}\nCPU revision\t: {revision}\n\n")


REAL_ARM = {
    # AWS Graviton2
    "neoverse-n1": (arm("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
                        "asimdrdm lrcpc dcpop asimddp ssbs", 0x41, 3, 0xD0C, 1),
                    "armv8-crc", "Neoverse N1"),
    # AWS Graviton3
    "neoverse-v1": (arm("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
                        "asimdrdm jscvt fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm "
                        "dit uscat ilrcpc flagm ssbs paca pacg dcpodp svei8mm svebf16 i8mm bf16 "
                        "dgh rng", 0x41, 1, 0xD40, 1),
                    "armv8-crc", "Neoverse V1"),
    # Raspberry Pi 4, 64-bit kernel
    "cortex-a72": (arm("fp asimd evtstrm crc32 cpuid", 0x41, 0, 0xD08, 3),
                   "armv8-crc", "Cortex-A72"),
    # Apple M1 under Asahi Linux (efficiency core first)
    "apple-m1": (arm("fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid "
                     "asimdrdm jscvt fcma lrcpc dcpop sha3 asimddp sha512 asimdfhm dit uscat "
                     "ilrcpc flagm ssbs sb paca pacg dcpodp flagm2 frint", 0x61, 1, 0x022, 1),
                 "armv8-crc", "Apple M1 Icestorm"),
    # APM X-Gene 1: ARMv8.0 without the optional CRC32 instructions
    "x-gene-1": (arm("fp asimd evtstrm", 0x50, 0, 0x000, 1), "armv8", "APM X-Gene"),
}


@pytest.mark.parametrize("machine", sorted(REAL_ARM))
def test_real_armv8_machines(machine: str) -> None:
    cpuinfo, tag, name = REAL_ARM[machine]
    assert detect_tag_from_cpuinfo(cpuinfo, "aarch64") == tag
    assert cpu_name(cpuinfo, "aarch64") == name
    features = cpu_features(cpuinfo, "aarch64")
    assert ("crc32" in features) == (tag == "armv8-crc")
    assert "asimd" in features


def auxv(*pairs: tuple[int, int]) -> bytes:
    return b"".join(k.to_bytes(8, "little") + v.to_bytes(8, "little") for k, v in pairs)


# AT_HWCAP words as the kernel builds them (arch/arm64/include/uapi/asm/hwcap.h bits): Graviton2's
# features above (fp=0 ... cpuid=11, asimdrdm=12, lrcpc=15, dcpop=16, asimddp=20, ssbs=28; crc32=7)
# and X-Gene 1's fp asimd evtstrm.
GRAVITON2_HWCAP = 0x10119FFF
XGENE1_HWCAP = 0b111


def test_hwcap_from_auxv_decides_when_cpuinfo_has_no_features_line() -> None:
    terse = "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n"
    hw = hwcap_from_auxv(auxv((33, 0xFFFF0000), (16, GRAVITON2_HWCAP), (0, 0)))
    assert hw == GRAVITON2_HWCAP
    assert detect_tag_from_cpuinfo(terse, "aarch64", hw) == "armv8-crc"
    assert "crc32" in cpu_features(terse, "aarch64", hw)
    hw = hwcap_from_auxv(auxv((16, XGENE1_HWCAP), (0, 0)))
    assert detect_tag_from_cpuinfo(terse, "aarch64", hw) == "armv8"
    assert hwcap_from_auxv(auxv((6, 4096), (0, 0))) is None


def test_x86_names_and_flags() -> None:
    text = x86("GenuineIntel", 6, 63, HASWELL_FLAGS)
    assert cpu_name(text, "x86_64") == "test cpu"
    assert "avx2" in cpu_features(text, "x86_64")
