"""A file's float columns, cut the way the file stores them: TTree float branches basket by
basket (uproot), RNTuple float fields page by page (rootio/rntuple.py, lossy pages included).

The sweep re-encodes each column page by page at other representations, so the page (or
basket) boundaries of the file are kept: a page compresses on its own, and its size at a
setting depends on where it starts and ends.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from basketbench.measure.rootio.rntuple import (
    RNTupleError,
    decode_column_page,
    iter_pages,
    load_ntuple,
)

TREE_CLASSES = frozenset({"TTree", "TNtuple"})
NTUPLE_CLASS = "ROOT::RNTuple"
FLOAT_COLUMN_TYPES = frozenset({"Real32", "SplitReal32", "Real32Trunc", "Real32Quant", "Real16"})


class ColumnReadError(ValueError):
    """A file whose float columns cannot be read (the message names the file and why)."""


@dataclass
class FloatColumn:
    """One float column: its values page by page, and how the file stores it."""

    name: str  # the branch or field path
    container: str  # "TTree events" or "RNTuple events"
    stored_as: str  # e.g. "float32 baskets", "SplitReal32", "Real32Trunc(12)"
    pages: list[np.ndarray] = field(default_factory=list)

    @property
    def values(self) -> np.ndarray:
        if not self.pages:
            return np.zeros(0, np.float32)
        return np.concatenate(self.pages).astype(np.float32, copy=False)

    @property
    def count(self) -> int:
        return sum(len(p) for p in self.pages)


def _selected(name: str, patterns: list[str] | None) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _tree_columns(tree: object, container: str, patterns: list[str] | None
                  ) -> list[FloatColumn]:
    import awkward as ak
    import uproot

    columns = []
    for path, branch in tree.iteritems(recursive=True):  # type: ignore[attr-defined]
        interp = branch.interpretation
        if isinstance(interp, uproot.AsJagged):
            interp = interp.content
        if not isinstance(interp, uproot.AsDtype) or \
                np.dtype(interp.from_dtype) != np.dtype(">f4") or not _selected(path, patterns):
            continue  # only float32 numbers and jagged arrays of them
        column = FloatColumn(path, container, "float32 baskets")
        for i in range(branch.num_baskets):
            start, stop = branch.basket_entry_start_stop(i)
            chunk = branch.array(entry_start=start, entry_stop=stop, library="ak")
            flat = ak.to_numpy(ak.flatten(chunk, axis=None)) if chunk.ndim > 1 else \
                ak.to_numpy(chunk)
            column.pages.append(np.asarray(flat, np.float32))
        if column.count:
            columns.append(column)
    return columns


def _ntuple_columns(path: Path, key: object, name: str, container: str,
                    patterns: list[str] | None) -> list[FloatColumn]:
    size = path.stat().st_size
    by_column: dict[int, FloatColumn] = {}
    with path.open("rb") as fh:
        nt = load_ntuple(fh, size, key, name, path.name)
        wanted = {}
        for col in nt.columns:
            field_path = nt.fields[col.field].path
            if col.type.name in FLOAT_COLUMN_TYPES and _selected(field_path, patterns):
                bits = f"({col.bits})" if col.type.name.startswith("Real32") and \
                    col.type.name != "SplitReal32" and col.bits != 32 else ""
                wanted[col.index] = FloatColumn(field_path, container, col.type.name + bits)
        for page, raw, _ in iter_pages(fh, size, nt, path.name):
            column = wanted.get(page.column)
            if column is not None:
                values = decode_column_page(nt.columns[page.column], raw, page.elements)
                column.pages.append(np.asarray(values, np.float32))
        by_column = wanted
    # a field may have several representations (columns): keep the one with data
    seen: dict[str, FloatColumn] = {}
    for column in by_column.values():
        if column.count and column.name not in seen:
            seen[column.name] = column
    return list(seen.values())


def float_columns(path: Path, patterns: list[str] | None = None) -> list[FloatColumn]:
    """Every float32 column of every TTree and RNTuple in `path` (optionally only the names
    matching one of the glob `patterns`)."""
    import uproot

    try:
        root_file = uproot.open(path)
    except Exception as exc:  # uproot raises many kinds for a file that is not ROOT
        raise ColumnReadError(f"{path.name}: not a readable ROOT file ({exc})") from exc
    columns: list[FloatColumn] = []
    with root_file:
        for key_name, classname in root_file.classnames(recursive=False).items():
            name = key_name.split(";")[0]
            try:
                if classname in TREE_CLASSES:
                    columns += _tree_columns(root_file[key_name], f"TTree {name}", patterns)
                elif classname == NTUPLE_CLASS:
                    columns += _ntuple_columns(path, root_file.key(key_name), name,
                                               f"RNTuple {name}", patterns)
            except RNTupleError as exc:
                raise ColumnReadError(str(exc)) from exc
    return columns
