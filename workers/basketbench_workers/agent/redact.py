"""What a run shows the world carries no path of this worker's: run logs and failure
messages are readable without a token (GET /runs), so before a text leaves the worker its
absolute paths become names relative to what they point into ($DATA_ROOT/hzz/HZZ.root,
$WORKER_DIR/runs/7/run.log, ~/...) and any other absolute path keeps its last component
only (.../rzbench)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable
from pathlib import Path

# Absolute paths of two or more components: /a/b, /a/b.c-d/e; not "/", "/runs" or URLs'
# paths (preceded by a host name: "example.org/a/b" has no space or quote before it).
_ABSOLUTE = re.compile(r"(?<![\w.:/-])(/[\w.+@-]+){2,}/?")


class Redactor:
    def __init__(self, named: Iterable[tuple[Path | None, str]]) -> None:
        prefixes: dict[str, str] = {}
        for path, label in named:
            if path is None:
                continue
            for form in {str(path), os.path.realpath(path)}:  # as given and resolved
                if form not in ("/", "") and len(form) > 1:
                    prefixes.setdefault(form.rstrip("/"), label)
        # Longest first: a data root inside the worker dir is named as the data root.
        self._prefixes = sorted(prefixes.items(), key=lambda kv: -len(kv[0]))

    def __call__(self, text: str) -> str:
        for prefix, label in self._prefixes:
            text = text.replace(prefix, label)
        return _ABSOLUTE.sub(lambda m: ".../" + m.group(0).rstrip("/").rsplit("/", 1)[-1],
                             text)


def worker_redactor(data_root: Path | None, worker_dir: Path) -> Redactor:
    return Redactor([(data_root, "$DATA_ROOT"), (worker_dir, "$WORKER_DIR"),
                     (Path(sys.prefix), "$PREFIX"), (Path.home(), "~")])
