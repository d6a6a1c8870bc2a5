"""Re-page a corpus's RNTuple columns: other page sizes, or the same pages without split encoding.

ROOT encodes each page on its own (split, delta, zigzag restart at every page), so a column
cannot be re-paged by cutting its bytes: each column's elements are decoded cluster by cluster
(pages never cross a cluster), cut into pages of at most `page_size` uncompressed bytes, and
encoded again, with the column's own type or its unsplit counterpart (SplitReal32 -> Real32,
SplitIndex64 -> Index64 without delta, SplitInt32 -> Int32 without zigzag).

This is how RNTuple's writer fills pages at another `RNTupleWriteOptions` maximum page size,
minus its tail-page balancing; the compressed bytes are ours to measure, not ROOT's, so the
new pages have no `root_compressed`. TTree baskets are not copied (a re-paged corpus holds
pages only); pages of types without a plain numeric layout (Switch, and the bit-packed
Real32Trunc / Real32Quant, which lossy_floats decodes but re-paging does not re-encode) are
copied unchanged and counted.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np

from basketbench.measure.rootio.corpus_format import Basket, CorpusWriter, read_corpus
from basketbench.measure.rootio.rntuple import (
    COLUMN_TYPES_BY_NAME,
    ColumnType,
    decode_elements,
    encode_elements,
)
from basketbench.measure.version import package_version

Encoding = Literal["as-written", "unsplit"]
MIN_PAGE_SIZE = 64


class RepageError(ValueError):
    """A corpus that cannot be re-paged (the message says why)."""


@dataclass
class RepageSummary:
    path: Path
    checksum: str
    pages_in: int
    pages_out: int
    copied_unchanged: int


def unsplit(column_type: ColumnType) -> ColumnType:
    """The plain counterpart of a split column type (itself when it is not split)."""
    if not column_type.encoding.startswith("split"):
        return column_type
    return COLUMN_TYPES_BY_NAME[column_type.name.removeprefix("Split")]


def _pages(values: np.ndarray, per_page: int) -> Iterable[np.ndarray]:
    for start in range(0, len(values), per_page):
        yield values[start:start + per_page]


def repage_corpus(source: str | Path, out: str | Path, page_size: int,
                  encoding: Encoding = "as-written", name: str | None = None) -> RepageSummary:
    """Write `out`: the RNTuple pages of `source`, re-paged at `page_size` bytes."""
    if page_size < MIN_PAGE_SIZE:
        raise RepageError(f"page_size must be at least {MIN_PAGE_SIZE} bytes, got {page_size}")
    if encoding not in ("as-written", "unsplit"):
        raise RepageError(f"encoding must be 'as-written' or 'unsplit', got {encoding!r}")
    corpus = read_corpus(source)
    out = Path(out)
    # (file, tree, column, cluster) -> pages in order; pages of one column range are contiguous
    groups: dict[tuple[int, str, int, int], list[tuple[Basket, bytes]]] = {}
    for record, raw in corpus.iter_raw():
        if record.kind != "page":
            continue
        assert record.column is not None and record.cluster is not None
        groups.setdefault((record.file, record.tree, record.column, record.cluster),
                          []).append((record, raw))
    if not groups:
        raise RepageError(f"{source}: no RNTuple pages to re-page")
    numbers: dict[tuple[int, str, int], int] = {}
    pages_in = sum(len(g) for g in groups.values())
    copied = 0
    with CorpusWriter(out, name or out.stem, created_by=f"basketbench {package_version()} "
                      f"repage {page_size} {encoding}", page_size=page_size) as writer:
        for f in corpus.files:
            writer.add_file(f.path, f.fcompress, f.sha256)
        for (file, tree, column, cluster), pages in groups.items():
            first = pages[0][0]
            assert first.column_type is not None
            source_type = COLUMN_TYPES_BY_NAME.get(first.column_type)
            if source_type is None:
                raise RepageError(f"{source}: page of {tree}/{first.branch} has unknown column "
                                  f"type {first.column_type!r}")
            key = (file, tree, column)

            def add(raw: bytes, elements: int, column_type: ColumnType, bits: int,
                    key: tuple[int, str, int] = key, first: Basket = first,
                    column: int = column, cluster: int = cluster) -> None:
                number = numbers.get(key, 0)
                numbers[key] = number + 1
                writer.add_basket(
                    file=first.file, tree=first.tree, branch=first.branch, basket=number,
                    element_size=bits // 8 if bits in (8, 16, 32, 64) else 1,
                    entries=elements, data_bytes=len(raw), entry_offsets=None, raw=raw,
                    root_compressed=None, fcompress=first.fcompress, kind="page",
                    column=column, column_type=column_type.name,
                    encoding=column_type.encoding, bits=bits, cluster=cluster)

            if source_type.dtype is None or source_type.bits is None:
                for record, raw in pages:
                    add(raw, record.entries, source_type, record.bits or 8)
                    copied += 1
                continue
            values = np.concatenate([decode_elements(source_type, raw, record.entries)
                                     for record, raw in pages])
            target = source_type if encoding == "as-written" else unsplit(source_type)
            assert target.bits is not None
            per_page = max(1, page_size * 8 // target.bits)
            for chunk in _pages(values, per_page):
                add(encode_elements(target, chunk), len(chunk), target, target.bits)
        writer.commit()
        return RepageSummary(out, writer.checksum, pages_in, len(writer.baskets), copied)
