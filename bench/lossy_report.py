"""The tables of docs/lossy.md: `basketbench lossy` on real files, with a ROOT release's own
codecs (ROOT's exact bytes), as Markdown.

    .venv/bin/python -m bench.lossy_report FILE.root [FILE.root ...] [--release 6.40.00]
        [--columns 'Muon_*,Jet_*'] > tables.md

Per file: for the columns asked for, bytes at 505 and 404 and the largest relative error at
every representation; the physics quantities' Kolmogorov-Smirnov distance and largest
histogram-bin change; the representations two precision budgets allow and what they save.
"""

from __future__ import annotations

import argparse
import platform
from pathlib import Path
from typing import Any

from basketbench.measure.lossy.budget import parse_budget
from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.realroot import releases as root_release

BUDGETS = ("momenta:rel=1e-4", "angles:abs=1e-3", "momenta:rel=1e-3")


def _label(r: dict[str, Any]) -> str:
    return r["representation"] if r["representation"] in ("full", "half") else \
        f"{r['representation']}{r['bits']}"


def _sizes(doc: dict[str, Any], setting: int) -> list[str]:
    rows = [r for r in doc["results"] if r["setting"] == setting]
    labels = list(dict.fromkeys(_label(r) for r in rows))
    columns = list(dict.fromkeys(r["column"] for r in rows))
    cell = {(r["column"], _label(r)): r for r in rows}
    lines = [f"| column (bytes at {setting}) | " + " | ".join(labels) + " |",
             "|---" * (len(labels) + 1) + "|"]
    for c in columns:
        lines.append(f"| {c} | " + " | ".join(
            f"{cell[(c, lb)]['compressed_bytes']:,}<br>{cell[(c, lb)]['max_rel_error']:.1e}"
            if (c, lb) in cell else "" for lb in labels) + " |")
    return lines


def _physics(doc: dict[str, Any]) -> list[str]:
    lines = ["| quantity | events | representation | KS distance | largest bin change |",
             "|---|---|---|---|---|"]
    for e in doc["physics"]:
        lines.append(f"| {e['quantity']} from {', '.join(e['columns'])} | {e['events']} | "
                     f"{_label(e)} | {e['ks_distance']:.4f} | "
                     f"{100 * e['max_bin_rel_change']:.1f} % |")
    return lines


def _budgets(doc: dict[str, Any]) -> list[str]:
    lines = ["| budget | column | chosen | bytes | full | saved |", "|---|---|---|---|---|---|"]
    for r in doc["recommendations"]:
        lines.append(f"| {r['budget']} | {r['column']} | {_label(r)} | "
                     f"{r['compressed_bytes']:,} | {r['full_bytes']:,} | "
                     f"{100 * r['saved_bytes'] / max(r['full_bytes'], 1):.0f} % |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--release", default="6.40.00")
    parser.add_argument("--columns", default="")
    parser.add_argument("--bits", default="10,12,14,16,20,24")
    args = parser.parse_args()
    _, binary = root_release.release_rzbench(args.release)
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"<!-- bench.lossy_report, ROOT {args.release}'s codecs, {platform.machine()}, "
          f"load {' '.join(load)} -->")
    for path in args.files:
        for budget_set in (BUDGETS[:2], BUDGETS[1:]):
            doc = sweep(path, SweepOptions(
                settings=[505, 404], bits=[int(b) for b in args.bits.split(",")],
                columns=[c for c in args.columns.split(",") if c] or None, rzbench=binary,
                budgets=[parse_budget(b) for b in budget_set]))
            if budget_set == BUDGETS[:2]:
                print(f"\n### {path.name}\n")
                for setting in (505, 404):
                    print("\n".join(_sizes(doc, setting)) + "\n")
                print("\n".join(_physics(doc)) + "\n")
            print("\n".join(_budgets(doc)) + "\n")


if __name__ == "__main__":
    main()
