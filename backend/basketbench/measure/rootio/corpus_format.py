"""Reader and writer of the corpus file format, version 1 (docs/CORPUS_FORMAT.md).

The writer streams blobs to a spool file and only renames the finished corpus
into place, so a failed extraction never leaves a half-written corpus behind.
"""

from __future__ import annotations

import contextlib
import json
import os
import struct
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import xxhash

MAGIC = b"BBCORPUS"
FORMAT_VERSION = 1
FORMAT_NAME = "basketbench-corpus"
_PREAMBLE = struct.Struct("<8sIQ")  # magic, format_version, header_len
PREAMBLE_SIZE = _PREAMBLE.size  # 20
_COPY_CHUNK = 1 << 20


KINDS = ("basket", "page")
# The optional fields that describe an RNTuple page (all present on a page, absent on a basket).
PAGE_FIELDS = ("column", "column_type", "encoding", "bits", "cluster")


class CorpusFormatError(ValueError):
    """A corpus file that is not a valid version-1 corpus (the message says why)."""


# A branch's kind of data (docs/CORPUS_FORMAT.md): per-branch results aggregate by it.
TYPE_CLASSES = ("float", "integer", "boolean", "counts", "string", "object")


def xxh64_hex(data: bytes) -> str:
    return xxhash.xxh64(data, seed=0).hexdigest()


@dataclass(frozen=True)
class CorpusFile:
    path: str
    fcompress: int
    sha256: str


@dataclass(frozen=True)
class Basket:
    """One basket's metadata; blobs are addressed relative to the payload start."""

    file: int
    tree: str
    branch: str
    basket: int
    element_size: int
    entries: int
    data_bytes: int
    entry_offsets: list[int] | None
    raw: tuple[int, int]
    raw_xxh64: str
    root_compressed: tuple[int, int] | None
    root_compressed_bytes: int
    # Optional extensions (readers of the format ignore unknown fields):
    fcompress: int | None = None  # the branch's own fCompress, when it differs from the file's
    embedded: bool = False  # stored inside the TBranch, never compressed by ROOT as a basket
    type_class: str | None = None  # float, integer, boolean, counts, string, object (TYPE_CLASSES)
    # RNTuple pages (kind "page"): tree = the RNTuple's name, branch = the field path,
    # basket = the page's number within its column, entries = its element count.
    kind: str = "basket"
    column: int | None = None  # the RNTuple's physical column id
    column_type: str | None = None  # e.g. SplitReal32 (RNTuple binary format's names)
    encoding: str | None = None  # plain | split | split+delta | split+zigzag | bitpacked
    bits: int | None = None  # bits on storage per element
    cluster: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file,
            "tree": self.tree,
            "branch": self.branch,
            "basket": self.basket,
            "element_size": self.element_size,
            "entries": self.entries,
            "data_bytes": self.data_bytes,
            "entry_offsets": self.entry_offsets,
            "raw": list(self.raw),
            "raw_xxh64": self.raw_xxh64,
            "root_compressed": list(self.root_compressed) if self.root_compressed else None,
            "root_compressed_bytes": self.root_compressed_bytes,
        }
        if self.fcompress is not None:
            out["fcompress"] = self.fcompress
        if self.embedded:
            out["embedded"] = True
        if self.type_class is not None:
            out["type_class"] = self.type_class
        if self.kind != "basket":
            out["kind"] = self.kind
        for key in PAGE_FIELDS:
            if (value := getattr(self, key)) is not None:
                out[key] = value
        return out


@dataclass
class Corpus:
    """A parsed corpus; blobs are read from the file on demand."""

    path: Path
    name: str
    created_by: str
    files: list[CorpusFile]
    baskets: list[Basket]
    payload_start: int
    payload_len: int
    header: dict[str, Any] = field(repr=False)
    page_size: int | None = None  # optional header field: a re-paged RNTuple corpus

    def _read(self, blob: tuple[int, int]) -> bytes:
        offset, length = blob
        with open(self.path, "rb") as fh:
            fh.seek(self.payload_start + offset)
            data = fh.read(length)
        if len(data) != length:
            raise CorpusFormatError(f"{self.path}: blob at {offset} is cut short (file changed?)")
        return data

    def raw(self, index: int) -> bytes:
        return self._read(self.baskets[index].raw)

    def root_compressed(self, index: int) -> bytes | None:
        blob = self.baskets[index].root_compressed
        return None if blob is None else self._read(blob)

    def iter_raw(self) -> Iterator[tuple[Basket, bytes]]:
        with open(self.path, "rb") as fh:
            for basket in self.baskets:
                fh.seek(self.payload_start + basket.raw[0])
                yield basket, fh.read(basket.raw[1])

    @property
    def raw_bytes(self) -> int:
        return sum(b.raw[1] for b in self.baskets)

    def checksum(self) -> str:
        """The dataset checksum: XXH64 over all raw payloads in header order."""
        h = xxhash.xxh64(seed=0)
        for _, raw in self.iter_raw():
            h.update(raw)
        return "xxh64:" + h.hexdigest()

    def verify_blobs(self) -> list[str]:
        """Return one message per basket whose raw payload does not match raw_xxh64."""
        return [
            f"basket #{i} ({b.tree}/{b.branch} #{b.basket}): raw_xxh64 mismatch"
            for i, (b, raw) in enumerate(self.iter_raw())
            if xxh64_hex(raw) != b.raw_xxh64
        ]


# --------------------------------------------------------------------------- writing


class CorpusWriter:
    """Collects blobs and metadata; `commit()` writes the corpus atomically.

    Use as a context manager: leaving the block by an exception removes every
    temporary file and leaves `out` untouched.
    """

    def __init__(self, out: Path, name: str, created_by: str,
                 page_size: int | None = None) -> None:
        self.out = Path(out)
        self.name = name
        self.created_by = created_by
        self.page_size = page_size  # a re-paged RNTuple corpus's maximum page size
        self.files: list[CorpusFile] = []
        self.baskets: list[Basket] = []
        # Closed in __exit__; the spool outlives this method by design.
        self._spool: IO[bytes] = tempfile.TemporaryFile(dir=self.out.parent)  # noqa: SIM115
        self._payload_len = 0
        self._checksum = xxhash.xxh64(seed=0)

    def __enter__(self) -> CorpusWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._spool.close()

    def add_file(self, path: str, fcompress: int, sha256: str) -> int:
        self.files.append(CorpusFile(path=path, fcompress=fcompress, sha256=sha256))
        return len(self.files) - 1

    def _append(self, data: bytes) -> tuple[int, int]:
        offset = self._payload_len
        self._spool.write(data)
        self._payload_len += len(data)
        return offset, len(data)

    def add_basket(
        self,
        *,
        file: int,
        tree: str,
        branch: str,
        basket: int,
        element_size: int,
        entries: int,
        data_bytes: int,
        entry_offsets: list[int] | None,
        raw: bytes,
        root_compressed: bytes | None,
        fcompress: int | None = None,
        embedded: bool = False,
        type_class: str | None = None,
        kind: str = "basket",
        column: int | None = None,
        column_type: str | None = None,
        encoding: str | None = None,
        bits: int | None = None,
        cluster: int | None = None,
    ) -> Basket:
        raw_blob = self._append(raw)
        self._checksum.update(raw)
        comp_blob = self._append(root_compressed) if root_compressed is not None else None
        record = Basket(
            file=file,
            tree=tree,
            branch=branch,
            basket=basket,
            element_size=element_size,
            entries=entries,
            data_bytes=data_bytes,
            entry_offsets=entry_offsets,
            raw=raw_blob,
            raw_xxh64=xxh64_hex(raw),
            root_compressed=comp_blob,
            root_compressed_bytes=len(root_compressed) if root_compressed is not None else 0,
            fcompress=fcompress,
            embedded=embedded,
            type_class=type_class,
            kind=kind,
            column=column,
            column_type=column_type,
            encoding=encoding,
            bits=bits,
            cluster=cluster,
        )
        self.baskets.append(record)
        return record

    @property
    def checksum(self) -> str:
        return "xxh64:" + self._checksum.hexdigest()

    def header(self) -> dict[str, Any]:
        extra = {} if self.page_size is None else {"page_size": self.page_size}
        return {
            **extra,
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "name": self.name,
            "created_by": self.created_by,
            "payload_len": self._payload_len,
            "files": [
                {"path": f.path, "fcompress": f.fcompress, "sha256": f.sha256} for f in self.files
            ],
            "baskets": [b.to_json() for b in self.baskets],
        }

    def commit(self) -> None:
        header = json.dumps(self.header(), separators=(",", ":")).encode("utf-8")
        directory = self.out.parent if str(self.out.parent) else Path(".")
        fd, tmp_name = tempfile.mkstemp(prefix=f".{self.out.name}.", suffix=".tmp", dir=directory)
        try:
            with os.fdopen(fd, "wb") as dst:
                dst.write(_PREAMBLE.pack(MAGIC, FORMAT_VERSION, len(header)))
                dst.write(header)
                self._spool.seek(0)
                while chunk := self._spool.read(_COPY_CHUNK):
                    dst.write(chunk)
                dst.flush()
                os.fsync(dst.fileno())
            os.chmod(tmp_name, 0o666 & ~_current_umask())  # mkstemp makes 0600
            os.replace(tmp_name, self.out)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp_name)
            raise


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------- reading


def _fail(path: Path, message: str) -> CorpusFormatError:
    return CorpusFormatError(f"{path}: {message}")


def _int(value: Any, what: str, path: Path, minimum: int = 0) -> int:
    # bool is an int in Python; JSON true must not pass as 1.
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise _fail(path, f"{what} must be an integer >= {minimum}, got {value!r}")
    return value


def _str(value: Any, what: str, path: Path) -> str:
    if not isinstance(value, str):
        raise _fail(path, f"{what} must be a string, got {value!r}")
    return value


def _blob(value: Any, what: str, path: Path, payload_len: int) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2:
        raise _fail(path, f"{what} must be [offset, length], got {value!r}")
    offset = _int(value[0], f"{what}[0]", path)
    length = _int(value[1], f"{what}[1]", path)
    if offset + length > payload_len:
        raise _fail(
            path, f"{what} = [{offset}, {length}] lies outside the payload ({payload_len} bytes)"
        )
    return offset, length


def _parse_basket(i: int, item: Any, path: Path, payload_len: int, n_files: int) -> Basket:
    where = f"baskets[{i}]"
    if not isinstance(item, dict):
        raise _fail(path, f"{where} must be an object")
    for key in (
        "file",
        "tree",
        "branch",
        "basket",
        "element_size",
        "entries",
        "data_bytes",
        "entry_offsets",
        "raw",
        "raw_xxh64",
    ):
        if key not in item:
            raise _fail(path, f"{where} lacks {key!r}")
    file_index = _int(item["file"], f"{where}.file", path)
    if file_index >= n_files:
        raise _fail(path, f"{where}.file = {file_index} but there are {n_files} files")
    raw = _blob(item["raw"], f"{where}.raw", path, payload_len)
    entries = _int(item["entries"], f"{where}.entries", path)
    data_bytes = _int(item["data_bytes"], f"{where}.data_bytes", path)
    if data_bytes > raw[1]:
        raise _fail(path, f"{where}.data_bytes = {data_bytes} exceeds the raw length {raw[1]}")
    offsets = item["entry_offsets"]
    if offsets is not None:
        if not isinstance(offsets, list) or len(offsets) != entries:
            raise _fail(path, f"{where}.entry_offsets must be null or a list of {entries} integers")
        previous = 0
        for k, value in enumerate(offsets):
            value = _int(value, f"{where}.entry_offsets[{k}]", path)
            if value < previous or value > data_bytes:
                raise _fail(path, f"{where}.entry_offsets[{k}] = {value} is out of order or range")
            previous = value
    comp_value = item.get("root_compressed")
    comp = (
        None
        if comp_value is None
        else _blob(comp_value, f"{where}.root_compressed", path, payload_len)
    )
    comp_bytes = _int(item.get("root_compressed_bytes", 0), f"{where}.root_compressed_bytes", path)
    if comp is not None and comp_bytes != comp[1]:
        raise _fail(path, f"{where}.root_compressed_bytes = {comp_bytes} != blob length {comp[1]}")
    digest = _str(item["raw_xxh64"], f"{where}.raw_xxh64", path)
    if len(digest) != 16 or any(c not in "0123456789abcdef" for c in digest):
        raise _fail(path, f"{where}.raw_xxh64 must be 16 lower-case hex digits")
    fcompress = item.get("fcompress")
    type_class = item.get("type_class")
    if type_class is not None and type_class not in TYPE_CLASSES:
        raise _fail(path, f"{where}.type_class must be one of {', '.join(TYPE_CLASSES)}")
    kind = item.get("kind", "basket")
    if kind not in KINDS:
        raise _fail(path, f"{where}.kind must be one of {list(KINDS)}, got {kind!r}")
    page: dict[str, Any] = {}
    for key in PAGE_FIELDS:
        value = item.get(key)
        if kind == "page" and value is None:
            raise _fail(path, f"{where} is a page but lacks {key!r}")
        if value is None:
            continue
        if key in ("column_type", "encoding"):
            page[key] = _str(value, f"{where}.{key}", path)
        else:
            page[key] = _int(value, f"{where}.{key}", path, minimum=1 if key == "bits" else 0)
    return Basket(
        file=file_index,
        tree=_str(item["tree"], f"{where}.tree", path),
        branch=_str(item["branch"], f"{where}.branch", path),
        basket=_int(item["basket"], f"{where}.basket", path),
        element_size=_int(item["element_size"], f"{where}.element_size", path, minimum=1),
        entries=entries,
        data_bytes=data_bytes,
        entry_offsets=offsets,
        raw=raw,
        raw_xxh64=digest,
        root_compressed=comp,
        root_compressed_bytes=comp_bytes,
        fcompress=None if fcompress is None else _int(fcompress, f"{where}.fcompress", path),
        embedded=bool(item.get("embedded", False)),
        type_class=type_class,
        kind=kind,
        **page,
    )


def read_corpus(path: str | os.PathLike[str], *, verify_checksums: bool = False) -> Corpus:
    """Parse and check a corpus file; raise CorpusFormatError with the reason if it is invalid."""
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            preamble = fh.read(PREAMBLE_SIZE)
            if len(preamble) < PREAMBLE_SIZE:
                raise _fail(
                    path, f"truncated: {size} bytes, shorter than the {PREAMBLE_SIZE}-byte preamble"
                )
            magic, version, header_len = _PREAMBLE.unpack(preamble)
            if magic != MAGIC:
                raise _fail(path, f"not a basketbench corpus (magic {magic!r}, expected {MAGIC!r})")
            if version != FORMAT_VERSION:
                raise _fail(
                    path,
                    f"unsupported corpus format version {version} (this reader: {FORMAT_VERSION})",
                )
            if header_len > size - PREAMBLE_SIZE:
                raise _fail(
                    path, f"truncated: header_len {header_len} exceeds the file ({size} bytes)"
                )
            header_bytes = fh.read(header_len)
    except OSError as exc:
        raise CorpusFormatError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        header = json.loads(header_bytes.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _fail(path, f"header is not valid UTF-8 JSON: {exc}") from exc
    if not isinstance(header, dict):
        raise _fail(path, "header must be a JSON object")
    if header.get("format") != FORMAT_NAME:
        raise _fail(path, f"header format must be {FORMAT_NAME!r}, got {header.get('format')!r}")
    if header.get("format_version") != FORMAT_VERSION:
        raise _fail(path, f"header format_version must be {FORMAT_VERSION}")
    payload_len = _int(header.get("payload_len"), "payload_len", path)
    actual = size - PREAMBLE_SIZE - header_len
    if payload_len != actual:
        raise _fail(
            path,
            f"payload_len is {payload_len} but the file holds {actual} payload bytes "
            "(truncated or padded)",
        )
    files_value = header.get("files")
    baskets_value = header.get("baskets")
    if not isinstance(files_value, list) or not isinstance(baskets_value, list):
        raise _fail(path, "header needs 'files' and 'baskets' lists")
    files: list[CorpusFile] = []
    for i, item in enumerate(files_value):
        if not isinstance(item, dict):
            raise _fail(path, f"files[{i}] must be an object")
        files.append(
            CorpusFile(
                path=_str(item.get("path"), f"files[{i}].path", path),
                fcompress=_int(item.get("fcompress"), f"files[{i}].fcompress", path),
                sha256=_str(item.get("sha256"), f"files[{i}].sha256", path),
            )
        )
    baskets = [
        _parse_basket(i, item, path, payload_len, len(files))
        for i, item in enumerate(baskets_value)
    ]
    corpus = Corpus(
        path=path,
        name=_str(header.get("name"), "name", path),
        created_by=str(header.get("created_by", "")),
        files=files,
        baskets=baskets,
        payload_start=PREAMBLE_SIZE + header_len,
        payload_len=payload_len,
        header=header,
        page_size=None if header.get("page_size") is None
        else _int(header["page_size"], "page_size", path, minimum=1),
    )
    if verify_checksums and (bad := corpus.verify_blobs()):
        raise _fail(path, f"{len(bad)} corrupted blob(s), first: {bad[0]}")
    return corpus
