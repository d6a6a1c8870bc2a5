"""The compilers the worker builds with, and their identity for the build cache."""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache

from basketbench_workers.procs import capture


@dataclass(frozen=True)
class Toolchain:
    cc: str
    cxx: str
    cc_version: str
    cxx_version: str

    def compiler_for(self, language: str) -> str:
        return self.cxx if language == "c++" else self.cc


@lru_cache(maxsize=1)
def detect_toolchain() -> Toolchain:
    cc = os.environ.get("CC", "cc")
    cxx = os.environ.get("CXX", "c++")
    return Toolchain(
        cc=cc,
        cxx=cxx,
        cc_version=capture([cc, "--version"]).splitlines()[0],
        cxx_version=capture([cxx, "--version"]).splitlines()[0],
    )
