"""The lossy sweep: a file's float columns re-encoded at many bit widths, compressed at the
chosen settings page by page as ROOT would write them, and per column the bytes saved against
the precision lost.

Sizes come from `rzbench sizes` on a corpus of the re-encoded pages (ROOT's 9-byte block
framing included, a page stored as is when compression does not shrink it, like RNTuple);
with a ROOT release's rzbench they are ROOT's own bytes (tests/measure/test_lossy_groundtruth).
Errors come from the values a reader gets back (rootio/lossy_floats.roundtrip, checked equal
to ROOT's and uproot's reading). `full` is SplitReal32, what RNTuple writes for a float by
default; TTree float branches are re-encoded the same way, basket by basket.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from basketbench.measure.digests import file_sha256
from basketbench.measure.lossy import physics
from basketbench.measure.lossy.budget import Budget, recommend
from basketbench.measure.lossy.columns import FloatColumn, float_columns
from basketbench.measure.lossy.errors import error_stats
from basketbench.measure.rootio.corpus_format import CorpusWriter
from basketbench.measure.rootio.lossy_floats import (
    QUANT_BITS,
    TRUNC_BITS,
    LossyError,
    Representation,
    encode,
    roundtrip,
)
from basketbench.measure.rzbench.runner import run_sizes
from basketbench.measure.version import package_version

SCHEMA = "basketbench-lossy-v1"
DEFAULT_SETTINGS = (505, 404)
DEFAULT_BITS = (10, 12, 14, 16, 20, 24)
HALF_MAX = 65504.0
# fewer events than this: a physics quantity's distribution is not compared
MIN_EVENTS = 20
_COLUMN_TYPE = {"full": ("SplitReal32", "split", 4), "half": ("Real16", "plain", 2),
                "trunc": ("Real32Trunc", "bitpacked", 1), "quant": ("Real32Quant", "bitpacked", 1)}

Progress = Callable[[str], None]


@dataclass
class SweepOptions:
    settings: Sequence[int] = DEFAULT_SETTINGS
    bits: Sequence[int] = DEFAULT_BITS
    columns: list[str] | None = None  # glob patterns; None: every float column
    rzbench: Path | None = None  # e.g. a ROOT release's rzbench for ROOT's own bytes
    budgets: list[Budget] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def representations(column: FloatColumn, bits: Sequence[int], notes: list[str]
                    ) -> list[Representation]:
    """full, half, trunc at each bit width ROOT allows, quant over the column's own range."""
    values = column.values
    finite = values[np.isfinite(values)]
    low, high = (float(finite.min()), float(finite.max())) if len(finite) else (0.0, 0.0)
    reps = [Representation("full", 32)]
    if max(abs(low), abs(high)) <= HALF_MAX:
        reps.append(Representation("half", 16))
    else:
        notes.append(f"{column.name}: values beyond half precision's largest value "
                     f"({HALF_MAX:g}); no half representation")
    reps += [Representation("trunc", b) for b in bits if b in TRUNC_BITS]
    if len(finite) < len(values):
        notes.append(f"{column.name}: {len(values) - len(finite)} values are not finite; "
                     "no quantized representation")
    elif not low < high:
        notes.append(f"{column.name}: a single value ({low}); no quantized representation")
    else:
        reps += [Representation("quant", b, low, high) for b in bits if b in QUANT_BITS]
    return reps


def _branch(index: int, rep: Representation) -> str:
    return f"c{index}/{rep.label}"


def sweep(path: Path, options: SweepOptions | None = None,
          progress: Progress | None = None) -> dict[str, Any]:
    """The sweep of `path` as the basketbench-lossy-v1 JSON document."""
    options = options or SweepOptions()
    say = progress or (lambda _m: None)
    columns = float_columns(path, options.columns)
    if not columns:
        raise LossyError(f"{path.name}: no float32 column"
                         + (" matches " + ", ".join(options.columns) if options.columns else ""))
    say(f"{path.name}: {len(columns)} float columns")
    notes = options.notes
    plan: list[tuple[int, FloatColumn, Representation, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory(prefix="basketbench-lossy-") as tmp:
        corpus = Path(tmp) / "lossy.bbc"
        with CorpusWriter(corpus, f"lossy:{path.name}", f"basketbench {package_version()}") as w:
            file_index = w.add_file(path.name, 0, "0" * 64)
            for index, column in enumerate(columns):
                values = column.values
                for rep in representations(column, options.bits, notes):
                    stats = error_stats(values, roundtrip(rep, values))
                    column_type, encoding, element_size = _COLUMN_TYPE[rep.kind]
                    for number, page in enumerate(column.pages):
                        raw = encode(rep, page)
                        w.add_basket(file=file_index, tree="lossy", branch=_branch(index, rep),
                                     basket=number, element_size=element_size,
                                     entries=len(page), data_bytes=len(raw),
                                     entry_offsets=None, raw=raw, root_compressed=None,
                                     kind="page", column_type=column_type, encoding=encoding,
                                     bits=rep.bits)
                    plan.append((index, column, rep, {
                        "max_abs_error": stats.max_abs_error,
                        "max_rel_error": stats.max_rel_error,
                        "rms_rel_error": stats.rms_rel_error,
                        "values": column.count,
                    }))
                say(f"encoded {column.name} ({index + 1}/{len(columns)})")
            w.commit()
        say(f"compressing at {', '.join(map(str, options.settings))}")
        sizes = run_sizes(corpora=[corpus], settings=list(options.settings),
                          binary=options.rzbench)
    by_branch = {(b["branch"], s["setting"]): (s["compressed_bytes"], b["raw_bytes"])
                 for dataset in sizes for b in dataset["branches"] for s in b["sizes"]
                 if s["preconditioner"] == "none"}
    results = []
    for index, column, rep, errors in plan:
        for setting in options.settings:
            compressed, raw = by_branch[(_branch(index, rep), setting)]
            full, _ = by_branch[(_branch(index, Representation("full", 32)), setting)]
            results.append({
                "column": column.name, "container": column.container,
                "stored_as": column.stored_as, "representation": rep.kind, "bits": rep.bits,
                "setting": setting, "compressed_bytes": compressed, "uncompressed_bytes": raw,
                "saved_bytes": full - compressed,
                "saved_pct": round(100.0 * (full - compressed) / full, 3) if full else 0.0,
                **({"quant_range": [rep.low, rep.high]} if rep.kind == "quant" else {}),
                **errors,
            })
    say("physics quantities")
    effects = physics_effects(path, columns, options)
    recommendations = recommend(results, options.budgets, options.settings[0]) \
        if options.budgets else []
    return {"schema": SCHEMA, "file": path.name, "file_sha256": file_sha256(path),
            "settings": list(options.settings),
            "bits": list(options.bits), "tool": f"basketbench {package_version()}",
            "columns": len(columns), "results": results, "physics": effects,
            "budgets": [b.text for b in options.budgets],
            "recommendations": recommendations, "notes": notes}


def physics_effects(path: Path, columns: list[FloatColumn], options: SweepOptions
                    ) -> list[dict[str, Any]]:
    """Every physics quantity the file's columns allow, at every lossy representation."""
    import uproot

    effects: list[dict[str, Any]] = []
    by_container: dict[str, dict[str, FloatColumn]] = {}
    for column in columns:
        by_container.setdefault(column.container, {})[column.name] = column
    for container, named in by_container.items():
        quantities = physics.available(set(named))
        if not quantities:
            continue
        needed = sorted({c for q in quantities for c in q.columns})
        with uproot.open(path) as root_file:
            arrays = root_file[container.split(" ", 1)[1]].arrays(needed, library="ak")
        data = {c: arrays[c] for c in needed}
        ranges = {}
        for c in needed:
            values = named[c].values
            ranges[c] = (float(values.min()), float(values.max()))
        reps = [r for r in representations(named[needed[0]], options.bits, [])
                if r.kind != "full"]
        for quantity in quantities:
            events = len(quantity.compute(data))
            if events < MIN_EVENTS:
                options.notes.append(f"{quantity.name} from {', '.join(quantity.columns)}: "
                                     f"{events} events, fewer than {MIN_EVENTS}: not compared")
                continue
            for rep in reps:
                if rep.kind == "quant" and any(not lo < hi for lo, hi in
                                               (ranges[c] for c in quantity.columns)):
                    continue
                effects.append({"container": container,
                                **physics.effect(quantity, data, rep, ranges)})
    return effects
