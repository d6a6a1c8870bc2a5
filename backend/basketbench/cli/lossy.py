"""`basketbench lossy FILE.root`: how many bits can each float column lose? RNTuple's lossy
float representations swept per column: size saved against precision lost (measure/lossy)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from basketbench.cli.options import advise_setting_list
from basketbench.measure.lossy.budget import BudgetError, parse_budget
from basketbench.measure.lossy.columns import ColumnReadError
from basketbench.measure.lossy.sweep import DEFAULT_BITS, DEFAULT_SETTINGS, SweepOptions, sweep
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import RootReleaseError
from basketbench.measure.rootio.lossy_floats import QUANT_BITS, LossyError
from basketbench.measure.rzbench.runner import RzbenchError, RzbenchNotFound
from basketbench.measure.rzbench.tables import console


def _bits(text: str) -> list[int]:
    try:
        values = sorted({int(v) for v in text.split(",") if v.strip()})
    except ValueError as exc:
        raise typer.BadParameter(f"{text!r} is not a comma list of integers",
                                 param_hint="--bits") from exc
    if not values or any(v not in QUANT_BITS for v in values):
        raise typer.BadParameter(f"{text!r}: bit widths are 1 to 32 (trunc uses 10 to 31)",
                                 param_hint="--bits")
    return values


def lossy_command(
    file: Path = typer.Argument(..., help="A ROOT file with TTrees or RNTuples."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the sweep as JSON here."),
    settings: str = typer.Option(",".join(map(str, DEFAULT_SETTINGS)),
                                 help="Settings to compress at (algorithm*100+level)."),
    bits: str = typer.Option(",".join(map(str, DEFAULT_BITS)),
                             help="Bit widths for trunc (10-31) and quant (1-32)."),
    columns: list[str] = typer.Option([], "--column",
                                      help="Only columns matching this glob (repeatable)."),
    budget: list[str] = typer.Option(
        [], help="A precision budget, CLASS:rel=X or CLASS:abs=X (CLASS: momenta, energies, "
                 "angles, all, or a glob of column names); repeatable."),
    root_release_name: str | None = typer.Option(
        None, "--root-release",
        help="Compress with a ROOT release's own codecs (e.g. 6.40.00): ROOT's exact bytes."),
    rows: int = typer.Option(20, help="Columns to list in the table (largest first)."),
) -> None:
    """Re-encode FILE's float columns as RNTuple writes them (full = SplitReal32, half,
    trunc and quant at each bit width), compress every page at each setting, and list per
    column the bytes saved against the errors, the change of physics quantities computed from
    them, and the representation each precision budget allows."""
    if not file.is_file():
        raise typer.BadParameter(f"{file}: no such file", param_hint="FILE")
    try:
        budgets = [parse_budget(b) for b in budget]
    except BudgetError as exc:
        raise typer.BadParameter(str(exc), param_hint="--budget") from exc
    options = SweepOptions(settings=advise_setting_list(settings, "--settings"),
                           bits=_bits(bits), columns=columns or None, budgets=budgets)
    err = console(stderr=True)
    try:
        if root_release_name:
            _, options.rzbench = root_release.release_rzbench(root_release_name, err.print)
        doc = sweep(file, options, lambda m: err.print(m, highlight=False))
    except (ColumnReadError, LossyError, RzbenchNotFound, RzbenchError,
            RootReleaseError) as exc:
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    if json_out is not None:
        json_out.write_text(json.dumps(doc, indent=1) + "\n")
    _print(doc, rows)


def _label(kind: str, bits: int) -> str:
    return kind if kind in ("full", "half") else f"{kind}{bits}"


def _grid(title: str, rows: list[str], labels: list[tuple[str, int]],
          cell: dict[tuple[str, str, int], str]) -> Table:
    table = Table(title=title, title_justify="left")
    table.add_column("")
    for kind, b in labels:
        table.add_column(_label(kind, b), justify="right")
    for row in rows:
        table.add_row(row, *[cell.get((row, k, b), "") for k, b in labels])
    return table


def _print(doc: dict[str, Any], rows: int) -> None:
    out = console()
    setting = doc["settings"][0]
    at = [r for r in doc["results"] if r["setting"] == setting]
    full = {r["column"]: r["compressed_bytes"] for r in at if r["representation"] == "full"}
    biggest = sorted(full, key=lambda c: -full[c])[:rows]
    labels = sorted({(r["representation"], r["bits"]) for r in at
                     if r["representation"] != "full"})
    saved = {(r["column"], r["representation"], r["bits"]): f"{r['saved_pct']:.0f}" for r in at}
    error = {(r["column"], r["representation"], r["bits"]): f"{r['max_rel_error']:.0e}"
             for r in at}
    out.print(f"{doc['file']}: {doc['columns']} float columns; at {setting}, the largest "
              f"{len(biggest)} (full = SplitReal32, as RNTuple writes a float)", highlight=False)
    out.print(_grid("% of the column's bytes saved against full", biggest, labels, saved))
    out.print(_grid("largest relative error", biggest, labels, error))
    if doc["physics"]:
        names = [f"{e['quantity']} ({e['events']} events)" for e in doc["physics"]]
        ks = {(n, e["representation"], e["bits"]): f"{e['ks_distance']:.3f}"
              for n, e in zip(names, doc["physics"], strict=True)}
        out.print(_grid("physics: Kolmogorov-Smirnov distance to the exact distribution",
                        list(dict.fromkeys(names)), labels, ks))
    for budget in doc["budgets"]:
        chosen = [r for r in doc["recommendations"] if r["budget"] == budget]
        total, saved = sum(r["full_bytes"] for r in chosen), sum(r["saved_bytes"] for r in chosen)
        out.print(f"budget {budget}: {len(chosen)} columns, {saved:,} of their {total:,} bytes "
                  f"saved at {setting}; the largest savings:", highlight=False)
    for r in sorted(doc["recommendations"], key=lambda r: -r["saved_bytes"])[:rows]:
        label = _label(r["representation"], r["bits"])
        out.print(f"  {r['column']} under {r['budget']}: {label}"
                  f", {r['compressed_bytes']:,} bytes at {r['setting']} "
                  f"(saves {r['saved_bytes']:,} of {r['full_bytes']:,})", highlight=False)
    for note in doc["notes"][:10]:
        out.print(f"note: {note}", highlight=False)
    if len(doc["notes"]) > 10:
        out.print(f"... and {len(doc['notes']) - 10} more notes in the JSON", highlight=False)
