"""Extract every TTree basket and RNTuple page of real ROOT files into a corpus
(docs/CORPUS_FORMAT.md).

For each basket we keep the buffer ROOT handed to its compressor (what uproot
calls `raw_data`: entry data followed by the entry-offset array) and the exact
compressed bytes ROOT stored after the basket's TKey, read from the file and
decoded by blocks.py (baskets.py: uproot parses the structure, we decompress).
For each RNTuple page (rntuple.py) we keep the page as ROOT compressed it
(the column's elements in the column's encoding) and the page's bytes on disk.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from basketbench.measure.digests import file_sha256
from basketbench.measure.rootio.baskets import (
    TTreeReadError,
    decode_streamers_with_blocks,
    read_basket,
    read_object,
)
from basketbench.measure.rootio.corpus_format import CorpusWriter
from basketbench.measure.rootio.rntuple import (
    RNTupleError,
    iter_pages,
    load_ntuple,
)
from basketbench.measure.version import package_version

TREE_CLASSES = frozenset({"TTree", "TNtuple", "TNtupleD"})
NTUPLE_CLASS = "ROOT::RNTuple"
_OFFSETS_DTYPE = np.dtype(">i4")


class ExtractionError(ValueError):
    """An input that cannot be extracted (the message names the file and the reason)."""


@dataclass
class FileSummary:
    path: str
    fcompress: int
    trees: list[str] = field(default_factory=list)
    ntuples: list[str] = field(default_factory=list)
    baskets: int = 0  # buffers in the corpus: TTree baskets and RNTuple pages
    pages: int = 0
    compressed_baskets: int = 0
    embedded_baskets: int = 0
    raw_bytes: int = 0
    root_compressed_bytes: int = 0


@dataclass
class CorpusSummary:
    path: Path
    name: str
    checksum: str
    files: list[FileSummary]
    messages: list[str]

    @property
    def baskets(self) -> int:
        return sum(f.baskets for f in self.files)

    @property
    def pages(self) -> int:
        return sum(f.pages for f in self.files)

    @property
    def raw_bytes(self) -> int:
        return sum(f.raw_bytes for f in self.files)


Log = Callable[[str], None]


def check_root_header(path: Path) -> None:
    """Reject non-ROOT and truncated files before uproot does, with a plain message.

    A ROOT file starts with "root", the version, fBEGIN and fEND (32-bit, or
    64-bit when version >= 1000000); fEND is the file's length.
    """
    with open(path, "rb") as fh:
        head = fh.read(24)
    size = path.stat().st_size
    if len(head) < 16 or head[:4] != b"root":
        raise ExtractionError(f"{path}: not a ROOT file (it does not start with 'root')")
    version = struct.unpack(">i", head[4:8])[0]
    if version >= 1000000:
        if len(head) < 20:
            raise ExtractionError(f"{path}: truncated ROOT file ({size} bytes)")
        end = struct.unpack(">q", head[12:20])[0]
    else:
        end = struct.unpack(">i", head[12:16])[0]
    if size < end:
        raise ExtractionError(
            f"{path}: truncated ROOT file: {size} bytes, but its header says it ends at byte {end}"
        )


def element_size(branch: Any) -> int:
    """Size of the branch's basic numeric type (for Shuffle/BitShuffle); 1 when unknown."""
    import uproot

    try:
        interpretation = branch.interpretation
    except Exception:  # uproot raises many kinds for branches it cannot interpret
        return 1
    if isinstance(interpretation, uproot.interpretation.jagged.AsJagged):
        interpretation = interpretation.content
    if not isinstance(interpretation, uproot.interpretation.numerical.AsDtype):
        return 1
    dtype = interpretation.from_dtype
    if dtype.fields:
        sizes = {value[0].base.itemsize for value in dtype.fields.values()}
        size = sizes.pop() if len(sizes) == 1 else 1
    else:
        size = dtype.base.itemsize
    return size if size in (1, 2, 4, 8) else 1


_KIND_CLASS = {"f": "float", "i": "integer", "u": "integer", "b": "boolean"}


def page_type_class(column_type: str) -> str:
    """An RNTuple column's kind of data, in the classes of `type_class`: offsets (Index*) are
    the counts of a collection, Switch columns the tags of a variant (an object)."""
    if "Index" in column_type:
        return "counts"
    if "Real" in column_type:
        return "float"
    if column_type == "Bit":
        return "boolean"
    if column_type == "Char":
        return "string"
    if column_type == "Switch":
        return "object"
    return "integer"  # Byte, (Split)(U)Int8..64


def type_class(branch: Any, count_branches: frozenset[str] = frozenset()) -> str:
    """The branch's kind of data (docs/CORPUS_FORMAT.md `type_class`).

    `counts` for a collection's size branch (another branch's fLeafCount, e.g. nJet);
    numbers by their dtype (a jagged branch by its content's); `string` for strings;
    everything else, including what uproot cannot interpret, is `object`.
    """
    import uproot

    if branch.name in count_branches:
        return "counts"
    try:
        interpretation = branch.interpretation
    except Exception:  # uproot raises many kinds for branches it cannot interpret
        return "object"
    if isinstance(interpretation, uproot.interpretation.strings.AsStrings):
        return "string"
    if isinstance(interpretation, uproot.interpretation.jagged.AsJagged):
        interpretation = interpretation.content
    if not isinstance(interpretation, uproot.interpretation.numerical.AsDtype):
        return "object"
    dtype = interpretation.from_dtype
    kinds = {v[0].base.kind for v in dtype.fields.values()} if dtype.fields else {dtype.base.kind}
    classes = {_KIND_CLASS.get(k, "object") for k in kinds}
    return classes.pop() if len(classes) == 1 else "object"


def count_branch_names(tree: Any) -> frozenset[str]:
    """Names of the branches that hold the sizes of other branches' collections."""
    names = set()
    for _path, branch in tree.iteritems(recursive=True):
        try:
            count = branch.count_branch
        except Exception:  # not a jagged leaf
            continue
        if count is not None:
            names.add(count.name)
    return frozenset(names)


def normal_basket_count(branch: Any) -> int:
    """Baskets written as their own TKey (uproot's rule: stop at seek 0 or fWriteBasket)."""
    count = 0
    write_basket = branch.member("fWriteBasket")
    for i, seek in enumerate(branch.member("fBasketSeek")):
        if seek == 0 or i == write_basket:
            break
        count += 1
    return count


def rebuild_raw(data: bytes, byte_offsets: Any, keylen: int) -> bytes:
    """The buffer ROOT would compress for a basket: data + [n+1, offsets+fKeylen..., 0] (>i4).

    Used for embedded baskets, which uproot gives as data + offsets only; the
    extraction checks this rule against every normal basket's raw_data.
    """
    if byte_offsets is None:
        return bytes(data)
    n = len(byte_offsets) - 1
    array = np.empty(n + 2, dtype=_OFFSETS_DTYPE)
    array[0] = n + 1
    array[1 : n + 1] = np.asarray(byte_offsets[:-1]) + keylen
    array[n + 1] = 0
    return bytes(data) + array.tobytes()


def _latest_cycles(classnames: dict[str, str]) -> Iterator[tuple[str, int, str]]:
    """(name, highest cycle, class) per object: older cycles are stale copies of the metadata."""
    best: dict[str, tuple[int, str]] = {}
    for key, classname in classnames.items():
        name, _, cycle = key.rpartition(";")
        number = int(cycle) if cycle.isdigit() else 0
        if name not in best or number > best[name][0]:
            best[name] = (number, classname)
    for name, (number, classname) in best.items():
        yield name, number, classname


class _Extractor:
    def __init__(self, writer: CorpusWriter, log: Log, kinds: frozenset[str]) -> None:
        self.writer = writer
        self.kinds = kinds
        self.log = log
        self.messages: list[str] = []
        self.progress: Callable[[int], None] | None = None
        self.read_bytes = 0  # on-disk bytes of what was extracted, for `progress`

    def note(self, message: str) -> None:
        self.messages.append(message)
        self.log(message)

    def extract_file(self, path: Path, tree_name: str | None) -> FileSummary | None:
        import uproot

        if not path.is_file():
            raise ExtractionError(f"{path}: no such file")
        check_root_header(path)
        try:
            root_file = uproot.open(path)
        except Exception as exc:
            raise ExtractionError(f"{path}: not a readable ROOT file ({exc})") from exc
        try:
            with root_file, open(path, "rb") as raw_fh:
                return self._extract_open(path, root_file, raw_fh, tree_name)
        except ExtractionError:
            raise
        except TTreeReadError as exc:  # damaged blocks, read by our own decoder (blocks.py)
            raise ExtractionError(str(exc)) from exc
        except Exception as exc:  # truncated or damaged files fail deep inside uproot
            raise ExtractionError(
                f"{path}: cannot read (truncated or damaged ROOT file?): "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def _extract_open(
        self, path: Path, root_file: Any, raw_fh: IO[bytes], tree_name: str | None
    ) -> FileSummary | None:
        decode_streamers_with_blocks(root_file, path.name)
        fcompress = int(root_file.file.fCompress)
        summary = FileSummary(path=path.name, fcompress=fcompress)
        objects = list(_latest_cycles(root_file.classnames(recursive=True, cycle=True)))
        trees, ntuples = [], []
        for name, cycle, classname in objects:
            if tree_name not in (None, name, name.rsplit("/", 1)[-1]):
                continue
            if classname in TREE_CLASSES:
                if "basket" in self.kinds:
                    trees.append((name, cycle))
            elif classname == NTUPLE_CLASS:
                if "page" in self.kinds:
                    ntuples.append((name, cycle))
            elif "RNTuple" in classname:
                self.note(f"{path.name}: skipped {classname} {name!r}: a pre-release RNTuple "
                          "(format before 1.0), not supported")
        if tree_name is not None and not trees and not ntuples:
            available = [n for n, _, c in objects if c in TREE_CLASSES or c == NTUPLE_CLASS]
            raise ExtractionError(
                f"{path}: no TTree or RNTuple named {tree_name!r} (there are: {available})")
        if not trees and not ntuples:
            self.note(f"{path.name}: skipped, no TTree or RNTuple in the file")
            return None
        file_index: int | None = None

        def add(**item: Any) -> None:
            nonlocal file_index
            if file_index is None:
                file_index = self.writer.add_file(path.name, fcompress, file_sha256(path))
            record = self.writer.add_basket(file=file_index, **item)
            summary.baskets += 1
            summary.pages += record.kind == "page"
            summary.raw_bytes += record.raw[1]
            summary.root_compressed_bytes += record.root_compressed_bytes
            summary.compressed_baskets += record.root_compressed is not None
            summary.embedded_baskets += record.embedded
            if self.progress is not None:
                self.read_bytes += record.root_compressed_bytes or record.raw[1]
                self.progress(self.read_bytes)

        for name, cycle in trees:
            tree = read_object(root_file, f"{name};{cycle}", f"{path.name}: TTree {name!r}")
            summary.trees.append(name)
            counts = count_branch_names(tree)
            for branch_path, branch in tree.iteritems(recursive=True):
                for item in self._branch_baskets(path, branch, fcompress, raw_fh, counts):
                    add(tree=name, branch=branch_path, **item)
        for name, cycle in ntuples:
            summary.ntuples.append(name)
            for item in self._ntuple_pages(path, root_file, raw_fh, name, cycle, fcompress):
                add(tree=name, **item)
        if file_index is None:
            self.note(f"{path.name}: skipped, its trees and RNTuples hold no baskets or pages")
            return None
        return summary

    def _ntuple_pages(
        self, path: Path, root_file: Any, raw_fh: IO[bytes], name: str, cycle: int,
        file_fcompress: int,
    ) -> Iterator[dict[str, Any]]:
        key = root_file.key(f"{name};{cycle}")
        size = path.stat().st_size
        try:
            ntuple = load_ntuple(raw_fh, size, key, name, path.name)
            for page, raw, compressed in iter_pages(raw_fh, size, ntuple, path.name):
                column = ntuple.columns[page.column]
                yield {
                    "branch": ntuple.fields[column.field].path,
                    "basket": page.number,
                    "element_size": column.element_size,
                    "entries": page.elements,
                    "data_bytes": len(raw),
                    "entry_offsets": None,
                    "raw": raw,
                    "root_compressed": compressed,
                    "fcompress": page.compression if page.compression != file_fcompress else None,
                    "kind": "page",
                    "type_class": page_type_class(column.type.name),
                    "column": page.column,
                    "column_type": column.type.name,
                    "encoding": column.type.encoding,
                    "bits": column.bits,
                    "cluster": page.cluster,
                }
        except RNTupleError as exc:
            raise ExtractionError(str(exc)) from exc

    def _branch_baskets(
        self,
        path: Path,
        branch: Any,
        file_fcompress: int,
        raw_fh: IO[bytes],
        count_branches: frozenset[str],
    ) -> Iterator[dict[str, Any]]:
        branch_fcompress = int(branch.member("fCompress"))
        fcompress = branch_fcompress if branch_fcompress >= 0 else file_fcompress
        common = {
            "element_size": element_size(branch),
            "type_class": type_class(branch, count_branches),
            "fcompress": fcompress if fcompress != file_fcompress else None,
        }
        count = normal_basket_count(branch)
        for i in range(count):
            where = f"{path.name}: branch {branch.object_path!r} basket {i}"
            basket = read_basket(branch, i, raw_fh, where)
            if rebuild_raw(basket.data, basket.byte_offsets, basket.keylen) != basket.raw:
                # Harmless for this basket (raw is ROOT's buffer), but the rule used to
                # rebuild embedded baskets does not hold here: say so.
                self.note(f"{where}: entry-offset array not in the usual layout")
            yield {
                **common,
                "basket": i,
                "entries": basket.entries,
                "data_bytes": basket.border,
                "entry_offsets": _entry_starts(basket.byte_offsets),
                "raw": basket.raw,
                "root_compressed": basket.compressed,
            }
        basket_entry = branch.member("fBasketEntry")
        if count >= len(basket_entry) or branch.member("fEntries") == basket_entry[count]:
            return
        # Baskets still in memory when the file was closed live inside the TBranch,
        # uncompressed; they are realistic data, so keep them, marked as embedded.
        try:
            embedded = list(branch.embedded_baskets)
        except Exception as exc:
            self.note(
                f"{path.name}: branch {branch.object_path!r}: embedded baskets unreadable, "
                f"skipped ({type(exc).__name__})"
            )
            return
        for k, basket in enumerate(embedded):
            raw = rebuild_raw(basket.data, basket.byte_offsets, basket.member("fKeylen"))
            yield {
                **common,
                "basket": count + k,
                "entries": int(basket.num_entries),
                "data_bytes": int(basket.border),
                "entry_offsets": _entry_starts(basket.byte_offsets),
                "raw": raw,
                "root_compressed": None,
                "embedded": True,
            }


def _entry_starts(byte_offsets: Any) -> list[int] | None:
    # uproot gives n+1 boundaries; the corpus stores the n entry starts.
    return None if byte_offsets is None else [int(x) for x in byte_offsets[:-1]]


def extract_corpus(
    paths: Iterable[str | Path],
    out: str | Path,
    name: str | None = None,
    *,
    tree: str | None = None,
    log: Log | None = None,
    kinds: Iterable[str] = ("basket", "page"),
    progress: Callable[[int, int], None] | None = None,
) -> CorpusSummary:
    """Extract all baskets and pages of `paths` into the corpus file `out` (written atomically).

    `progress(done, total)` follows the bytes read: the on-disk bytes of the baskets and pages
    extracted so far against the input files' sizes (headers and metadata make up the rest;
    the last call is (total, total))."""
    out = Path(out)
    inputs = [Path(p) for p in paths]
    if not inputs:
        raise ExtractionError("no input files given")
    if not out.parent.is_dir():
        raise ExtractionError(f"{out}: output directory {out.parent} does not exist")
    corpus_name = name or out.stem
    with CorpusWriter(out, corpus_name, created_by=f"basketbench {package_version()}") as writer:
        wanted = frozenset(kinds)
        if not wanted or not wanted <= {"basket", "page"}:
            raise ExtractionError(f"kinds must name 'basket' and/or 'page', got {sorted(wanted)}")
        extractor = _Extractor(writer, log or (lambda _msg: None), wanted)
        total = sum(p.stat().st_size for p in inputs if p.is_file())
        if progress is not None:
            report = progress
            extractor.progress = lambda done: report(min(done, total), total)
            report(0, total)
        files = [s for p in inputs if (s := extractor.extract_file(p, tree)) is not None]
        if progress is not None:
            progress(total, total)
        if not files:
            raise ExtractionError(
                "nothing to extract: no TTree baskets or RNTuple pages in "
                + ", ".join(str(p) for p in inputs)
                + "".join(f"\n  {m}" for m in extractor.messages)
            )
        writer.commit()
        return CorpusSummary(out, corpus_name, writer.checksum, files, extractor.messages)
