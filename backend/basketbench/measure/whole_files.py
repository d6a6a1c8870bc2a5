"""A file replaced whole: written under a private name beside it, then renamed over it.
A rename within a directory is atomic, so a reader never sees half a file and a process
killed halfway leaves the old file, not a cut one. The private name carries the process
and thread, so two writers of one file never write into the same temporary; the last
rename wins, whole."""

from __future__ import annotations

import os
import threading
from pathlib import Path


def replace_text(path: Path, text: str) -> None:
    """``path`` holds ``text`` afterwards, or (on any error) what it held before."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        tmp.write_text(text)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
