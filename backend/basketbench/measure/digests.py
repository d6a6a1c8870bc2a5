"""The sha256 of a file, read in blocks (archives and ROOT files of hundreds of MB): the one
way every cache, record and document of the project fingerprints a file."""

from __future__ import annotations

import hashlib
from pathlib import Path


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
