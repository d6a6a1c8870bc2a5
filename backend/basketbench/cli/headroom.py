"""`basketbench headroom`: what ROOT's framing costs against the bare codec library, per
setting, on the same buffers (measure/headroom, docs/perf/headroom.md).

Exit codes: 0 ok; 1 a round trip failed or the measurement failed; 2 bad input (missing file,
not a ROOT file or corpus, unknown synthetic dataset, bad settings), with the reason on stderr.
"""

from __future__ import annotations

from pathlib import Path

import typer

from basketbench.cli.options import UsageError, fail, fail_on_roundtrips, int_list, write_json
from basketbench.measure.headroom import (
    DEFAULT_PAIRS,
    DEFAULT_SETTINGS,
    DEFAULT_TARGET_MS,
    HeadroomError,
    HeadroomInputError,
    headroom_markdown,
    headroom_table,
    run_headroom,
)
from basketbench.measure.rzbench.tables import console


def headroom_command(
    source: Path | None = typer.Argument(
        None, help="A ROOT file (.root, its baskets are extracted) or a corpus (.bbc).",
        show_default=False),
    synthetic: str | None = typer.Option(
        None, "--synthetic", help="A synthetic dataset of rzbench's generators instead of a file."),
    layer: str = typer.Option("host", help="The framed path: host (the RZip.h linked into "
                              "rzbench) or a layer shared object (a build's layer/libbbzip.so)."),
    settings: str = typer.Option(",".join(map(str, DEFAULT_SETTINGS)),
                                 help="Compression settings, algorithm*100+level."),
    pairs: int = typer.Option(DEFAULT_PAIRS, min=1, help="Interleaved slots per setting and "
                              "direction (each times all three paths)."),
    target_ms: float = typer.Option(DEFAULT_TARGET_MS, min=0.1,
                                    help="CPU time of one repetition, ms."),
    instructions: bool = typer.Option(True, "--instructions/--no-instructions",
                                      help="Also count instructions per pass under callgrind."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the headroom document here."),
    markdown_out: Path | None = typer.Option(
        None, "--markdown", help="Also write the table as Markdown (docs/perf/headroom.md)."),
) -> None:
    """Time ROOT's framed compression and decompression against the bare library (a fresh and
    a reused context) interleaved in one process, check that both write the same bytes, and
    split the gap by instructions into context set-up and framing."""
    try:
        chosen = int_list(settings, "settings", minimum=1)
    except UsageError as exc:
        raise fail(str(exc), 2) from exc
    say = lambda m: console(stderr=True).print(m, highlight=False)  # noqa: E731
    try:
        with console(stderr=True).status("measuring framed against bare"):
            doc = run_headroom(source, synthetic, chosen, layer=layer, pairs=pairs,
                               target_ms=target_ms, instructions=instructions, say=say)
    except HeadroomInputError as exc:
        raise fail(str(exc), 2) from exc
    except HeadroomError as exc:
        raise fail(str(exc), 1) from exc
    if json_out:
        write_json(json_out, doc)
    if markdown_out:
        markdown_out.write_text(headroom_markdown(doc))
    console().print(headroom_table(doc))
    start, end = doc["load"]["loadavg_start"][0], doc["load"]["loadavg_end"][0]
    fmt = lambda v: "?" if v is None else f"{v:.2f}"  # noqa: E731
    console().print(f"load average {fmt(start)} -> {fmt(end)}; disturbed repetitions "
                    f"{doc['disturbed_fraction']:.1%}", highlight=False)
    if json_out:
        console().print(f"headroom document: {json_out}", highlight=False)
    fail_on_roundtrips(doc["results"], lambda r: f"{r['dataset']} {r['setting']}")
