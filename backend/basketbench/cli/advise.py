"""`basketbench advise FILE.root`: measure the settings that matter on a file and recommend one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from basketbench.cli.options import advise_setting_list, preconditioner_list
from basketbench.cli.progress import stage_progress
from basketbench.measure.advise.advisor import (
    DEFAULT_SETTINGS,
    STAGES,
    AdviseError,
    AdviseOptions,
    advise,
)
from basketbench.measure.advise.ranking import CostModel, setting_words
from basketbench.measure.advise.speed_evidence import default_history_path
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
    currency: str = typer.Option(
        "USD", help="The currency the prices are in (printed beside every cost)."
    ),
    storage_per_tb_month: float = typer.Option(
        _DEFAULT.storage_per_tb_month, help="Storage price per decimal TB per month (currency)."
    ),
    months: float = typer.Option(_DEFAULT.months, help="Months the file is kept."),
    cpu_per_core_hour: float = typer.Option(
        _DEFAULT.cpu_per_core_hour, help="Price of a core-hour (currency)."
    ),
    reads_per_file: float = typer.Option(_DEFAULT.reads_per_file, help="Full reads of the file."),
    writes_per_file: float = typer.Option(_DEFAULT.writes_per_file, help="Writes of the file."),
    network_mb_per_s: float = typer.Option(
        _DEFAULT.network_mb_per_s, help="Bandwidth between storage and core, decimal MB/s."
    ),
    speed_sample_mb: float = typer.Option(
        8.0, help="Speeds are measured on every k-th basket, at most this many MB."
    ),
    branches: int = typer.Option(
        15, help="Branches to list: those whose best setting differs from the file's first "
        "(largest saving first), then the largest."),
    speed_history: bool = typer.Option(
        True, "--speed-history/--no-speed-history",
        help="Rank with the median speeds of this build's recent runs on this machine (kept in "
        f"{default_history_path()}); --no-speed-history: this run's speeds only."),
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
        speed_history=default_history_path() if speed_history else None,
    )
    if not currency.strip() or len(currency) > 12:
        raise typer.BadParameter("give a short currency name, e.g. USD, EUR, CHF",
                                 param_hint="--currency")
    err = console(stderr=True)
    with stage_progress(err, "advise", STAGES, units={"extract": "bytes"}) as step:
        try:
            doc = advise(file, options, step)
        except (AdviseError, ExtractionError, RzbenchNotFound) as exc:
            err.print(f"[red]error:[/red] {exc}", highlight=False)
            raise typer.Exit(2) from exc
    doc["currency"] = currency.strip()
    if json_out is not None:
        json_out.write_text(json.dumps(doc, indent=2) + "\n")
    _print(doc, branches)


def money(value: float, currency: str) -> str:
    return f"{value:.3g} {currency}"


def _print(doc: dict[str, Any], branches: int) -> None:
    out = console()
    cur = doc.get("currency", "USD")
    m = doc["model"]
    table = Table(title=f"{doc['file']}: {doc['raw_bytes']:,} bytes uncompressed; cost per file "
                  f"in {cur}: storage {m['storage_per_tb_month']:g} {cur} per TB-month for "
                  f"{m['months']:g} months, CPU {m['cpu_per_core_hour']:g} {cur} per "
                  f"core-hour, {m['writes_per_file']:g} write(s), {m['reads_per_file']:g} "
                  f"reads, network {m['network_mb_per_s']:g} MB/s")
    for col in ("rank", "setting", "compressed bytes", "% of size", "ratio", "comp MB/s",
                "decomp MB/s", f"total cost [{cur}]", "% of best cost", "Pareto"):
        table.add_column(col, justify="right")
    best_cost = doc["ranking"][0]["cost_total"] or 1.0
    for r in doc["ranking"]:
        table.add_row(
            str(r["rank"]),
            setting_words(r["label"]),
            f"{r['compressed_bytes']:,}",
            f"{100 * r['compressed_bytes'] / r['raw_bytes']:.1f} %",
            f"{r['ratio']:.3f}",
            f"{r['compress_mb_s']:.1f}",
            f"{r['decompress_mb_s']:.1f}",
            f"{r['cost_total']:.3g}",
            f"{100 * r['cost_total'] / best_cost:.1f} %",
            "yes" if r["pareto"] else "",
        )
    out.print(table)
    stability = doc.get("stability") or {}
    out.print(f"[bold]file:[/bold] {doc['summary']}", highlight=False)
    if stability:
        out.print(f"  stability: {stability['statement']}", highlight=False)
    evidence = doc.get("speed_evidence") or {}
    if evidence:
        out.print(f"  CPU term from: {evidence['description']}", highlight=False)
    prov = doc.get("provenance") or {}
    if prov:
        versions = ", ".join(f"{k} {v}" for k, v in sorted(prov["codec_versions"].items()))
        load = (prov.get("load") or {}).get("loadavg_start")
        root = prov.get("root_version") or f"(compression layer {prov.get('codec_set')})"
        where = prov.get("cpu_model") or "unknown CPU"
        at_load = f"; load {load[0]:.2f}" if load else ""
        out.print(f"  measured by: ROOT {root}; codecs {versions or 'unknown'}; {where}; "
                  f"{prov.get('measured_at')}{at_load}", highlight=False)
    for g in doc["type_classes"]:
        out.print(
            f"  {g['key']:>8} ({100 * g['share']:.1f} % of size): {g['summary']}",
            highlight=False)
    rows = doc["branches"][:branches]
    differing = doc.get("branches_differing", 0)
    out.print(f"branches: {differing} of {len(doc['branches'])} prefer another setting than "
              f"the file's {doc['recommended']} (listed first, largest saving first)",
              highlight=False)
    for g in rows:
        saving = (f"; switching saves {money(g['saving'], cur)} per file, "
                  f"{g['saving_bytes']:,} bytes" if g.get("differs") and g.get("saving")
                  is not None else "")
        out.print(f"  {g['key']} ({100 * g['share']:.1f} % of size): "
                  f"{setting_words(g['recommended']) if g['recommended'] else 'no data'}{saving}",
                  highlight=False)
    out.print("apply it in ROOT:", highlight=False)
    out.print(doc["snippet"], highlight=False, markup=False)
