"""`basketbench ab`: two builds' compression layers measured interleaved in one rzbench process
(issue 32; measure/ab/run.py, docs/perf/ab.md).

Exit codes: 0 ok; 1 a round trip failed or the measurement failed; 2 bad input (unknown
release, missing layer, empty corpus, bad settings), with the reason on stderr.
"""

from __future__ import annotations

from pathlib import Path

import typer

from basketbench.cli.options import UsageError, fail, fail_on_roundtrips, int_list, write_json
from basketbench.measure.ab import (
    DEFAULT_PAIRS,
    DEFAULT_SETTINGS,
    DEFAULT_TARGET_MS,
    ABError,
    ABInputError,
    run_ab,
)
from basketbench.measure.rzbench.tables import ab_table, console

BUILD_HELP = ("host (rzbench's own layer), release:X.YY.ZZ (a ROOT release's libCore) or a "
              "build directory holding layer/libbbzip.so")


def ab_command(
    a: str = typer.Option(..., "--a", help="Reference build A: " + BUILD_HELP),
    b: str = typer.Option(..., "--b", help="Build B, compared with A: " + BUILD_HELP),
    corpus: Path = typer.Option(..., "--corpus", help="A corpus file (*.bbc) or a folder of them."),
    settings: str = typer.Option(",".join(map(str, DEFAULT_SETTINGS)),
                                 help="Compression settings, algorithm*100+level."),
    pairs: int = typer.Option(DEFAULT_PAIRS, min=1,
                              help="Pairs per dataset, setting and direction."),
    target_ms: float = typer.Option(DEFAULT_TARGET_MS, min=0.1,
                                    help="CPU time of one repetition, ms."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the A/B document here."),
    raw_out: Path | None = typer.Option(
        None, "--raw", help="Also keep rzbench's per-pair output (times, interference) here."),
) -> None:
    """Measure build B against build A interleaved, in one process: speed ratios B/A with
    95 % intervals, disturbed pairs dropped and counted, outputs checked byte-exact."""
    try:
        chosen = int_list(settings, "settings")
    except UsageError as exc:
        raise fail(str(exc), 2) from exc
    say = lambda m: console(stderr=True).print(m, highlight=False)  # noqa: E731
    try:
        with console(stderr=True).status("measuring interleaved A/B pairs"):
            doc = run_ab(a, b, corpus, chosen, pairs=pairs, target_ms=target_ms,
                         raw_out=raw_out, say=say)
    except ABInputError as exc:
        raise fail(str(exc), 2) from exc
    except ABError as exc:
        raise fail(str(exc), 1) from exc
    if json_out:
        write_json(json_out, doc)
    console().print(ab_table(doc))
    start, end = doc["load"]["loadavg_start"], doc["load"]["loadavg_end"]
    console().print(f"load average {_fmt(start[0])} -> {_fmt(end[0])}; disturbed pairs "
                    f"{doc['disturbed_fraction']:.1%}", highlight=False)
    if json_out:
        console().print(f"A/B document: {json_out}", highlight=False)
    fail_on_roundtrips(doc["results"], lambda r: f"{r['dataset']} {r['setting']}")


def _fmt(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"
