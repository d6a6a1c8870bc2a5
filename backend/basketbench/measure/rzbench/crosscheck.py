"""Cross-check rzbench's codec layer against ROOT's own output on real files.

For each ROOT file: extract a corpus, run `rzbench verify` (decode every
compressed basket byte-exactly, recompress each at its own setting) and
compare the total compressed size with what ROOT stored. Each basket is recompressed at the
setting ROOT wrote it with: its branch's own when the branch has one, else the file's.

    python -m basketbench.measure.rzbench.crosscheck [FILE.root ...] [--markdown OUT.md]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rootio.root_files import default_root_files
from basketbench.measure.rzbench.runner import locate_rzbench, run_verify


@dataclass
class CrossCheckRow:
    file: str
    fcompress: int
    baskets: int
    compressed_baskets: int
    decoded_ok: int
    unsupported: int
    failures: list[dict[str, Any]]
    root_compressed_bytes: int
    recompressed_bytes: int | None  # None: a setting this backend cannot write (old CS)
    exit_code: int
    recompressed_settings: dict[int, int] = field(default_factory=dict)  # setting -> baskets

    @property
    def size_ratio(self) -> float | None:
        """Our recompressed total / ROOT's total (1.0 = identical size)."""
        if self.recompressed_bytes is None:
            return None
        return (
            self.recompressed_bytes / self.root_compressed_bytes
            if self.root_compressed_bytes
            else 1.0
        )


def crosscheck_file(path: Path, workdir: Path, binary: Path | None = None) -> CrossCheckRow:
    """Raises ExtractionError when the file has no TTree baskets at all."""
    corpus = workdir / f"{path.stem}.bbc"
    summary = extract_corpus([path], corpus, path.stem)
    code, report = run_verify(corpus, binary=binary)
    files = report.get("files", [])
    root_bytes = sum(int(f["root_compressed_bytes"]) for f in files)
    written = [f["recompressed_bytes"] for f in files]
    ours = None if None in written else sum(int(n) for n in written)
    settings: dict[int, int] = {}
    for f in files:
        for setting, count in f.get("recompressed_settings", {}).items():
            settings[int(setting)] = settings.get(int(setting), 0) + int(count)
    return CrossCheckRow(
        file=path.name,
        fcompress=summary.files[0].fcompress,
        baskets=summary.baskets,
        compressed_baskets=summary.files[0].compressed_baskets,
        decoded_ok=int(report["decoded_ok"]),
        unsupported=len(report.get("unsupported", [])),
        failures=list(report.get("failures", [])),
        root_compressed_bytes=root_bytes,
        recompressed_bytes=ours,
        exit_code=code,
        recompressed_settings=settings,
    )


def crosscheck(paths: Iterable[Path], binary: Path | None = None) -> list[CrossCheckRow]:
    binary = binary or locate_rzbench()
    with tempfile.TemporaryDirectory(prefix="bb-crosscheck-") as tmp:
        return [crosscheck_file(Path(p), Path(tmp), binary) for p in paths]


def markdown_table(rows: list[CrossCheckRow]) -> str:
    lines = [
        "| file | fCompress | recompressed at | baskets | compressed by ROOT | "
        "decoded byte-exactly | unsupported | failures | ROOT bytes | rzbench bytes | "
        "rzbench / ROOT | difference |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        at = ", ".join(f"{s} ({n})" for s, n in sorted(r.recompressed_settings.items())) or "-"
        ours, ratio = r.recompressed_bytes, r.size_ratio
        lines.append(
            f"| {r.file} | {r.fcompress} | {at} | {r.baskets} | {r.compressed_baskets} | "
            f"{r.decoded_ok} | {r.unsupported} | {len(r.failures)} | "
            f"{r.root_compressed_bytes:,} | {'-' if ours is None else f'{ours:,}'} | "
            f"{'-' if ratio is None else f'{ratio:.4f}'} | "
            f"{'-' if ratio is None else f'{100 * (ratio - 1):+.3f} %'} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "files", nargs="*", type=Path, help="ROOT files (default: the real test files)"
    )
    parser.add_argument("--markdown", type=Path, help="write the table here too")
    args = parser.parse_args(argv)
    paths = args.files or default_root_files()
    rows = crosscheck(paths)
    table = markdown_table(rows)
    sys.stdout.write(table)
    if args.markdown:
        args.markdown.write_text(table)
    return 1 if any(r.failures for r in rows) else 0


if __name__ == "__main__":
    raise SystemExit(main())
