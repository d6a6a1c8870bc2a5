"""Instruction counts of the arena: each candidate and ROOT's reference, one pass of compress
and one of decompress over the file's buffers, counted under valgrind's callgrind.

`rzbench ab --count` (run under `valgrind --tool=callgrind --instr-atstart=no`) validates both
sides as the timed run does, then switches callgrind's instrumentation on around exactly one
pass per side and direction and dumps the counters under the label
`rzbench-ab:<result index>:<a|b>:<compress|decompress>` (side a: ROOT's layer, side b: the
candidate's). The counts are deterministic: the same binaries on the same buffers give the same
instructions whatever else the machine runs. No cache simulation: instructions (Ir) only.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

_LABEL = re.compile(
    r"^desc: Trigger: Client Request: rzbench-ab:(\d+):(a|b):(compress|decompress)$")

# (result index, side, operation) -> instructions of that one pass
Counts = dict[tuple[int, str, str], int]


class CountingUnavailable(ValueError):
    """valgrind is not installed: counting cannot run (bad input for `--count`)."""


def valgrind_binary() -> str:
    path = shutil.which("valgrind")
    if path is None:
        raise CountingUnavailable("--count needs valgrind (callgrind) to count instructions: "
                                  "install it (Debian: apt-get install valgrind) or run "
                                  "without --count")
    return path


def callgrind_command(valgrind: str, dumps: Path) -> list[str]:
    """The valgrind prefix of a counted `rzbench ab --count` (one dump file per region)."""
    return [valgrind, "--tool=callgrind", "--instr-atstart=no", "--dump-line=no",
            "--compress-strings=no", f"--callgrind-out-file={dumps / 'callgrind.out'}"]


def parse_dump(text: str) -> tuple[int, str, str, int] | None:
    """(result index, side, operation, instructions) of one callgrind dump; None for any other
    dump (the one callgrind writes at exit)."""
    label: tuple[int, str, str] | None = None
    names: list[str] = []
    for line in text.splitlines():
        match = _LABEL.match(line)
        if match:
            label = (int(match.group(1)), match.group(2), match.group(3))
        elif line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith("summary:") and label is not None:
            values = dict(zip(names, (int(v) for v in line.split()[1:]), strict=False))
            if "Ir" not in values:
                raise ValueError("callgrind dump without the Ir event")
            return label[0], label[1], label[2], values["Ir"]
    return None


def read_counts(directory: Path) -> Counts:
    counts: Counts = {}
    for path in sorted(directory.glob("callgrind.out*")):
        parsed = parse_dump(path.read_text(errors="replace"))
        if parsed is not None:
            counts[parsed[:3]] = parsed[3]
    return counts


def per_mb(instructions: int, uncompressed_bytes: int) -> float:
    """Instructions per MB (10^6 bytes) of uncompressed input, the document's unit."""
    if uncompressed_bytes <= 0:
        raise ValueError("no uncompressed bytes to count per MB")
    return instructions / (uncompressed_bytes / 1e6)
