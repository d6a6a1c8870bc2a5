"""`basketbench advise FILE.root`: measure the settings that matter on a file and recommend one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn
from rich.table import Table

from basketbench.cli.options import advise_setting_list, preconditioner_list
from basketbench.measure.advise.advisor import (
    DEFAULT_SETTINGS,
    STAGES,
    AdviseError,
    AdviseOptions,
    advise,
)
from basketbench.measure.advise.ranking import CostModel
from basketbench.measure.rootio.extract import ExtractionError
from basketbench.measure.rzbench.runner import RzbenchNotFound
from basketbench.measure.rzbench.tables import console

_DEFAULT = CostModel()
_DEFAULT_SETTINGS = ",".join(map(str, DEFAULT_SETTINGS))


def advise_command(
    file: Path = typer.Argument(..., help="A ROOT file with TTrees (read with uproot)."),
    json_out: Path | None = typer.Option(
        None, "--json", help="Write the full advice as JSON here."
    ),
    settings: str = typer.Option(
        _DEFAULT_SETTINGS,
        help="Settings to measure (algorithm*100+level).",
    ),
    preconditioners: str = typer.Option("none", help="Preconditioners: none, shuffle, bitshuffle."),
    storage_per_tb_month: float = typer.Option(
        _DEFAULT.storage_per_tb_month, help="Storage price per decimal TB per month."
    ),
    months: float = typer.Option(_DEFAULT.months, help="Months the file is kept."),
    cpu_per_core_hour: float = typer.Option(
        _DEFAULT.cpu_per_core_hour, help="Price of a core-hour."
    ),
    reads_per_file: float = typer.Option(_DEFAULT.reads_per_file, help="Full reads of the file."),
    writes_per_file: float = typer.Option(_DEFAULT.writes_per_file, help="Writes of the file."),
    network_mb_per_s: float = typer.Option(
        _DEFAULT.network_mb_per_s, help="Bandwidth between storage and core, decimal MB/s."
    ),
    speed_sample_mb: float = typer.Option(
        8.0, help="Speeds are measured on every k-th basket, at most this many MB."
    ),
    branches: int = typer.Option(15, help="Branches to list in the table (largest first)."),
) -> None:
    """Extract FILE's baskets, measure every setting (exact sizes per branch, speeds on a
    sample), rank the settings by total cost (storage + write + N reads, Squash's transfer +
    processing model), per file, per type class and per branch. Defaults are shown below."""
    try:
        model = CostModel(
            storage_per_tb_month=storage_per_tb_month,
            months=months,
            cpu_per_core_hour=cpu_per_core_hour,
            reads_per_file=reads_per_file,
            writes_per_file=writes_per_file,
            network_mb_per_s=network_mb_per_s,
        )
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if not file.is_file():
        raise typer.BadParameter(f"{file}: no such file", param_hint="FILE")
    if not speed_sample_mb > 0:
        raise typer.BadParameter("must be > 0", param_hint="--speed-sample-mb")
    options = AdviseOptions(
        settings=advise_setting_list(settings, "--settings"),
        preconditioners=preconditioner_list(preconditioners, "--preconditioners"),
        model=model,
        speed_sample_mb=speed_sample_mb,
    )
    err = console(stderr=True)
    with Progress(
        TextColumn("{task.description:>8}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total}"),
        TimeElapsedColumn(),
        console=err,
        transient=False,
    ) as bar:
        tasks: dict[str, TaskID] = {s: bar.add_task(s, total=None) for s in STAGES}

        def step(stage: str, done: int, total: int) -> None:
            bar.update(tasks[stage], completed=done, total=total)

        try:
            doc = advise(file, options, step)
        except (AdviseError, ExtractionError, RzbenchNotFound) as exc:
            err.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(2) from exc
    if json_out is not None:
        json_out.write_text(json.dumps(doc, indent=2) + "\n")
    _print(doc, branches)


def _print(doc: dict[str, Any], branches: int) -> None:
    out = console()
    table = Table(title=f"{doc['file']}: {doc['raw_bytes']:,} bytes uncompressed")
    for col in (
        "rank",
        "setting",
        "compressed bytes",
        "ratio",
        "comp MB/s",
        "decomp MB/s",
        "total cost",
        "Pareto",
    ):
        table.add_column(col, justify="right")
    for r in doc["ranking"]:
        table.add_row(
            str(r["rank"]),
            r["label"],
            f"{r['compressed_bytes']:,}",
            f"{r['ratio']:.3f}",
            f"{r['compress_mb_s']:.1f}",
            f"{r['decompress_mb_s']:.1f}",
            f"{r['cost_total']:.3g}",
            "yes" if r["pareto"] else "",
        )
    out.print(table)
    out.print(f"[bold]file:[/bold] {doc['summary']}", highlight=False)
    for g in doc["type_classes"]:
        out.print(
            f"  {g['key']:>8} ({100 * g['share']:.1f} % of bytes): {g['summary']}", highlight=False
        )
    biggest = sorted(doc["branches"], key=lambda g: -g["raw_bytes"])[:branches]
    for g in biggest:
        out.print(f"  {g['key']} ({100 * g['share']:.1f} %): {g['recommended']}", highlight=False)
