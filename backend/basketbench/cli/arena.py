"""`basketbench arena FILE.root`: candidate codecs and level mappings measured on the file's own
buffers against ROOT's current choice (measure/arena, docs/arena.md).

Exit codes: 0 ok; 1 a round trip failed or the measurement failed; 2 bad input (no such file,
not a ROOT file, unknown candidate or level), with a one-line reason on stderr.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from basketbench.cli.options import fail, fail_on_roundtrips, write_json
from basketbench.measure.arena import (
    CANDIDATE_NAMES,
    DEFAULT_PAIRS,
    DEFAULT_TARGET_MS,
    ArenaError,
    ArenaInputError,
    run_arena,
)
from basketbench.measure.rzbench.runner import RzbenchNotFound, locate_rzbench
from basketbench.measure.rzbench.tables import console


def arena_command(
    root_file: Path = typer.Argument(..., help="A ROOT file (TTree baskets or RNTuple pages)."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the arena document here."),
    candidates: str | None = typer.Option(
        None, "--candidates",
        help="Comma-separated candidates, each optionally with levels: zstd:3/10/19 "
             f"(default: all of {', '.join(CANDIDATE_NAMES)})."),
    reference: str = typer.Option(
        "host", "--reference",
        help="ROOT's layer to compare with: host, release:X.YY.ZZ, a build directory, or "
             "candidate:NAME (another candidate of the same family, e.g. zlib-cloudflare)."),
    pairs: int = typer.Option(DEFAULT_PAIRS, min=0, help="A/B pairs per level on the whole file."),
    shape_pairs: int = typer.Option(
        0, min=0, help="A/B pairs per level and data shape (0: sizes only per shape)."),
    target_ms: float = typer.Option(DEFAULT_TARGET_MS, min=0.1,
                                    help="CPU time of one repetition, ms."),
    count: bool = typer.Option(
        False, "--count/--no-count",
        help="Also count the instructions per MB of one compress and one decompress pass of "
             "each candidate level and of ROOT's setting under valgrind's callgrind (needs "
             "valgrind; ~50x slower than one pass, so minutes with every candidate)."),
) -> None:
    """What would switching ROOT's codec or level to a candidate do on this file: sizes,
    interleaved speed ratios, round trips and whether ROOT reads the result."""
    try:
        rzbench = locate_rzbench()
    except RzbenchNotFound as exc:
        raise fail(str(exc), 2) from exc
    say = lambda m: console(stderr=True).print(m, highlight=False)  # noqa: E731
    try:
        doc = run_arena(root_file, candidates=candidates, rzbench=rzbench,
                        reference_layer=reference, pairs=pairs, shape_pairs=shape_pairs,
                        target_ms=target_ms, say=say, count=count)
    except ArenaInputError as exc:
        raise fail(str(exc), 2) from exc
    except ArenaError as exc:
        raise fail(str(exc), 1) from exc
    if json_out:
        write_json(json_out, doc)
    for r in doc["results"]:
        cr, dr = r["compress_ratio"], r["decompress_ratio"]
        console().print(
            f"{r['candidate']:>16} {r['level']:>4} vs {r['reference_setting']}: "
            f"{r['compressed_bytes']:>10} B ({r['size_change_pct']:+.2f} %), "
            f"compress x{_f(cr)}, decompress x{_f(dr)}, roundtrip "
            f"{'ok' if r['roundtrip_ok'] else 'FAILED'}, ROOT reads it: "
            f"{'yes' if r['root_readable'] else 'no'}{_instructions(r)}", highlight=False)
    start, end = doc["load"]["loadavg_start"], doc["load"]["loadavg_end"]
    console().print(f"load average {start[0]} -> {end[0]}", highlight=False)
    fail_on_roundtrips(doc["results"] + doc["shapes"],
                       lambda r: f"{r['candidate']} {r['level']}")


def _instructions(r: dict[str, Any]) -> str:
    """Counted instructions per MB, candidate / ROOT, when the run counted them."""
    parts = []
    for op in ("compress", "decompress"):
        y, x = r[f"{op}_instructions"], r[f"reference_{op}_instructions"]
        if y is not None and x is not None:
            parts.append(f"{op} {y / 1e6:.1f}M/{x / 1e6:.1f}M instr/MB")
    return (", " + ", ".join(parts)) if parts else ""


def _f(ratio: dict[str, float | None] | None) -> str:
    if ratio is None or ratio["median"] is None:
        return "-"
    return f"{ratio['median']:.3f}"
