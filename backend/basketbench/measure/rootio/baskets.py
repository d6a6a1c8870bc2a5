"""TTree baskets and TKey objects, decompressed by blocks.py instead of by uproot.

uproot parses the structure (the TBasket's key and header, the TTree and its branches) and
we decode the compressed bytes ourselves, so that

- one decoder (blocks.py) handles every ROOT block, ROOT's old "CS" algorithm included, which
  uproot refuses; uproot's own decompressor is never replaced or wrapped, so nothing global
  changes and other readers of uproot in the same process (threads included) are unaffected;
- the compressed bytes we store in a corpus are exactly the bytes we decoded.

A basket's header comes from uproot's TBasket model read with `read_basket=False` (its key and
the fNevBuf/fLast fields, no decompression). Its data and entry offsets follow uproot's rules
(TBasket.read_members): the buffer up to `border` (fLast - fKeylen) is the data, the rest is
the >i4 entry-offset array [n+1, offsets + fKeylen..., 0], whose last item is replaced by
`border`.

A TKey object (the TTree itself) is left to uproot's `key.get()` unless its blocks are "CS":
uproot reads every other algorithm, and its `get()` also retries with the file's own streamers
when a built-in model does not fit, which a copy of it here would have to reproduce.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from basketbench.measure.rootio import blocks
from basketbench.measure.rootio.blocks import BlockError

_OFFSETS_DTYPE = np.dtype(">i4")


class BasketReadError(ValueError):
    """A basket or key whose bytes cannot be read or decoded (the message says where)."""


@dataclass(frozen=True)
class BasketBytes:
    """One TTree basket as ROOT wrote it: its key's sizes, ROOT's buffer and stored bytes."""

    keylen: int
    objlen: int
    nbytes: int
    entries: int  # fNevBuf
    border: int  # fLast - fKeylen: bytes of entry data before the entry-offset array
    raw: bytes  # the buffer ROOT compressed: entry data then the entry-offset array
    compressed: bytes | None  # the bytes after the key, None when stored uncompressed
    byte_offsets: np.ndarray | None  # uproot's n+1 entry boundaries, None for fixed-size entries

    @property
    def data(self) -> bytes:
        return self.raw[:self.border]


def _read_exactly(fh: IO[bytes], offset: int, size: int, what: str) -> bytes:
    fh.seek(offset)
    data = fh.read(size)
    if len(data) != size:
        raise BasketReadError(f"{what} run past the end of the file")
    return data


def byte_offsets(raw: bytes, border: int, keylen: int) -> np.ndarray | None:
    """uproot's entry boundaries of a basket buffer (see the module docstring)."""
    if border == len(raw):
        return None
    stored = np.frombuffer(raw[border:], dtype=_OFFSETS_DTYPE)
    offsets = stored[1:] - keylen  # a new native-endian array, safe to change
    offsets[-1] = border
    return offsets


def read_basket(branch: Any, index: int, raw_fh: IO[bytes], where: str) -> BasketBytes:
    """Normal (free) basket `index` of an uproot branch, its bytes read from `raw_fh`."""
    import uproot

    chunk, cursor = branch.basket_chunk_cursor(index)
    header = uproot.models.TBasket.Model_TBasket.read(
        chunk, cursor, {"basket_num": index, "read_basket": False}, branch.file, branch.file,
        branch)
    members = header.all_members
    keylen, objlen = int(members["fKeylen"]), int(members["fObjlen"])
    nbytes = int(members["fNbytes"])
    start = int(branch.member("fBasketSeek")[index]) + keylen
    stored = _read_exactly(raw_fh, start, nbytes - keylen, f"{where}: compressed bytes")
    try:
        raw = blocks.decompress(stored, objlen, f"{where} at file offset {start}")
    except BlockError as exc:
        raise BasketReadError(str(exc)) from exc
    border = int(members["fLast"]) - keylen
    return BasketBytes(
        keylen=keylen, objlen=objlen, nbytes=nbytes, entries=int(members["fNevBuf"]),
        border=border, raw=raw, compressed=None if raw is stored else stored,
        byte_offsets=byte_offsets(raw, border, keylen))


def read_object(root_file: Any, name: str, raw_fh: IO[bytes], where: str) -> Any:
    """The object under key `name` of an uproot directory (see the module docstring)."""
    import uproot

    key = root_file.key(name)
    if not key.is_compressed:
        return root_file[name]
    start = int(key.data_cursor.index)
    stored = _read_exactly(raw_fh, start, int(key.data_compressed_bytes),
                           f"{where}: compressed bytes")
    if stored[:2] != b"CS":
        return root_file[name]
    try:
        raw = blocks.decompress(stored, int(key.data_uncompressed_bytes),
                                f"{where} at file offset {start}")
    except BlockError as exc:
        raise BasketReadError(str(exc)) from exc
    # What ReadOnlyKey.get() does with the chunk it decompressed: the cursor's origin makes
    # offsets inside the object count from the start of its key, as ROOT's do.
    file = root_file.file
    chunk = uproot.source.chunk.Chunk.wrap(file.source, np.frombuffer(raw, dtype=np.uint8))
    cursor = uproot.source.cursor.Cursor(0, origin=-int(key.fKeylen))
    model = file.class_named(key.fClassName)
    # Trees are attached to their file and key (uproot's must_be_attached), to read baskets.
    return model.read(chunk, cursor, {"breadcrumbs": (), "TKey": key}, file, file, key)
