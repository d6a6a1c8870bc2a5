"""A file's buffers as corpora: the whole file, and one corpus per data shape.

A shape is the kind of data a buffer holds, as the corpus extraction classifies it
(docs/CORPUS_FORMAT.md `type_class`: float, integer, boolean, counts, string, object; RNTuple
pages by their column type). Baskets a small file keeps embedded in their TBranch are measured
like the others: they are the branch's data as ROOT compresses it once a basket is flushed, and
in the small real files (NanoAOD: 947 of 949 baskets) they are nearly all the data.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from basketbench.measure.rootio.corpus_format import Basket, Corpus, CorpusWriter, read_corpus
from basketbench.measure.rootio.extract import extract_corpus


@dataclass(frozen=True)
class FileCorpora:
    whole: Path
    shapes: dict[str, Path]  # shape -> corpus
    format: str  # "ttree" | "rntuple" (pages present: rntuple)
    buffers: int
    embedded_buffers: int  # of them, baskets kept inside their TBranch by ROOT
    uncompressed_bytes: int
    shape_buffers: dict[str, int]
    shape_bytes: dict[str, int]


def _shape(b: Basket) -> str:
    return b.type_class or "unknown"


def _copy(corpus: Corpus, chosen: list[int], out: Path, name: str) -> None:
    with CorpusWriter(out, name, created_by=corpus.created_by) as writer:
        index: dict[int, int] = {}
        for i in chosen:
            b = corpus.baskets[i]
            if b.file not in index:
                f = corpus.files[b.file]
                index[b.file] = writer.add_file(f.path, f.fcompress, f.sha256)
            writer.add_basket(
                file=index[b.file], tree=b.tree, branch=b.branch, basket=b.basket,
                element_size=b.element_size, entries=b.entries, data_bytes=b.data_bytes,
                entry_offsets=b.entry_offsets, raw=corpus.raw(i),
                root_compressed=corpus.root_compressed(i), fcompress=b.fcompress,
                embedded=b.embedded, type_class=b.type_class, kind=b.kind, column=b.column,
                column_type=b.column_type, encoding=b.encoding, bits=b.bits, cluster=b.cluster)
        writer.commit()


def file_corpora(root_file: Path, work: Path) -> FileCorpora:
    """Extract the file's baskets / pages into `work` (whole + per shape)."""
    extracted = work / "extracted.bbc"
    extract_corpus([root_file], extracted, name=root_file.stem)
    corpus = read_corpus(extracted)
    kept = [i for i, b in enumerate(corpus.baskets) if b.raw[1] > 0]
    if not kept:
        raise ValueError(f"{root_file.name} holds no buffer ROOT compresses")
    whole = work / "whole.bbc"
    _copy(corpus, kept, whole, "whole")
    groups: dict[str, list[int]] = defaultdict(list)
    for i in kept:
        groups[_shape(corpus.baskets[i])].append(i)
    shapes: dict[str, Path] = {}
    for shape, chosen in sorted(groups.items()):
        path = work / f"shape-{shape}.bbc"
        _copy(corpus, chosen, path, shape)
        shapes[shape] = path
    fmt = "rntuple" if any(corpus.baskets[i].kind == "page" for i in kept) else "ttree"
    return FileCorpora(
        whole=whole, shapes=shapes, format=fmt, buffers=len(kept),
        embedded_buffers=sum(corpus.baskets[i].embedded for i in kept),
        uncompressed_bytes=sum(corpus.baskets[i].raw[1] for i in kept),
        shape_buffers={s: len(ix) for s, ix in groups.items()},
        shape_bytes={s: sum(corpus.baskets[i].raw[1] for i in ix) for s, ix in groups.items()})
