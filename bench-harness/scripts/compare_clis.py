#!/usr/bin/env python3
"""Compare rzbench's ZSTD/LZ4 speeds with `zstd -b` and `lz4 -b` on the same bytes.

The corpus's baskets are concatenated and cut into blocks of exactly --block bytes; rzbench
measures a corpus made of those blocks, and the CLIs benchmark the concatenated file with -B
(independent blocks of that size), so both compress identical buffers. ROOT level L maps to
zstd level 2L and LZ4 level L (L >= 4: LZ4HC), see ../README.md.

    scripts/compare_clis.py --rzbench build/rzbench --corpus event.bbc --runs 3 --out table.md
"""
from __future__ import annotations

import argparse
import json
import re
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

PAIRS = [  # ROOT setting, CLI, CLI level
    (401, "lz4", 1),
    (404, "lz4", 4),
    (501, "zstd", 2),
    (503, "zstd", 6),
    (505, "zstd", 10),
]
SPEED = re.compile(r"->\s*(\d+)\s*\(x?([\d.]+)\),\s*([\d.]+)\s*MB/s\s*,?\s*([\d.]+)\s*MB/s")


def read_raw(corpus: Path) -> bytes:
    data = corpus.read_bytes()
    if data[:8] != b"BBCORPUS":
        sys.exit(f"{corpus}: not a corpus file")
    (hlen,) = struct.unpack_from("<Q", data, 12)
    header = json.loads(data[20 : 20 + hlen])
    payload = data[20 + hlen :]
    return b"".join(payload[o : o + n] for o, n in (b["raw"] for b in header["baskets"]))


def write_block_corpus(raw: bytes, block: int, path: Path) -> None:
    """A corpus of fixed-size baskets (the last one shorter), element size 1."""
    baskets = []
    for i, start in enumerate(range(0, len(raw), block)):
        size = min(block, len(raw) - start)
        baskets.append({
            "file": 0, "tree": "T", "branch": "concat", "basket": i, "element_size": 1,
            "entries": 1, "data_bytes": size, "entry_offsets": None, "raw": [start, size],
            "raw_xxh64": None, "root_compressed": None, "root_compressed_bytes": 0,
        })
    header = json.dumps({
        "format": "basketbench-corpus", "format_version": 1, "name": f"blocks{block}",
        "created_by": "compare_clis.py", "payload_len": len(raw),
        "files": [{"path": "concat", "fcompress": 0, "sha256": ""}], "baskets": baskets,
    }).encode()
    path.write_bytes(b"BBCORPUS" + struct.pack("<IQ", 1, len(header)) + header + raw)


def run_cli(tool: str, level: int, block: int, seconds: int, file: Path) -> tuple[float, ...]:
    """(ratio, compress MB/s, decompress MB/s) as the CLI reports them."""
    cmd = [tool, f"-b{level}", f"-i{seconds}", f"-B{block}", str(file)]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    for line in reversed((out.stdout + out.stderr).replace("\r", "\n").splitlines()):
        m = SPEED.search(line)
        if m:
            return float(m.group(2)), float(m.group(3)), float(m.group(4))
    raise RuntimeError(f"cannot parse the output of {' '.join(cmd)}")


def run_rzbench(rzbench: Path, corpus: Path, samples: int, out: Path) -> list[dict[str, Any]]:
    settings = ",".join(str(s) for s, _, _ in PAIRS)
    cmd = [str(rzbench), "bench", "--corpus", str(corpus), "--settings", settings,
           "--min-samples", str(samples), "--json", str(out), "--quiet"]
    subprocess.run(cmd, check=True)
    results: list[dict[str, Any]] = json.loads(out.read_text())["results"]
    return results


Results = dict[int, list[dict[str, Any]]]
CliResults = dict[int, list[tuple[float, ...]]]


def table(rz: Results, cli: CliResults) -> list[str]:
    def speed(rows: list[dict[str, Any]], key: str) -> str:
        median = max(r[key]["median"] for r in rows)
        best = max(r[key]["max"] for r in rows)
        cv = statistics.median(r[key]["cv"] for r in rows)
        return f"{median:.1f} / {best:.1f} ({100 * cv:.1f}%)"

    lines = [
        "| ROOT setting | CLI | ratio rzbench / CLI | compress MB/s rzbench median / best (cv) "
        "| CLI best | Δ best | decompress MB/s rzbench median / best (cv) | CLI best | Δ best |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for setting, tool, level in PAIRS:
        res, c = rz[setting], cli[setting]
        rc = max(r["compress_mbps"]["max"] for r in res)  # CLIs report their fastest run
        rd = max(r["decompress_mbps"]["max"] for r in res)
        cc, cd = max(x[1] for x in c), max(x[2] for x in c)
        lines.append(
            f"| {setting} | {tool} -b{level} | {res[0]['ratio']:.3f} / {c[0][0]:.3f} "
            f"| {speed(res, 'compress_mbps')} | {cc:.1f} | {100 * (rc / cc - 1):+.1f}% "
            f"| {speed(res, 'decompress_mbps')} | {cd:.1f} | {100 * (rd / cd - 1):+.1f}% |")
    if 0 in rz:
        lines.append(f"| memcpy | - | 1 | {speed(rz[0], 'compress_mbps')} | | "
                     f"| {speed(rz[0], 'decompress_mbps')} | | |")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rzbench", type=Path, required=True)
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--block", type=int, default=32000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--cli-seconds", type=int, default=3)
    ap.add_argument("--min-samples", type=int, default=15)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--write-concat", type=Path, help="also save the concatenated baskets here")
    args = ap.parse_args()

    raw = read_raw(args.corpus)
    if args.write_concat:
        args.write_concat.write_bytes(raw)
    rz: Results = {}
    cli: CliResults = {}
    with tempfile.TemporaryDirectory() as tmp:
        blocks, concat = Path(tmp) / "blocks.bbc", Path(tmp) / "concat.bin"
        write_block_corpus(raw, args.block, blocks)
        concat.write_bytes(raw)
        for run in range(args.runs):  # alternate harness and CLIs so load drifts hit both
            doc = Path(tmp) / f"run{run}.json"
            for r in run_rzbench(args.rzbench, blocks, args.min_samples, doc):
                rz.setdefault(r["setting"], []).append(r)
            for setting, tool, level in PAIRS:
                cli.setdefault(setting, []).append(
                    run_cli(tool, level, args.block, args.cli_seconds, concat))
            print(f"run {run + 1}/{args.runs} done", file=sys.stderr)

    nblocks = (len(raw) + args.block - 1) // args.block
    head = (f"{len(raw)} bytes in {nblocks} blocks of {args.block}; {args.runs} runs of rzbench "
            f"({args.min_samples} samples each: best run's median / best sample, cv: median over "
            f"runs) alternating with the CLIs (-i{args.cli_seconds}; best over runs); "
            f"Δ compares best with best")
    text = "\n".join([head, "", *table(rz, cli)]) + "\n"
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
