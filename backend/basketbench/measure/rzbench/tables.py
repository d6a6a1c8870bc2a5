"""Terminal tables (rich) for result documents and corpora."""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from basketbench.measure.rootio.corpus_format import Corpus

# Dimensions shown only when a run varies them, so the common table stays narrow.
_OPTIONAL_COLUMNS = (
    ("dictionary_size", "dict"),
    ("basket_size", "basket size"),
    ("mode", "mode"),
    ("threads", "threads"),
)


def setting_label(result: dict[str, Any]) -> str:
    if result["codec"] == "memcpy":
        return "memcpy"
    return f"{result['codec']}-{result['level']} ({result['setting']})"


def speed_label(stats: dict[str, Any] | None) -> str:
    if stats is None:
        return "-"
    return f"{stats['median']:.1f} ± {100 * stats['cv']:.1f}%"


def _size_label(value: int, zero: str) -> str:
    if value == 0:
        return zero
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale and value % scale == 0:
            return f"{value // scale} {unit}"
    return str(value)


def results_table(doc: dict[str, Any]) -> Table:
    results = doc["results"]
    varying = [
        (key, title) for key, title in _OPTIONAL_COLUMNS if len({r[key] for r in results}) > 1
    ]
    machine = doc["machine"]
    table = Table(
        title=f"rzbench ({doc['backend']}) on {machine['cpu_model']}",
        caption="MB/s = uncompressed 10^6 bytes per second, median ± CV over samples",
    )
    table.add_column("dataset")
    table.add_column("setting")
    table.add_column("precond.")
    for _, title in varying:
        table.add_column(title, justify="right")
    table.add_column("ratio", justify="right")
    table.add_column("compress MB/s", justify="right")
    table.add_column("decompress MB/s", justify="right")
    table.add_column("roundtrip")
    for r in results:
        zero_labels = {"dictionary_size": "none", "basket_size": "as stored"}
        extra = [
            _size_label(r[key], zero_labels[key]) if key in zero_labels else str(r[key])
            for key, _ in varying
        ]
        if r["error"] is not None:
            roundtrip = f"[red]FAILED: {escape(r['error'])}[/red]"
        else:
            roundtrip = "[green]ok[/green]" if r["roundtrip_ok"] else "[red]mismatch[/red]"
        table.add_row(
            escape(r["dataset"]),
            setting_label(r),
            r["preconditioner"],
            *extra,
            f"{r['ratio']:.3f}",
            speed_label(r["compress_mbps"]),
            speed_label(r["decompress_mbps"]),
            roundtrip,
        )
    return table


def corpus_table(corpus: Corpus) -> Table:
    """One row per source file. "ROOT bytes" is what ROOT wrote after the baskets' keys
    (fNbytes - fKeylen summed): the compressed blocks plus the baskets it stored uncompressed
    because they did not shrink, as ROOT's own totals count them; the split is shown beside.
    Embedded baskets live inside their TBranch, not in keys, and are in neither."""
    table = Table(title=f"corpus {corpus.name!r} ({corpus.path})", caption=corpus.created_by)
    table.add_column("file")
    table.add_column("fCompress", justify="right")
    table.add_column("trees")
    table.add_column("baskets", justify="right")
    table.add_column("compressed", justify="right")
    table.add_column("stored", justify="right")
    table.add_column("embedded", justify="right")
    table.add_column("raw bytes", justify="right")
    table.add_column("ROOT bytes", justify="right")
    table.add_column("= compressed", justify="right")
    table.add_column("+ stored", justify="right")
    table.add_column("ROOT ratio", justify="right")
    for index, file in enumerate(corpus.files):
        baskets = [b for b in corpus.baskets if b.file == index]
        compressed = [b for b in baskets if b.root_compressed is not None]
        stored = [b for b in baskets if b.root_compressed is None and not b.embedded]
        compressed_bytes = sum(b.root_compressed_bytes for b in compressed)
        stored_bytes = sum(b.raw[1] for b in stored)
        root_bytes = compressed_bytes + stored_bytes
        raw_in_keys = sum(b.raw[1] for b in compressed) + stored_bytes
        trees = sorted({b.tree for b in baskets})
        table.add_row(
            escape(file.path),
            str(file.fcompress),
            escape(", ".join(trees)),
            str(len(baskets)),
            str(len(compressed)),
            str(len(stored)),
            str(sum(b.embedded for b in baskets)),
            f"{sum(b.raw[1] for b in baskets):,}",
            f"{root_bytes:,}",
            f"{compressed_bytes:,}",
            f"{stored_bytes:,}",
            f"{raw_in_keys / root_bytes:.3f}" if root_bytes else "-",
        )
    return table


def console(*, stderr: bool = False) -> Console:
    """A console that wraps only on a terminal: piped output keeps whole table rows."""
    stream = sys.stderr if stderr else sys.stdout
    width = None if stream.isatty() else 240
    return Console(stderr=stderr, soft_wrap=True, width=width)


def io_table(doc: dict[str, Any]) -> Table:
    """`basketbench run --io`: one row per end-to-end measurement, the codec-only rows last."""
    machine = doc["machine"]
    table = Table(
        title=f"end-to-end ROOT {doc['codecs'].get('root_version')} I/O on "
              f"{machine['cpu_model']}",
        caption="MB/s = uncompressed 10^6 bytes per second; median ± CV over samples",
    )
    for title in ("dataset", "setting", "mode", "threads", "ratio", "events/s", "MB/s"):
        table.add_column(title, justify="left" if title in ("dataset", "mode") else "right")
    for r in sorted(doc["results"], key=lambda r: (r["mode"] == "basket", r["dataset"],
                                                   r["setting"], r["mode"], r["threads"])):
        io = r.get("io") or {}
        speed = r["compress_mbps"] if r["mode"] == "io-write" else r["decompress_mbps"]
        if r["mode"] == "basket":
            speed_text = (f"codec only: c {speed_label(r['compress_mbps'])} / "
                          f"d {speed_label(r['decompress_mbps'])}")
        else:
            speed_text = speed_label(speed) if r["error"] is None else "[red]failed[/red]"
        eps = io.get("events_per_s")
        table.add_row(escape(r["dataset"]), setting_label(r), r["mode"], str(r["threads"]),
                      f"{r['ratio']:.3f}", f"{eps['median']:.0f}" if eps else "-", speed_text)
    return table


_CODECS = {1: "zlib", 2: "lzma", 4: "lz4", 5: "zstd"}


def _effect_label(effect: dict[str, Any]) -> tuple[str, str]:
    """(ratio, interval) of an A/B effect; "-" when every pair was disturbed."""
    if effect.get("ratio") is None:
        return "-", "-"
    return (f"{effect['ratio']:.3f}",
            f"{effect['ci_low']:.3f} .. {effect['ci_high']:.3f}")


def ab_table(doc: dict[str, Any]) -> Table:
    """An A/B document (basketbench-ab-v1): per dataset and setting, B's speed over A's."""
    table = Table(title=f"{escape(doc['b']['label'])} over {escape(doc['a']['label'])} "
                        "(speed ratio B/A, > 1: B faster)")
    for name in ("dataset", "setting", "direction", "ratio", "95% interval", "pairs",
                 "disturbed", "bytes A", "bytes B", "round trip"):
        table.add_column(name, justify="left" if name in ("dataset", "direction") else "right")
    for r in doc["results"]:
        setting = int(r["setting"])
        label = f"{_CODECS.get(setting // 100, '?')}-{setting % 100} ({setting})"
        for direction in ("compress", "decompress"):
            effect = r[direction]
            ratio, interval = _effect_label(effect)
            first = direction == "compress"
            table.add_row(
                escape(r["dataset"]) if first else "", label if first else "", direction,
                ratio, interval, str(effect["pairs"]), str(effect["disturbed_pairs"]),
                str(r["compressed_bytes"]["a"]) if first else "",
                str(r["compressed_bytes"]["b"]) if first else "",
                ("ok" if r["roundtrip_ok"] else "[red]FAILED[/red]") if first else "")
    return table
