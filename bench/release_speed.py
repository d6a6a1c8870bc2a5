"""Two ROOT releases' own compression code, compared by instruction counts and interleaved wall
clock (issue 9: "LZMA decompression 1.7x faster in 6.40").

    .venv/bin/python -m bench.release_speed --old 6.38.00 --new 6.40.00 \\
        --records /tmp/release-speed.jsonl --markdown /tmp/release-speed.md

Each release's rzbench (downloaded and built once by `basketbench run --root-release`) runs over
the baskets of real ROOT files (`--root-file`, default: HZZ, CMS NanoAOD and ATLAS PHYSLITE from
../shared/data/root-files, extracted with `basketbench corpus extract`'s code).

1. instructions: one callgrind run per release x setting x corpus (`--instructions`);
   instructions and simulated branch mispredictions of the timed pass, per uncompressed byte
   (basketbench.measure.realroot.release_speed says exactly what is counted). Deterministic: the
   machine's load does not change them. Results are appended to `--records` as they come, and a
   later run reuses them (delete the file to measure again).
2. wall clock (`--pairs N`, 0 = skip): N pairs of processes, old then new, each measuring every
   setting on every corpus; the ratio of the pair's medians, then the median and range over
   pairs, beside the load average.

Prints a Markdown report (also written to `--markdown`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # `python bench/release_speed.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from basketbench.measure.paths import repo_root
from basketbench.measure.realroot import release_speed as speed
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.rootio.extract import extract_corpus

DEFAULT_FILES = ("uproot-HZZ-uncompressed.root", "nanoAOD_2015_CMS_Open_Data_ttbar.root",
                 "atlas-DAOD_PHYSLITE-sample.root")
# LZMA (the question), ZSTD and LZ4 (other codecs the release update changed), ZLIB (control:
# the host's libz in both releases, so equal counts are expected)
DEFAULT_SETTINGS = "201,204,207,209,101,404,505,509,401,409,501,202,203,205,206,208,106"


def parse_settings(text: str) -> list[int]:
    try:
        values = [int(s) for s in text.split(",") if s.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"settings must be integers: {text!r}") from exc
    bad = [v for v in values if v // 100 not in (1, 2, 4, 5) or not 1 <= v % 100 <= 9]
    if not values or bad:
        raise argparse.ArgumentTypeError(f"settings must be 101-109, 201-209, 401-409 or "
                                         f"501-509: {text!r}")
    return values


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def corpora_for(files: list[Path], into: Path) -> list[Path]:
    out = []
    for path in files:
        if not path.is_file():
            raise SystemExit(f"release_speed: {path} does not exist")
        corpus = into / f"{path.stem}.bbc"
        if not corpus.is_file():
            extract_corpus([path], corpus, path.stem)
        out.append(corpus)
    return out


# --- 1. instructions, with a resumable record file ---------------------------------------------


def _key(release: str, dataset: str, setting: int) -> str:
    return f"{release}|{dataset}|{setting}"


def load_records(path: Path | None) -> dict[str, speed.PassInstructions]:
    records: dict[str, speed.PassInstructions] = {}
    if path and path.is_file():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                records[row["key"]] = speed.PassInstructions(**row["value"])
    return records


def measure_instructions(
    binaries: dict[str, Path], corpora: list[Path], settings: list[int], jobs: int,
    records_path: Path | None, branch_sim: bool,
) -> dict[str, speed.PassInstructions]:
    records = load_records(records_path)
    # setting by setting, in the order given: the first settings are complete first
    todo = [(rel, corpus, s) for s in settings for corpus in corpora for rel in binaries
            if _key(rel, corpus.stem, s) not in records]
    say(f"instructions: {len(todo)} callgrind runs to do, {len(records)} reused")

    def one(item: tuple[str, Path, int]) -> tuple[str, speed.PassInstructions]:
        rel, corpus, setting = item
        result = speed.count_instructions(binaries[rel], corpus, setting, branch_sim=branch_sim)
        return _key(rel, result.dataset, setting), result

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for n, (key, result) in enumerate(pool.map(one, todo), 1):
            records[key] = result
            if records_path:
                with records_path.open("a") as fh:
                    fh.write(json.dumps({"key": key, "value": asdict(result)}) + "\n")
            say(f"  [{n}/{len(todo)}] {key}: compress {result.compress_per_byte:.1f}, "
                f"decompress {result.decompress_per_byte:.2f} instructions/byte")
    return records


def instruction_pairs(
    records: dict[str, speed.PassInstructions], old: str, new: str, corpora: list[Path],
    settings: list[int],
) -> list[tuple[speed.PassInstructions, speed.PassInstructions]]:
    return [(records[_key(old, c.stem, s)], records[_key(new, c.stem, s)])
            for c in corpora for s in sorted(settings)]


# --- report --------------------------------------------------------------------------------------


def machine_line() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


def report(old: str, new: str, codecs: dict[str, Any],
           pairs: list[tuple[speed.PassInstructions, speed.PassInstructions]],
           wall: speed.Interleaved | None, load: tuple[float, float]) -> str:
    lines = [f"# ROOT {old} vs {new}: instructions and interleaved wall clock", "",
             f"- date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; machine: {machine_line()}",
             f"- load average (1 min) at start / end: {load[0]:.2f} / {load[1]:.2f}"]
    for rel in (old, new):
        libs = codecs.get(rel, {}).get("libraries", {})
        lines.append(f"- ROOT {rel} codecs: " + ", ".join(f"{k} {v}" for k, v in
                                                           sorted(libs.items())))
    if pairs:
        lines += ["", "## Instructions per uncompressed byte (callgrind, timed pass)", "",
                  speed.instructions_table(old, new, pairs)]
        if all("Bcm" in a.decompress and "Bcm" in b.decompress for a, b in pairs):
            lines += ["", "## Decompression: conditional branches and simulated mispredictions "
                      "per uncompressed byte (callgrind --branch-sim=yes)", "",
                      speed.branch_table(old, new, pairs)]
    if wall is not None:
        lines += ["", "## Wall clock, interleaved (old, new, old, new, ...)", "",
                  speed.wall_table(wall)]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", default="6.38.00", help="ROOT release (default 6.38.00)")
    ap.add_argument("--new", default="6.40.00", help="ROOT release (default 6.40.00)")
    ap.add_argument("--root-file", type=Path, action="append",
                    help="ROOT file whose baskets are measured (repeatable); default: HZZ, "
                         "NanoAOD and PHYSLITE from ../shared/data/root-files")
    ap.add_argument("--settings", type=parse_settings, default=parse_settings(DEFAULT_SETTINGS),
                    help=f"default {DEFAULT_SETTINGS}")
    ap.add_argument("--no-instructions", action="store_true", help="skip callgrind")
    ap.add_argument("--no-branch-sim", action="store_true",
                    help="callgrind without branch simulation (a little faster)")
    ap.add_argument("--jobs", type=int, default=1, help="parallel callgrind runs (default 1)")
    ap.add_argument("--records", type=Path, help="JSON lines of instruction counts: appended "
                    "to as they come, reused by the next run")
    ap.add_argument("--pairs", type=int, default=5, help="wall-clock pairs (0 = skip; default 5)")
    ap.add_argument("--wall-settings", type=parse_settings,
                    help="settings of the wall-clock runs (default: --settings)")
    ap.add_argument("--min-samples", type=int, default=5, help="rzbench samples per run")
    ap.add_argument("--target-ms", type=float, default=50.0, help="rzbench sample length")
    ap.add_argument("--markdown", type=Path, help="also write the report here")
    args = ap.parse_args(argv)
    if args.jobs < 1 or args.pairs < 0 or args.min_samples < 1 or args.target_ms < 0:
        ap.error("--jobs >= 1, --pairs >= 0, --min-samples >= 1, --target-ms >= 0")

    try:
        old_rel, old_bin = root_release.release_rzbench(args.old, say=say)
        new_rel, new_bin = root_release.release_rzbench(args.new, say=say)
    except root_release.RootReleaseError as exc:
        ap.exit(2, f"release_speed: {exc}\n")
    old, new = old_rel.version, new_rel.version
    if old == new:
        ap.error("--old and --new name the same release")
    binaries = {old: old_bin, new: new_bin}
    files = args.root_file or [repo_root().parent / "shared" / "data" / "root-files" / f
                               for f in DEFAULT_FILES]
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="release-speed-corpora-") as tmp:
        corpora = corpora_for(files, Path(tmp))
        pairs: list[tuple[speed.PassInstructions, speed.PassInstructions]] = []
        if not args.no_instructions:
            records = measure_instructions(binaries, corpora, args.settings, args.jobs,
                                           args.records, not args.no_branch_sim)
            pairs = instruction_pairs(records, old, new, corpora, args.settings)
        wall = None
        if args.pairs:
            wall = speed.interleave((old, old_bin), (new, new_bin), corpora,
                                    args.wall_settings or args.settings, args.pairs,
                                    args.min_samples, args.target_ms, say)
    codecs = {rel: speed.codec_info(binary) for rel, binary in binaries.items()}
    text = report(old, new, codecs, pairs, wall, (load_start, os.getloadavg()[0]))
    print(text)
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
