"""RNTuple pages read by measure/rootio/rntuple.py, checked against uproot 5's own RNTuple reader
and the ROOT file's bytes; damaged and unsupported inputs fail naming field and offset."""

from __future__ import annotations

import io
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import uproot
import xxhash
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench.measure.rootio.extract import ExtractionError, extract_corpus
from basketbench.measure.rootio.rntuple import (
    NTuple,
    RNTupleError,
    decode_elements,
    decompress_blocks,
    encode_elements,
    iter_pages,
    read_ntuple,
)

from .conftest import RNTUPLE_FILE, real_file

NAMES = ("DataHeader", "DataHeaderForm", "EventData", "EventTag")


def _anchor(data: bytes, root_file: uproot.ReadOnlyDirectory, name: str) -> bytes:
    key = root_file.key(name)
    start = key.fSeekKey + key.fKeylen
    return decompress_blocks(data[start:key.fSeekKey + key.fNbytes], key.fObjlen, name)


@pytest.fixture(scope="module")
def physlite() -> tuple[Path, bytes]:
    path = real_file(RNTUPLE_FILE)
    return path, path.read_bytes()


def _read(data: bytes, anchor: bytes, name: str = "EventData") -> NTuple:
    return read_ntuple(io.BytesIO(data), len(data), anchor, name, "test.root")


def test_every_page_decodes_to_uproots_column_values(physlite: tuple[Path, bytes]) -> None:
    """Each column of each cluster: our decoded pages == uproot's read_cluster_pages."""
    path, data = physlite
    types: Counter[str] = Counter()
    with uproot.open(path) as root_file:
        for name in NAMES:
            nt = _read(data, _anchor(data, root_file, name), name)
            ours: dict[tuple[int, int], list[np.ndarray]] = {}
            for page, raw, compressed in iter_pages(io.BytesIO(data), len(data), nt, "t"):
                column = nt.columns[page.column]
                values = decode_elements(column.type, raw, page.elements)
                assert len(values) == page.elements
                if column.type.name != "Bit":  # ROOT leaves the padding bits of the last byte set
                    assert encode_elements(column.type, values) == raw
                else:
                    assert np.array_equal(decode_elements(
                        column.type, encode_elements(column.type, values), page.elements), values)
                if compressed is not None:
                    assert compressed == data[page.offset:page.offset + page.size]
                ours.setdefault((page.cluster, page.column), []).append(values)
            uproot_ntuple = root_file[name]
            for (cluster, col), parts in ours.items():
                theirs = uproot_ntuple.read_cluster_pages(
                    cluster, col, uproot_ntuple.get_field_metadata(col))
                mine = np.concatenate(parts)
                assert np.array_equal(mine, theirs.astype(mine.dtype, copy=False)), (name, col)
                types[nt.columns[col].type.name] += 1
            assert len(ours) == sum(1 for c in nt.columns if any(
                p.column == c.index for p in nt.pages))
    # the column types this file exercises (all of them compared with uproot)
    assert set(types) == {"SplitUInt32", "SplitUInt64", "SplitIndex64", "SplitInt32", "Char",
                          "SplitUInt16", "UInt8", "SplitInt64", "SplitReal32", "SplitReal64",
                          "Bit", "SplitInt16"}
    assert sum(types.values()) == 1807


def test_extracted_pages_carry_their_column_metadata(
    physlite: tuple[Path, bytes], tmp_path: Path
) -> None:
    path, data = physlite
    summary = extract_corpus([path], tmp_path / "p.bbc", tree="EventTag")
    corpus = read_corpus(summary.path, verify_checksums=True)
    assert {b.kind for b in corpus.baskets} == {"page"} and summary.pages == 15
    by_field = {b.branch: b for b in corpus.baskets}
    run = by_field["RunNumber"]
    assert (run.column_type, run.encoding, run.bits, run.element_size) == (
        "SplitUInt32", "split", 32, 4)
    assert run.entries == 100 and run.data_bytes == 400 and run.cluster == 0
    assert by_field["IsSimulation"].column_type == "Bit"
    assert by_field["IsSimulation"].element_size == 1
    # the JSON round trip keeps the optional page fields
    header = corpus.header["baskets"][corpus.baskets.index(run)]
    assert header["kind"] == "page" and header["column_type"] == "SplitUInt32"
    with uproot.open(path) as root_file:
        expected = root_file["EventTag"]["RunNumber"].array(library="np")
    index = corpus.baskets.index(run)
    assert np.array_equal(decode_elements_by_name(run.column_type, corpus.raw(index), 100),
                          expected)
    stored = corpus.root_compressed(index)
    assert stored is None or stored[:2] == b"ZS"


def decode_elements_by_name(name: str | None, raw: bytes, n: int) -> np.ndarray:
    from basketbench.measure.rootio.rntuple import COLUMN_TYPES_BY_NAME

    assert name is not None
    return decode_elements(COLUMN_TYPES_BY_NAME[name], raw, n)


# --------------------------------------------------------------------------- corner cases


def _anchor_with(anchor: bytes, **changes: int) -> bytes:
    """The anchor with some fields replaced and its XXH3 recomputed."""
    names = ("epoch", "major", "minor", "patch", "seek_header", "nbytes_header", "len_header",
             "seek_footer", "nbytes_footer", "len_footer", "max_key_size")
    layout = struct.Struct(">4H7Q")
    values = dict(zip(names, layout.unpack(anchor[6:6 + layout.size]), strict=True))
    values.update(changes)
    fields = layout.pack(*(values[n] for n in names))
    return anchor[:6] + fields + xxhash.xxh3_64_intdigest(fields).to_bytes(8, "big")


def _header(data: bytes, anchor: bytes) -> bytes:
    nt = _read(data, anchor)
    start = nt.anchor.seek_header
    return decompress_blocks(data[start:start + nt.anchor.nbytes_header], nt.anchor.len_header,
                             "header")


def _with_header(data: bytes, anchor: bytes, header: bytes) -> tuple[bytes, bytes]:
    """The file with `header` appended, stored uncompressed, and an anchor pointing at it."""
    return data + header, _anchor_with(anchor, seek_header=len(data), nbytes_header=len(header),
                                       len_header=len(header))


@pytest.fixture(scope="module")
def event_data(physlite: tuple[Path, bytes]) -> tuple[bytes, bytes]:
    path, data = physlite
    with uproot.open(path) as root_file:
        return data, _anchor(data, root_file, "EventData")


def test_unsupported_format_version_names_the_field(event_data: tuple[bytes, bytes]) -> None:
    data, anchor = event_data
    with pytest.raises(RNTupleError, match=r"'Version Epoch' at byte 6: unsupported RNTuple "
                       r"format version 2\.0\.0\.0"):
        _read(data, _anchor_with(anchor, epoch=2))


def test_damaged_anchor_and_envelope_are_refused(event_data: tuple[bytes, bytes]) -> None:
    data, anchor = event_data
    damaged = bytearray(anchor)
    damaged[20] ^= 1
    with pytest.raises(RNTupleError, match=r"anchor checksum \(XXH3\) at byte 70"):
        _read(data, bytes(damaged))
    header = bytearray(_header(data, anchor))
    header[100] ^= 0x40
    new_data, new_anchor = _with_header(data, anchor, bytes(header))
    with pytest.raises(RNTupleError, match=rf"header envelope at file offset {len(data)}: "
                       rf"envelope checksum \(XXH3\) at byte {len(header) - 8}"):
        _read(new_data, new_anchor)


def test_unknown_column_type_names_the_column_and_offset(event_data: tuple[bytes, bytes]) -> None:
    data, anchor = event_data
    nt = _read(data, anchor)
    header = bytearray(_header(data, anchor))
    at = nt.columns[3].record_offset + 8  # after the record frame's size
    header[at:at + 2] = (0x7E).to_bytes(2, "little")
    header[-8:] = xxhash.xxh3_64_intdigest(bytes(header[:-8])).to_bytes(8, "little")
    new_data, new_anchor = _with_header(data, anchor, bytes(header))
    with pytest.raises(RNTupleError, match=rf"column record 3 \(list item 3\) type at byte {at}: "
                       r"unknown column type 0x7e"):
        _read(new_data, new_anchor)


def test_truncated_and_damaged_pages(event_data: tuple[bytes, bytes], tmp_path: Path) -> None:
    data, anchor = event_data
    nt = _read(data, anchor)
    last = max(nt.pages, key=lambda p: p.offset)
    cut = data[:last.offset + last.size // 2]
    with pytest.raises(RNTupleError, match=rf"page {last.number} \(cluster 0\) at file offset "
                       rf"{last.offset} \({last.size + 8} bytes\) runs past the end of the file"):
        list(iter_pages(io.BytesIO(cut), len(cut), nt, "t"))
    page = next(p for p in nt.pages if p.has_checksum)
    damaged = bytearray(data)
    damaged[page.offset + page.size] ^= 1
    with pytest.raises(RNTupleError, match=rf"page checksum \(XXH3\) at file offset "
                       rf"{page.offset + page.size} does not match"):
        list(iter_pages(io.BytesIO(bytes(damaged)), len(damaged), nt, "t"))
    # through the extraction command's entry point: a clear ExtractionError, no corpus
    broken = tmp_path / "broken.root"
    broken.write_bytes(bytes(damaged))
    with pytest.raises(ExtractionError, match="page checksum"):
        extract_corpus([broken], tmp_path / "broken.bbc", tree="EventData")
    assert not (tmp_path / "broken.bbc").exists()


# --------------------------------------------------------------------------- re-paging


def test_repage_keeps_values_and_reproduces_roots_pages(
    physlite: tuple[Path, bytes], tmp_path: Path
) -> None:
    from basketbench.measure.rootio.repage import RepageError, repage_corpus

    path, _ = physlite
    source = extract_corpus([path], tmp_path / "src.bbc").path
    original = read_corpus(source)
    pages = [(b, raw) for b, raw in original.iter_raw() if b.kind == "page"]

    def columns(corpus_path: Path) -> dict[tuple[str, int], np.ndarray]:
        out: dict[tuple[str, int], list[np.ndarray]] = {}
        for b, raw in read_corpus(corpus_path).iter_raw():
            assert b.kind == "page" and b.column is not None
            values = decode_elements_by_name(b.column_type, raw, b.entries)
            out.setdefault((b.tree, b.column), []).append(values)
        return {k: np.concatenate(v) for k, v in out.items()}

    # every column holds one cluster here, so 1 MiB pages are ROOT's own pages, byte for byte
    # (but for Bit pages, whose padding bits ROOT leaves set)
    same = repage_corpus(source, tmp_path / "1m.bbc", 1 << 20)
    assert same.pages_out == same.pages_in == len(pages) == 1807
    for (b, raw), (c, again) in zip(pages, read_corpus(same.path).iter_raw(), strict=True):
        assert (c.tree, c.branch, c.column_type, c.entries) == (
            b.tree, b.branch, b.column_type, b.entries)
        assert again == raw or b.column_type == "Bit"
    reference = columns(same.path)
    small = repage_corpus(source, tmp_path / "1k.bbc", 1024)
    assert small.pages_out > small.pages_in
    assert all(b.raw[1] <= 1024 for b in read_corpus(small.path).baskets)
    flat = repage_corpus(source, tmp_path / "unsplit.bbc", 1 << 20, "unsplit")
    types = {b.column_type for b in read_corpus(flat.path).baskets}
    assert "SplitReal32" not in types and {"Real32", "Index64", "Int32"} <= types
    for corpus_path in (small.path, flat.path):
        got = columns(corpus_path)
        assert got.keys() == reference.keys()
        assert all(np.array_equal(got[k], reference[k]) for k in reference)
    with pytest.raises(RepageError, match="page_size must be at least 64"):
        repage_corpus(source, tmp_path / "x.bbc", 8)
    hzz = extract_corpus([real_file("uproot-HZZ-zlib.root")], tmp_path / "hzz.bbc").path
    with pytest.raises(RepageError, match="no RNTuple pages"):
        repage_corpus(hzz, tmp_path / "y.bbc", 4096)


def test_corpus_page_fields_are_checked(tmp_path: Path) -> None:
    """A page record needs its column metadata; an unknown kind is refused, naming the field."""
    import json

    from basketbench.measure.rootio.corpus_format import CorpusFormatError, CorpusWriter

    def corpus(**extra: object) -> Path:
        out = tmp_path / "c.bbc"
        with CorpusWriter(out, "c", created_by="test", page_size=4096) as writer:
            writer.add_file("f.root", 505, "0" * 64)
            writer.add_basket(file=0, tree="t", branch="x", basket=0, element_size=4, entries=2,
                              data_bytes=8, entry_offsets=None, raw=bytes(8),
                              root_compressed=None, kind="page", column=0,
                              column_type="SplitReal32", encoding="split", bits=32, cluster=0)
            header = writer.header()
            header["baskets"][0].update(extra)
            writer.header = lambda: header  # type: ignore[method-assign]
            writer.commit()
        return out

    good = read_corpus(corpus())
    assert good.page_size == 4096 and good.baskets[0].column_type == "SplitReal32"
    with pytest.raises(CorpusFormatError, match=r"baskets\[0\]\.kind must be one of"):
        read_corpus(corpus(kind="leaf"))
    with pytest.raises(CorpusFormatError, match=r"baskets\[0\] is a page but lacks 'bits'"):
        read_corpus(corpus(bits=None))
    with pytest.raises(CorpusFormatError, match=r"baskets\[0\]\.column must be an integer"):
        read_corpus(corpus(column="3"))
    assert json.loads(json.dumps(good.header))["page_size"] == 4096


def test_rzbench_measures_pages_in_every_dimension(
    physlite: tuple[Path, bytes], rzbench: Path, tmp_path: Path
) -> None:
    """ROOT's pages (Bit, split and delta columns) through every setting family, both
    preconditioners, a dictionary, basket re-chunking, random access and 2 threads: every
    buffer round-trips, and the document says the dataset is RNTuple pages."""
    from basketbench.measure.document.contract import load_document
    from basketbench.measure.rzbench.runner import BenchOptions, run_bench

    path, _ = physlite
    corpus = extract_corpus([path], tmp_path / "tag.bbc", tree="EventTag").path
    out = tmp_path / "out.json"
    code, stderr = run_bench(BenchOptions(
        corpora=[corpus], settings=[101, 404, 505], preconditioners=["none", "bitshuffle"],
        dictionary_sizes=[0, 4096], basket_sizes=[0, 4096], modes=["basket", "rac-random"],
        threads=[1, 2], min_samples=1, target_ms=0, memcpy=False), out, binary=rzbench)
    assert code == 0, stderr
    document = load_document(out)
    (dataset,) = document["datasets"]
    assert (dataset["kind"], dataset["pages"], dataset["page_size"]) == ("rntuple", 15, None)
    results = document["results"]
    assert len(results) == 2 * 16 + 32  # dictionaries are ZSTD's only
    assert all(r["roundtrip_ok"] for r in results), [r["error"] for r in results][:3]
