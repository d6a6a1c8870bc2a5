"""End-to-end I/O beside the codec alone: per setting, the share of a read (write) that is
decompression (compression), from the io-read / io-write rows and rzbench's basket rows of
the same commit, machine and data (dataset names from measure/realroot/io_bench.py)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session

from basketbench.catalog.lookup import get_commit, get_machine
from basketbench.catalog.service import machine_ref
from basketbench.core.errors import NotFound
from basketbench.models import Configuration, Dataset, Result
from basketbench.results.io_schemas import IoBreakdownOut, IoRead, IoSetting, IoWrite

IO_MODES = ("io-read", "io-write")


def _parse(name: str) -> tuple[str, str, str | None, str | None] | None:
    """'<file>/<tree>/<form>[/cache-<on|off>/<warm|cold>]' -> (data, form, cache, page)."""
    parts = name.split("/")
    if len(parts) >= 5 and parts[-2].startswith("cache-") and parts[-3] in ("ttree", "rntuple"):
        return "/".join(parts[:-3]), parts[-3], parts[-2].removeprefix("cache-"), parts[-1]
    if len(parts) >= 3 and parts[-1] in ("ttree", "rntuple"):
        return "/".join(parts[:-1]), parts[-1], None, None
    return None


def newest_io_commit(session: Session, machine_id: int) -> str | None:
    """The newest commit (git order) with end-to-end I/O results on the machine: only ROOT
    releases measure I/O, so the newest commit overall often has none."""
    from basketbench.models import Commit

    return session.scalar(
        select(Commit.sha).join(Result, Result.commit_id == Commit.id)
        .join(Configuration, Configuration.id == Result.configuration_id)
        .where(Result.machine_id == machine_id, Configuration.mode.in_(IO_MODES))
        .order_by(Commit.order.desc(), Commit.id.desc()).limit(1))


def breakdown(session: Session, commit: str | None, machine: str,
              data: str | None) -> IoBreakdownOut:
    m = get_machine(session, machine)
    if commit is None:
        commit = newest_io_commit(session, m.id)
        if commit is None:
            raise NotFound(f"no end-to-end I/O results on {m.name}")
    c = get_commit(session, commit)
    io_rows = session.execute(
        select(Dataset.name, Configuration.setting, Configuration.codec, Configuration.level,
               Configuration.mode, Configuration.threads, func.avg(Result.ratio),
               func.avg(Result.uncompressed_bytes), func.avg(Result.c_median),
               func.avg(Result.d_median))
        .join(Dataset, Dataset.id == Result.dataset_id)
        .join(Configuration, Configuration.id == Result.configuration_id)
        .where(Result.commit_id == c.id, Result.machine_id == m.id, Result.error.is_(None),
               or_(Configuration.mode.in_(IO_MODES),
                   (Configuration.mode == "basket") & Dataset.name.like("%/ttree")))
        .group_by(Dataset.name, Configuration.id)
    ).all()
    parsed = [(p, r) for r in io_rows if (p := _parse(r[0])) is not None]
    available = sorted({p[0] for p, r in parsed if r[4] in IO_MODES})
    if not available:
        raise NotFound(f"no end-to-end I/O results for commit {c.sha[:12]} on {m.name}")
    chosen = data or available[0]
    if chosen not in available:
        raise NotFound(f"no end-to-end I/O results for data {chosen!r}; available: "
                       f"{', '.join(available)}")
    codec: dict[tuple[str, int], tuple[Any, Any, Any]] = {}
    groups: dict[tuple[int, str], dict[str, Any]] = defaultdict(
        lambda: {"reads": [], "writes": [], "ratio": None, "label": ""})
    for (data_name, form, cache, page), r in parsed:
        if data_name != chosen:
            continue
        _, setting, codec_name, level, mode, threads, ratio, ubytes, c_med, d_med = r
        if mode == "basket":
            codec[(form, setting)] = (c_med, d_med, ubytes)
            continue
        g = groups[(setting, form)]
        g["label"] = "none" if codec_name == "none" else f"{codec_name.upper()}-{level}"
        g["ratio"] = g["ratio"] or ratio
        if mode == "io-read" and d_med is not None:
            g["reads"].append((threads, cache or "on", page or "warm", float(d_med),
                               int(ubytes or 0)))
        elif mode == "io-write" and c_med is not None:
            g["writes"].append((threads, float(c_med), int(ubytes or 0)))
    out = []
    for (setting, form), g in sorted(groups.items()):
        c_comp, c_dec, c_bytes = codec.get((form, setting), (None, None, None))

        out.append(IoSetting(
            setting=setting, label=g["label"], form=form, ratio=g["ratio"],
            codec_compress_mbps=c_comp, codec_decompress_mbps=c_dec,
            reads=[IoRead(threads=t, cache=ca, page_cache=pc, read_mbps=s, uncompressed_bytes=b,
                          codec_share=_share(s, b, c_dec, c_bytes))
                   for t, ca, pc, s, b in sorted(g["reads"])],
            writes=[IoWrite(threads=t, write_mbps=s, uncompressed_bytes=b,
                            codec_share=_share(s, b, c_comp, c_bytes))
                    for t, s, b in sorted(g["writes"])]))
    return IoBreakdownOut(commit=c.sha, machine=machine_ref(m), data=chosen, settings=out,
                          data_available=available)


def _share(speed: float, ubytes: int, codec_speed: Any, codec_bytes: Any) -> float | None:
    """The codec's time over the end-to-end time, each from its own bytes and MB/s:
    (codec bytes / codec speed) / (end-to-end bytes / end-to-end speed)."""
    if not codec_speed or not codec_bytes or not ubytes or not speed:
        return None
    return (float(codec_bytes) / float(codec_speed)) / (ubytes / speed)
