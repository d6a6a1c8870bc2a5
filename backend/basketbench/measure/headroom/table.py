"""The console table of a headroom document: per setting and direction, the speed ratios with
their intervals, the instructions of the three paths and the cause of the gap."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.table import Table

_CODECS = {1: "ZLIB", 2: "LZMA", 4: "LZ4", 5: "ZSTD"}


def _effect(effect: dict[str, Any]) -> str:
    if effect.get("ratio") is None:
        return "-"
    return f"{effect['ratio']:.3f} [{effect['ci_low']:.3f}, {effect['ci_high']:.3f}]"


def _instructions(d: dict[str, Any]) -> str:
    i = d.get("instructions")
    if not i:
        return "-"
    return " / ".join(f"{i[p] / 1e6:.2f}" for p in ("framed", "bare_fresh", "bare_reused"))


def _per_buffer(d: dict[str, Any]) -> str:
    t = d.get("per_buffer_us")
    if not t:
        return "-"
    text = " / ".join(f"{t[p]:.2f}" for p in ("framed", "bare_fresh", "bare_reused"))
    low = d["context"].get("ci_low")
    # named only where the fresh context is measurably slower (its interval above 1)
    if t.get("context_in_cpuid") is not None and low is not None and low > 1:
        text += f" (fresh +{t['context']:.2f} = {t['context_in_cpuid']:.1f} cpuid)"
    return text


def headroom_table(doc: dict[str, Any]) -> Table:
    """One row per (dataset, setting, direction)."""
    table = Table(title="ROOT's framing against the bare library (time framed / time bare, "
                        "> 1: the bare library is faster)")
    for name in ("dataset", "setting", "direction", "headroom framed/reused", "framing "
                 "framed/fresh", "context fresh/reused", "us/buffer framed / fresh / reused",
                 "Minstr framed / fresh / reused",
                 "cause", "same work", "round trip"):
        table.add_column(name, justify="left" if name in ("dataset", "direction", "cause")
                         else "right")
    for r in doc["results"]:
        s = int(r["setting"])
        label = f"{_CODECS.get(s // 100, '?')}-{s % 100} ({s})"
        for direction in ("compress", "decompress"):
            d = r[direction]
            first = direction == "compress"
            cause = d["cause"]["summary"] if d.get("cause") else "-"
            table.add_row(
                escape(r["dataset"]) if first else "", label if first else "", direction,
                _effect(d["headroom"]), _effect(d["framing"]), _effect(d["context"]),
                _per_buffer(d), _instructions(d), escape(cause),
                ("yes" if r["same_work"] else "[red]no[/red]") if first else "",
                ("ok" if r["roundtrip_ok"] else "[red]FAILED[/red]") if first else "")
    return table


def _md_effect(effect: dict[str, Any]) -> str:
    if effect.get("ratio") is None:
        return "-"
    return f"{effect['ratio']:.3f} [{effect['ci_low']:.3f}, {effect['ci_high']:.3f}]"


def _md_count(d: dict[str, Any]) -> str:
    i = d.get("instructions")
    if not i:
        return "- | - | -"
    return " | ".join(f"{i[p] / 1e6:,.2f}" for p in ("framed", "bare_fresh", "bare_reused"))


def headroom_markdown(doc: dict[str, Any]) -> str:
    """The document as a Markdown table (docs/perf/headroom.md): per setting and direction the
    three ratios with their 95 % intervals, the instructions per pass (millions) and the
    cause."""
    lines = [
        "| dataset | setting | direction | headroom framed / bare reused | framing framed / "
        "bare fresh | context bare fresh / reused | us per buffer framed / fresh / reused | "
        "Minstr framed | Minstr bare fresh | Minstr bare reused | cause (instructions) | "
        "same work |",
        "|---|---|---|---|---|---|---|---:|---:|---:|---|---|",
    ]
    for r in doc["results"]:
        s = int(r["setting"])
        label = f"{_CODECS.get(s // 100, '?')}-{s % 100} ({s})"
        for direction in ("compress", "decompress"):
            d = r[direction]
            first = direction == "compress"
            cause = d["cause"]["summary"] if d.get("cause") else "-"
            same = ("yes" if r["same_work"] else "**no**") if r["roundtrip_ok"] else "FAILED"
            lines.append(
                f"| {r['dataset'] if first else ''} | {label if first else ''} | {direction} | "
                f"{_md_effect(d['headroom'])} | {_md_effect(d['framing'])} | "
                f"{_md_effect(d['context'])} | {_per_buffer(d)} | {_md_count(d)} | {cause} | "
                f"{same if first else ''} |")
    return "\n".join(lines) + "\n"
