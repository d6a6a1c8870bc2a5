"""Running `rzbench headroom`: the timed run (three paths interleaved on the thread's CPU
clock) and, when valgrind is installed, the counted run (one pass of each path under
callgrind), merged into a basketbench-headroom-v1 document (document.py).

The input is a corpus (*.bbc), a ROOT file (extracted to a temporary corpus first) or a
synthetic dataset of rzbench's generators.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from basketbench.measure.headroom.document import (
    Counts,
    HeadroomDocumentError,
    build_document,
    counts_matching,
    parse_callgrind_dump,
)
from basketbench.measure.rootio.extract import ExtractionError, extract_corpus
from basketbench.measure.rzbench.runner import Launcher, RzbenchNotFound, locate_rzbench

# ZLIB, LZMA, LZ4 (fast and HC) and ZSTD at low, middle and high levels.
DEFAULT_SETTINGS = (101, 106, 109, 201, 206, 401, 404, 409, 501, 505, 509)
DEFAULT_PAIRS = 31
DEFAULT_TARGET_MS = 40.0
_USAGE = 2  # rzbench's exit code for bad input

Say = Callable[[str], None]


class HeadroomInputError(ValueError):
    """Bad input (missing or unreadable file, unknown synthetic dataset, bad settings): exit 2."""


class HeadroomError(RuntimeError):
    """The measurement failed (rzbench crashed, statistics did not verify, valgrind failed)."""


def _quiet(_message: str) -> None:
    return None


def check_settings(settings: Sequence[int]) -> list[int]:
    out = []
    for s in settings:
        algorithm, level = divmod(int(s), 100)
        if algorithm not in (1, 2, 4, 5) or not 1 <= level <= 9:
            raise HeadroomInputError(
                f"setting {s}: headroom compares ZLIB (1xx), LZMA (2xx), LZ4 (4xx) and ZSTD "
                "(5xx) at level 1..9 with their bare library")
        out.append(int(s))
    if not out:
        raise HeadroomInputError("no settings to measure")
    return out


def _load() -> list[float | None]:
    try:
        return [float(v) for v in os.getloadavg()]
    except OSError:
        return [None, None, None]


def _rzbench(cmd: list[str], out: Path, what: str) -> dict[str, Any]:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode == _USAGE:
        lines = [ln for ln in done.stderr.strip().splitlines() if not ln.startswith("==")]
        raise HeadroomInputError(lines[0].removeprefix("rzbench: ") if lines
                                 else "rzbench headroom refused its input")
    if done.returncode not in (0, 1) or not out.is_file():
        raise HeadroomError(f"{what} failed (exit {done.returncode}): "
                            f"{done.stderr.strip()[-800:]}")
    try:
        data: dict[str, Any] = json.loads(out.read_text())
    except json.JSONDecodeError as exc:
        raise HeadroomError(f"{what} wrote invalid JSON: {exc}") from exc
    return data


def valgrind_version(valgrind: str) -> str:
    done = subprocess.run([valgrind, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "valgrind"


def read_counts(directory: Path) -> Counts:
    counts: Counts = {}
    for path in sorted(directory.glob("callgrind.out*")):
        parsed = parse_callgrind_dump(path.read_text(errors="replace"))
        if parsed is not None:
            counts[(parsed[0], parsed[1], parsed[2])] = parsed[3]
    return counts


def _inputs(source: Path | None, synthetic: str | None, tmp: Path, say: Say) -> list[str]:
    if (source is None) == (synthetic is None):
        raise HeadroomInputError("give either a file (FILE.root or FILE.bbc) or --synthetic NAME")
    if synthetic is not None:
        return ["--synthetic", synthetic]
    assert source is not None
    if not source.is_file():
        raise HeadroomInputError(f"{source.name}: no such file")
    if source.suffix == ".bbc":
        return ["--corpus", str(source)]
    if source.suffix != ".root":
        raise HeadroomInputError(f"{source.name}: expected a ROOT file (.root) or a corpus (.bbc)")
    corpus = tmp / f"{source.stem}.bbc"
    say(f"extracting the baskets of {source.name}")
    try:
        extract_corpus([source], corpus, source.stem)
    except ExtractionError as exc:
        raise HeadroomInputError(f"{source.name}: {str(exc).splitlines()[0]}") from exc
    except Exception as exc:  # uproot's own errors for files that are not ROOT files
        raise HeadroomInputError(f"{source.name}: not a readable ROOT file ({type(exc).__name__})"
                                 ) from exc
    return ["--corpus", str(corpus)]


def run_headroom(
    source: Path | None = None,
    synthetic: str | None = None,
    settings: Sequence[int] = DEFAULT_SETTINGS,
    *,
    layer: str = "host",
    pairs: int = DEFAULT_PAIRS,
    target_ms: float = DEFAULT_TARGET_MS,
    instructions: bool = True,
    rzbench: Path | None = None,
    launcher: Launcher | None = None,
    scratch: Path | None = None,
    say: Say = _quiet,
) -> dict[str, Any]:
    """The headroom document of `source` (a .root or .bbc file) or of the synthetic dataset
    `synthetic`; the framed path is `layer`: "host" (the RZip.h linked into rzbench) or a
    layer shared object (a per-commit build's layer/libbbzip.so). With `instructions` the
    counted run needs valgrind (HeadroomInputError when it is missing). With a `launcher` (a
    worker's sandbox) rzbench runs through it, writing only into a temporary folder under
    `scratch`."""
    if pairs < 1:
        raise HeadroomInputError(f"pairs must be >= 1, got {pairs}")
    if not target_ms > 0:
        raise HeadroomInputError(f"target_ms must be > 0, got {target_ms}")
    chosen = check_settings(settings)
    if layer != "host" and not Path(layer).is_file():
        raise HeadroomInputError(f"layer {Path(layer).name}: no such file")
    valgrind = shutil.which("valgrind") if instructions else None
    if instructions and valgrind is None:
        raise HeadroomInputError("valgrind not found: install it to count instructions, or "
                                 "measure without them")
    try:
        binary = rzbench or locate_rzbench()
    except RzbenchNotFound as exc:
        raise HeadroomInputError(str(exc)) from exc
    with tempfile.TemporaryDirectory(prefix="basketbench-headroom-", dir=scratch) as name:
        tmp = Path(name)
        data = _inputs(source, synthetic, tmp, say)
        common = [str(binary), "headroom", "--layer", layer, *data,
                  "--settings", ",".join(map(str, chosen))]
        timed_out = tmp / "timed.json"
        cmd = [*common, "--pairs", str(pairs), "--target-ms", f"{target_ms:g}",
               "--json", str(timed_out)]
        say(f"timing framed, bare_fresh and bare_reused interleaved: settings "
            f"{','.join(map(str, chosen))}, {pairs} slots each")
        start = _load()
        timed = _rzbench(launcher(cmd, [tmp]) if launcher else cmd, timed_out, "rzbench headroom")
        end = _load()
        counts: Counts | None = None
        version = None
        if valgrind is not None:
            say("counting instructions of one pass per path under callgrind")
            counted_out, dumps = tmp / "counted.json", tmp / "callgrind"
            dumps.mkdir()
            cmd = [valgrind, "--tool=callgrind", "--instr-atstart=no", "--dump-line=no",
                   "--compress-strings=no", f"--callgrind-out-file={dumps / 'callgrind.out'}",
                   *common, "--count", "--json", str(counted_out)]
            counted = _rzbench(launcher(cmd, [tmp]) if launcher else cmd, counted_out,
                               "rzbench headroom --count under valgrind")
            try:
                counts_matching(counted, timed)
            except HeadroomDocumentError as exc:
                raise HeadroomError(str(exc)) from exc
            counts = read_counts(dumps)
            version = valgrind_version(valgrind)
        try:
            return build_document(timed, counts, load_start=start, load_end=end,
                                  valgrind=version)
        except (HeadroomDocumentError, KeyError, TypeError) as exc:
            raise HeadroomError(f"rzbench headroom's output does not verify: {exc}") from exc
