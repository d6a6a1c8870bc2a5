"""The installed basketbench version, recorded in the files we write."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def package_version() -> str:
    try:
        return version("basketbench")
    except PackageNotFoundError:  # running from a source tree without installing
        return "0+unknown"
