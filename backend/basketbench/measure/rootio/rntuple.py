"""Read RNTuple pages out of a ROOT file, as ROOT wrote them (binary format 1.x).

Follows RNTuple's binary format specification (tree/ntuple/doc/BinaryFormatSpecification.md
in root-project/root): the `ROOT::RNTuple` anchor (big-endian, XXH3-checked) links the
header and footer envelopes; the footer's cluster groups link page-list envelopes; those
give every page's locator, element count and compression setting. Every envelope's XXH3
and every page checksum are checked, and each page is decompressed from its ROOT blocks.

What a page keeps is the buffer ROOT handed to its compressor: the column's elements in
the column's encoding (split, delta, zigzag), so a codec sees exactly what it sees in ROOT.
`decode_elements`/`encode_elements` convert between that buffer and the values, to
cross-check with uproot and to re-page a column at another page size.

Every malformed input raises RNTupleError naming the field and the byte offset.

Blocks are decoded by blocks.py (the one decoder of ROOT blocks here). uproot 5 parses the same
structures (models/RNTuple.py: the anchor, the header and footer envelopes, the page-list
envelopes and page descriptions); per structure we keep our own parsing, because:

- anchor: uproot checks its XXH3 with a bare `assert` (gone under `python -O`, no offset) and
  does not refuse another format epoch; ours names the field and byte, and is one struct;
- header/footer envelopes: uproot's readers keep no byte offsets (our errors name field and
  offset, and tests edit a column record at its `record_offset`), check the envelope and
  header checksums with bare `assert`s, and decompress through uproot's own decoder
  instead of blocks.py;
- page lists: uproot gives each page's element count, locator and checksum flag, but checks no
  page checksum, and the extraction needs each page's on-disk bytes, cluster and number in
  its column, which we would still compute here;
- pages: uproot decodes pages to values; a corpus needs the encoded buffer ROOT compressed
  and its stored bytes, which only a reader of its own gives.

Switching any of them would change the damaged-input messages that tests pin; instead
tests/measure/test_rntuple.py cross-checks every decoded page with uproot's values.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import xxhash

from basketbench.measure.rootio import blocks, lossy_floats
from basketbench.measure.rootio.blocks import BlockError
from basketbench.measure.rootio.lossy_floats import LossyError, Representation

SUPPORTED_EPOCH = 1
ENVELOPE_HEADER, ENVELOPE_FOOTER, ENVELOPE_PAGELIST = 1, 2, 3
_ENVELOPE_NAMES = {ENVELOPE_HEADER: "header", ENVELOPE_FOOTER: "footer",
                   ENVELOPE_PAGELIST: "page list"}
_ANCHOR = struct.Struct(">4H7Q")  # version epoch/major/minor/patch, seek/nbytes/len x2, max key


class RNTupleError(ValueError):
    """A malformed or unsupported RNTuple (the message names the field and its offset)."""


@dataclass(frozen=True)
class ColumnType:
    """An on-disk column type: its name, bits per element and page encoding."""

    code: int
    name: str
    bits: int | None  # None: bits on storage come from the column record (Real32Trunc/Quant)
    encoding: str  # plain | split | split+delta | split+zigzag | bitpacked
    dtype: str | None  # little-endian numpy dtype of one element, None if not a plain number


def _types() -> dict[int, ColumnType]:
    rows = [
        (0x00, "Bit", 1, "bitpacked", "?"), (0x01, "Byte", 8, "plain", "u1"),
        (0x02, "Char", 8, "plain", "i1"), (0x03, "Int8", 8, "plain", "i1"),
        (0x04, "UInt8", 8, "plain", "u1"), (0x05, "Int16", 16, "plain", "<i2"),
        (0x06, "UInt16", 16, "plain", "<u2"), (0x07, "Int32", 32, "plain", "<i4"),
        (0x08, "UInt32", 32, "plain", "<u4"), (0x09, "Int64", 64, "plain", "<i8"),
        (0x0A, "UInt64", 64, "plain", "<u8"), (0x0B, "Real16", 16, "plain", "<f2"),
        (0x0C, "Real32", 32, "plain", "<f4"), (0x0D, "Real64", 64, "plain", "<f8"),
        (0x0E, "Index32", 32, "plain", "<u4"), (0x0F, "Index64", 64, "plain", "<u8"),
        (0x10, "Switch", 96, "plain", None),
        (0x11, "SplitInt16", 16, "split+zigzag", "<i2"),
        (0x12, "SplitUInt16", 16, "split", "<u2"),
        (0x13, "SplitInt32", 32, "split+zigzag", "<i4"),
        (0x14, "SplitUInt32", 32, "split", "<u4"),
        (0x15, "SplitInt64", 64, "split+zigzag", "<i8"),
        (0x16, "SplitUInt64", 64, "split", "<u8"),
        (0x17, "SplitReal16", 16, "split", "<f2"),
        (0x18, "SplitReal32", 32, "split", "<f4"),
        (0x19, "SplitReal64", 64, "split", "<f8"),
        (0x1A, "SplitIndex32", 32, "split+delta", "<u4"),
        (0x1B, "SplitIndex64", 64, "split+delta", "<u8"),
        (0x1C, "Real32Trunc", None, "bitpacked", None),
        (0x1D, "Real32Quant", None, "bitpacked", None),
    ]
    return {code: ColumnType(code, name, bits, enc, dt) for code, name, bits, enc, dt in rows}


COLUMN_TYPES = _types()
COLUMN_TYPES_BY_NAME = {t.name: t for t in COLUMN_TYPES.values()}


# --------------------------------------------------------------------------- ROOT blocks


def decompress_blocks(data: bytes, size: int, where: str) -> bytes:
    """The `size` bytes that ROOT's 9-byte-framed blocks in `data` decompress to (blocks.py).

    `data` of exactly `size` bytes is stored uncompressed (RNTuple's rule).
    """
    try:
        return blocks.decompress(data, size, where)
    except BlockError as exc:
        raise RNTupleError(str(exc)) from exc


# --------------------------------------------------------------------------- metadata


@dataclass
class Field:
    name: str
    type_name: str
    parent: int
    role: int
    path: str = ""


@dataclass
class Column:
    index: int
    type: ColumnType
    bits: int
    field: int
    representation: int
    first_element: int = 0
    record_offset: int = 0  # where its record starts in the header (or footer) envelope
    # [min, max] of a column with a value range (flag 0x02; always set for Real32Quant)
    value_range: tuple[float, float] | None = None

    @property
    def element_size(self) -> int:
        """Bytes per element for Shuffle/BitShuffle: 1 when not a whole 1, 2, 4 or 8 bytes."""
        return self.bits // 8 if self.bits in (8, 16, 32, 64) else 1


@dataclass(frozen=True)
class Page:
    """One page's place on disk and what it holds."""

    cluster: int
    column: int
    number: int  # ordinal of the page within its column, over all clusters
    elements: int
    offset: int  # file offset of the (compressed) page
    size: int  # bytes on disk, not counting a trailing checksum
    has_checksum: bool
    compression: int  # the column range's compression setting (algorithm * 100 + level)


@dataclass
class Anchor:
    version: tuple[int, int, int, int]
    seek_header: int
    nbytes_header: int
    len_header: int
    seek_footer: int
    nbytes_footer: int
    len_footer: int
    max_key_size: int


@dataclass
class NTuple:
    name: str
    anchor: Anchor
    fields: list[Field] = field(default_factory=list)
    columns: list[Column] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    entries: int = 0
    clusters: int = 0


class _Cursor:
    """Little-endian reads over one decoded envelope; errors name the envelope and the byte."""

    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.pos = 0
        self.where = where
        self.checksum = 0  # the envelope's XXH3, once checked

    def fail(self, what: str, message: str, at: int | None = None) -> RNTupleError:
        return RNTupleError(f"{self.where}: {what} at byte {self.pos if at is None else at}: "
                            f"{message}")

    def take(self, n: int, what: str) -> bytes:
        if self.pos + n > len(self.data):
            raise self.fail(what, f"needs {n} bytes, the envelope ends at {len(self.data)}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def u16(self, what: str) -> int:
        return int.from_bytes(self.take(2, what), "little")

    def u32(self, what: str) -> int:
        return int.from_bytes(self.take(4, what), "little")

    def i32(self, what: str) -> int:
        return int.from_bytes(self.take(4, what), "little", signed=True)

    def u64(self, what: str) -> int:
        return int.from_bytes(self.take(8, what), "little")

    def i64(self, what: str) -> int:
        return int.from_bytes(self.take(8, what), "little", signed=True)

    def string(self, what: str) -> str:
        n = self.u32(what)
        raw = self.take(n, what)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise self.fail(what, "is not UTF-8", self.pos - n) from exc

    def feature_flags(self, what: str) -> None:
        at = self.pos
        flags = self.i64(what)
        if flags != 0:
            raise self.fail(what, f"unsupported feature flags {flags:#x}", at)

    def frame(self, what: str, *, is_list: bool) -> tuple[int, int]:
        """Open a frame; return (end offset, item count). The caller seeks to the end."""
        at = self.pos
        size = self.i64(what)
        if (size < 0) != is_list:
            raise self.fail(what, f"expected a {'list' if is_list else 'record'} frame, "
                            f"size field is {size}", at)
        count = self.u32(what) if is_list else 0
        end = at + abs(size)
        if end > len(self.data) or end < self.pos:
            raise self.fail(what, f"frame of {abs(size)} bytes does not fit the envelope", at)
        return end, count

    def close(self, end: int, what: str) -> None:
        if self.pos > end:
            raise self.fail(what, f"frame content runs {self.pos - end} bytes past its end")
        self.pos = end

    def locator(self, what: str) -> tuple[int, int]:
        """(offset, size) of an on-disk locator, standard or large (type 0x01)."""
        at = self.pos
        head = self.i32(what)
        if head >= 0:
            return self.u64(what), head
        kind = (head >> 24) & 0xFF  # the type byte; the sign bit marks a non-standard locator
        if kind & 0x7F != 0x01 and abs(kind - 256) != 0x01:
            raise self.fail(what, f"unsupported locator type {kind:#x}", at)
        size = self.u64(what)
        return self.u64(what), size


def _read_at(fh: IO[bytes], offset: int, size: int, what: str, file_size: int) -> bytes:
    if offset + size > file_size:
        raise RNTupleError(f"{what} at file offset {offset} ({size} bytes) runs past the end "
                           f"of the file ({file_size} bytes): truncated file?")
    fh.seek(offset)
    return fh.read(size)


def read_anchor(data: bytes, where: str) -> Anchor:
    """Parse the streamed `ROOT::RNTuple` object (bytes after its TKey, decompressed)."""
    if len(data) < 6 + _ANCHOR.size + 8:
        raise RNTupleError(f"{where}: anchor is {len(data)} bytes, too short")
    head = 6  # ROOT's byte count (4) and class version (2)
    fields = data[head:head + _ANCHOR.size]
    checksum = int.from_bytes(data[head + _ANCHOR.size:head + _ANCHOR.size + 8], "big")
    values = _ANCHOR.unpack(fields)
    if xxhash.xxh3_64_intdigest(fields) != checksum:
        raise RNTupleError(f"{where}: anchor checksum (XXH3) at byte {head + _ANCHOR.size} "
                           "does not match its fields: damaged anchor")
    anchor = Anchor((values[0], values[1], values[2], values[3]), *values[4:])
    if anchor.version[0] != SUPPORTED_EPOCH:
        raise RNTupleError(
            f"{where}: anchor field 'Version Epoch' at byte {head}: unsupported RNTuple format "
            f"version {'.'.join(map(str, anchor.version))} (this reader: epoch "
            f"{SUPPORTED_EPOCH})")
    return anchor


def _envelope(raw: bytes, length: int, kind: int, where: str) -> _Cursor:
    data = decompress_blocks(raw, length, where)
    if len(data) < 16:
        raise RNTupleError(f"{where}: envelope of {len(data)} bytes is too short")
    if xxhash.xxh3_64_intdigest(data[:-8]) != int.from_bytes(data[-8:], "little"):
        raise RNTupleError(f"{where}: envelope checksum (XXH3) at byte {len(data) - 8} "
                           "does not match: damaged envelope")
    cursor = _Cursor(data[:-8], where)
    cursor.checksum = int.from_bytes(data[-8:], "little")
    preamble = cursor.u64("envelope type and length")
    if preamble & 0xFFFF != kind:
        raise cursor.fail("envelope type", f"is {preamble & 0xFFFF}, expected {kind} "
                          f"({_ENVELOPE_NAMES[kind]})", 0)
    if preamble >> 16 != len(data):
        raise cursor.fail("envelope length", f"says {preamble >> 16} bytes, the envelope has "
                          f"{len(data)}", 0)
    return cursor


class _Schema:
    def __init__(self, nt: NTuple) -> None:
        self.nt = nt

    def read(self, cur: _Cursor) -> None:
        end, count = cur.frame("field list", is_list=True)
        for i in range(count):
            self._field(cur, f"field record {len(self.nt.fields)} (list item {i})")
        cur.close(end, "field list")
        end, count = cur.frame("column list", is_list=True)
        for i in range(count):
            self._column(cur, f"column record {len(self.nt.columns)} (list item {i})")
        cur.close(end, "column list")
        for what in ("alias column list", "extra type information list"):
            end, _ = cur.frame(what, is_list=True)
            cur.close(end, what)

    def _field(self, cur: _Cursor, what: str) -> None:
        end, _ = cur.frame(what, is_list=False)
        cur.u32(what + " field version")
        cur.u32(what + " type version")
        parent = cur.u32(what + " parent field id")
        role = cur.u16(what + " structural role")
        flags = cur.u16(what + " flags")
        name = cur.string(what + " name")
        type_name = cur.string(what + " type name")
        cur.string(what + " type alias")
        cur.string(what + " description")
        if flags & 0x01:
            cur.u64(what + " array size")
        if flags & 0x02:
            cur.u32(what + " source field id")
        if flags & 0x04:
            cur.u32(what + " type checksum")
        cur.close(end, what)
        self.nt.fields.append(Field(name, type_name, parent, role))

    def _column(self, cur: _Cursor, what: str) -> None:
        at = cur.pos
        end, _ = cur.frame(what, is_list=False)
        code_at = cur.pos
        code = cur.u16(what + " type")
        bits = cur.u16(what + " bits on storage")
        field_id = cur.u32(what + " field id")
        flags = cur.u16(what + " flags")
        representation = cur.u16(what + " representation index")
        first = cur.i64(what + " first element index") if flags & 0x01 else 0
        value_range = None
        if flags & 0x02:
            low, high = struct.unpack("<2d", cur.take(16, what + " value range"))
            value_range = (low, high)
        cur.close(end, what)
        column_type = COLUMN_TYPES.get(code)
        if column_type is None:
            raise cur.fail(what + " type", f"unknown column type {code:#x}", code_at)
        expected = column_type.bits
        if (expected is not None and bits != expected) or (expected is None and
                                                            not 1 <= bits <= 32):
            raise cur.fail(what + " bits on storage",
                           f"{bits} bits for a {column_type.name} column", code_at + 2)
        if field_id >= len(self.nt.fields):
            raise cur.fail(what + " field id", f"{field_id} but there are "
                           f"{len(self.nt.fields)} fields", at)
        self.nt.columns.append(
            Column(len(self.nt.columns), column_type, bits, field_id, representation, first, at,
                   value_range))


def _field_paths(fields: list[Field]) -> None:
    for i, f in enumerate(fields):
        names, j, seen = [], i, set()
        while j not in seen:
            seen.add(j)
            names.append(fields[j].name)
            parent = fields[j].parent
            if parent == j or parent >= len(fields):
                break
            j = parent
        f.path = ".".join(reversed(names))


def read_ntuple(fh: IO[bytes], file_size: int, anchor_bytes: bytes, name: str,
                where: str) -> NTuple:
    """All metadata and page locations of one RNTuple whose anchor bytes are given."""
    where = f"{where}: RNTuple {name!r}"
    anchor = read_anchor(anchor_bytes, where)
    nt = NTuple(name, anchor)
    header_where = f"{where}: header envelope at file offset {anchor.seek_header}"
    raw = _read_at(fh, anchor.seek_header, anchor.nbytes_header, header_where, file_size)
    cur = _envelope(raw, anchor.len_header, ENVELOPE_HEADER, header_where)
    header_checksum = cur.checksum
    cur.feature_flags("feature flags")
    for what in ("name", "description", "writer"):
        cur.string(what)
    schema = _Schema(nt)
    schema.read(cur)

    footer_where = f"{where}: footer envelope at file offset {anchor.seek_footer}"
    raw = _read_at(fh, anchor.seek_footer, anchor.nbytes_footer, footer_where, file_size)
    cur = _envelope(raw, anchor.len_footer, ENVELOPE_FOOTER, footer_where)
    cur.feature_flags("feature flags")
    at = cur.pos
    if cur.u64("header checksum") != header_checksum:
        raise cur.fail("header checksum", "does not match the header envelope's XXH3", at)
    end, _ = cur.frame("schema extension", is_list=False)
    if end > cur.pos:
        schema.read(cur)
    cur.close(end, "schema extension")
    _field_paths(nt.fields)
    end, groups = cur.frame("cluster group list", is_list=True)
    links = []
    for g in range(groups):
        what = f"cluster group {g}"
        group_end, _ = cur.frame(what, is_list=False)
        cur.u64(what + " minimum entry number")
        cur.u64(what + " entry span")
        cur.u32(what + " number of clusters")
        length = cur.u64(what + " page list length")
        offset, size = cur.locator(what + " page list locator")
        cur.close(group_end, what)
        links.append((offset, size, length))
    cur.close(end, "cluster group list")

    numbers = [0] * len(nt.columns)
    for offset, size, length in links:
        pl_where = f"{where}: page list envelope at file offset {offset}"
        raw = _read_at(fh, offset, size, pl_where, file_size)
        cur = _envelope(raw, length, ENVELOPE_PAGELIST, pl_where)
        at = cur.pos
        if cur.u64("header checksum") != header_checksum:
            raise cur.fail("header checksum", "does not match the header envelope's XXH3", at)
        first_cluster = nt.clusters
        end, count = cur.frame("cluster summary list", is_list=True)
        for c in range(count):
            what = f"cluster summary {first_cluster + c}"
            summary_end, _ = cur.frame(what, is_list=False)
            cur.u64(what + " first entry")
            flag_at = cur.pos
            packed = cur.u64(what + " number of entries and flags")
            if (packed >> 56) & 0x01:
                raise cur.fail(what + " flags", "sharded clusters are not supported", flag_at)
            nt.entries += packed & ((1 << 56) - 1)
            cur.close(summary_end, what)
        cur.close(end, "cluster summary list")
        nt.clusters += count
        end, n_clusters = cur.frame("page locations", is_list=True)
        if n_clusters != count:
            raise cur.fail("page locations", f"{n_clusters} clusters, the summaries list {count}")
        for c in range(n_clusters):
            _cluster_pages(cur, nt, first_cluster + c, numbers)
        cur.close(end, "page locations")
    return nt


def load_ntuple(raw_fh: IO[bytes], file_size: int, key: Any, name: str, where: str) -> NTuple:
    """The RNTuple whose anchor is the object of ROOT file key `key` (an uproot ReadOnlyKey:
    fSeekKey, fKeylen, fObjlen, fNbytes); `where` names the file in errors."""
    keylen, objlen, nbytes = int(key.fKeylen), int(key.fObjlen), int(key.fNbytes)
    at = f"{where}: RNTuple anchor {name!r} at file offset {key.fSeekKey}"
    raw_fh.seek(int(key.fSeekKey) + keylen)
    stored = raw_fh.read(nbytes - keylen)
    if len(stored) != nbytes - keylen:
        raise RNTupleError(f"{at}: runs past the end of the file")
    anchor = decompress_blocks(stored, objlen, at)
    return read_ntuple(raw_fh, file_size, anchor, name, where)


def _cluster_pages(cur: _Cursor, nt: NTuple, cluster: int, numbers: list[int]) -> None:
    what = f"cluster {cluster} column list"
    end, n_columns = cur.frame(what, is_list=True)
    if n_columns > len(nt.columns):
        raise cur.fail(what, f"{n_columns} columns, the schema has {len(nt.columns)}")
    for col in range(n_columns):
        cwhat = f"cluster {cluster} column {col} page list"
        col_end, n_pages = cur.frame(cwhat, is_list=True)
        found = []
        for p in range(n_pages):
            pwhat = f"cluster {cluster} column {col} page {p}"
            elements = cur.i32(pwhat + " number of elements")
            offset, size = cur.locator(pwhat + " locator")
            found.append((abs(elements), elements < 0, offset, size))
        element_offset = cur.i64(cwhat + " element offset")
        compression = 0
        if element_offset >= 0:
            at = cur.pos
            compression = cur.u32(cwhat + " compression settings")
            if compression // 100 not in (0, 1, 2, 4, 5) or compression > 509:
                raise cur.fail(cwhat + " compression settings",
                               f"unknown setting {compression}", at)
        elif found:
            raise cur.fail(cwhat, "a suppressed column lists pages")
        cur.close(col_end, cwhat)
        for elements, has_checksum, offset, size in found:
            nt.pages.append(Page(cluster, col, numbers[col], elements, offset, size,
                                 has_checksum, compression))
            numbers[col] += 1
    cur.close(end, what)


def page_bytes(column: Column, elements: int) -> int:
    """Uncompressed size of a page of `elements` elements of `column`."""
    return (elements * column.bits + 7) // 8


def read_page(fh: IO[bytes], file_size: int, nt: NTuple, page: Page,
              where: str) -> tuple[bytes, bytes | None]:
    """(uncompressed page, ROOT's compressed bytes or None when stored), checks verified."""
    column = nt.columns[page.column]
    what = (f"{where}: RNTuple {nt.name!r} field {nt.fields[column.field].path!r} column "
            f"{page.column} page {page.number} (cluster {page.cluster})")
    extra = 8 if page.has_checksum else 0
    data = _read_at(fh, page.offset, page.size + extra, what, file_size)
    stored, tail = data[:page.size], data[page.size:]
    if page.has_checksum and xxhash.xxh3_64_intdigest(stored) != int.from_bytes(tail, "little"):
        raise RNTupleError(f"{what} at file offset {page.offset}: page checksum (XXH3) "
                           f"at file offset {page.offset + page.size} does not match")
    size = page_bytes(column, page.elements)
    raw = decompress_blocks(stored, size, f"{what} at file offset {page.offset}")
    return raw, (None if stored is raw else stored)


def iter_pages(fh: IO[bytes], file_size: int, nt: NTuple,
               where: str) -> Iterator[tuple[Page, bytes, bytes | None]]:
    for page in nt.pages:
        raw, compressed = read_page(fh, file_size, nt, page, where)
        yield page, raw, compressed


# --------------------------------------------------------------------------- encodings


def lossy_representation(column: Column) -> Representation | None:
    """The lossy float representation of a Real32Trunc / Real32Quant / Real16 column."""
    name = column.type.name
    if name == "Real32Trunc":
        return Representation("trunc", column.bits)
    if name == "Real32Quant":
        if column.value_range is None:
            raise RNTupleError(f"column {column.index}: Real32Quant without a value range")
        return Representation("quant", column.bits, *column.value_range)
    if name == "Real16":
        return Representation("half", 16)
    return None


def decode_column_page(column: Column, raw: bytes, elements: int) -> np.ndarray:
    """The values of one page of `column`, lossy float columns included."""
    rep = lossy_representation(column)
    if rep is None:
        return decode_elements(column.type, raw, elements)
    try:
        return lossy_floats.decode(rep, raw, elements)
    except LossyError as exc:
        raise RNTupleError(f"column {column.index} ({column.type.name}): {exc}") from exc


def _dtype(column_type: ColumnType) -> np.dtype[np.generic]:
    if column_type.dtype is None:
        raise RNTupleError(f"column type {column_type.name}: values not decodable here")
    return np.dtype(column_type.dtype)


def decode_elements(column_type: ColumnType, raw: bytes, elements: int) -> np.ndarray:
    """The values of one page (delta-encoded indices come back as within-page running sums)."""
    dtype = _dtype(column_type)
    if column_type.encoding == "bitpacked":
        bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
        return bits[:elements].astype(bool)
    width = dtype.itemsize
    buffer = np.frombuffer(raw, np.uint8)[:elements * width]
    if column_type.encoding.startswith("split"):
        buffer = buffer.reshape(width, elements).T.copy().reshape(-1)
    values = buffer.view(dtype)
    if column_type.encoding == "split+zigzag":
        unsigned = values.view(dtype.str.replace("i", "u"))
        values = ((unsigned >> 1) ^ (-(unsigned & 1)).astype(unsigned.dtype)).view(dtype)
    elif column_type.encoding == "split+delta":
        values = np.cumsum(values, dtype=dtype)
    return np.asarray(values)


def encode_elements(column_type: ColumnType, values: np.ndarray) -> bytes:
    """The page buffer ROOT would compress for `values` (inverse of decode_elements)."""
    dtype = _dtype(column_type)
    if column_type.encoding == "bitpacked":
        return np.packbits(np.asarray(values, bool), bitorder="little").tobytes()
    values = np.asarray(values, dtype)
    if column_type.encoding == "split+zigzag":
        signed = values.astype(dtype)
        unsigned_dtype = np.dtype(dtype.str.replace("i", "u"))
        values = ((signed << 1) ^ (signed >> (8 * dtype.itemsize - 1))).view(unsigned_dtype)
    elif column_type.encoding == "split+delta":
        values = np.diff(values, prepend=np.zeros(1, dtype)).astype(dtype)
    buffer = np.frombuffer(np.ascontiguousarray(values).tobytes(), np.uint8)
    if column_type.encoding.startswith("split"):
        buffer = buffer.reshape(len(values), dtype.itemsize).T.reshape(-1)
    return buffer.tobytes()
