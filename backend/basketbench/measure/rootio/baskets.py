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

A TKey object (the TTree itself, and the file's TStreamerInfo when uproot needs it) is read by
uproot's own `key.get()`, with that one key object's `get_uncompressed_chunk_cursor` replaced
by one that decodes through blocks.py (the streamer key is reached through the per-file hook
uproot calls before decompressing the streamers). `get()` keeps its models, its object cache
and its retry with the file's own streamers; only these objects of this open file change,
so nothing global needs a lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO, Any

import numpy as np

from basketbench.measure.rootio import blocks
from basketbench.measure.rootio.blocks import BlockError

_OFFSETS_DTYPE = np.dtype(">i4")


class TTreeReadError(ValueError):
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
        raise TTreeReadError(f"{what} run past the end of the file")
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
        raise TTreeReadError(str(exc)) from exc
    border = int(members["fLast"]) - keylen
    return BasketBytes(
        keylen=keylen, objlen=objlen, nbytes=nbytes, entries=int(members["fNevBuf"]),
        border=border, raw=raw, compressed=None if raw is stored else stored,
        byte_offsets=byte_offsets(raw, border, keylen))


def _key_bytes(key: Any, where: str) -> Callable[[], tuple[Any, Any]]:
    """A key's `get_uncompressed_chunk_cursor` whose blocks are decoded by blocks.py."""
    import uproot

    def get_uncompressed_chunk_cursor() -> tuple[Any, Any]:
        start = int(key.data_cursor.index)
        stop = start + int(key.data_compressed_bytes)
        chunk = key.file.chunk(start, stop)
        stored = bytes(chunk.get(start, stop, uproot.source.cursor.Cursor(start), {}))
        try:
            raw = blocks.decompress(stored, int(key.data_uncompressed_bytes),
                                    f"{where} at file offset {start}")
        except BlockError as exc:
            raise TTreeReadError(str(exc)) from exc
        data = np.frombuffer(raw, dtype=np.uint8)
        # As uproot's own method: the cursor's origin makes offsets inside the object count
        # from the start of its key, as ROOT's do.
        return (uproot.source.chunk.Chunk.wrap(chunk.source, data),
                uproot.source.cursor.Cursor(0, origin=-int(key.fKeylen)))

    return get_uncompressed_chunk_cursor


def decode_keys_with_blocks(key: Any, where: str) -> None:
    """Make this one uproot key (not its class, nor uproot) decompress through blocks.py."""
    if key.is_compressed:
        key.get_uncompressed_chunk_cursor = _key_bytes(key, where)


def decode_streamers_with_blocks(root_file: Any, where: str) -> None:
    """Make this open file's TStreamerInfo key decompress through blocks.py, through the hook
    uproot calls on the file before it decompresses the streamers (uproot reads them when a
    class version in the file has no built-in model, e.g. a TTree written by ROOT 6.40)."""

    def hook(**kwargs: Any) -> None:
        decode_keys_with_blocks(kwargs["streamer_key"], f"{where}: streamer info")

    root_file.file.hook_before_read_decompress_streamers = hook


def read_object(root_file: Any, name: str, where: str) -> Any:
    """The object under key `name` of an uproot directory, its blocks decoded by blocks.py
    and everything else done by uproot's `key.get()` (its models, its retry with the file's
    own streamers)."""
    key = root_file.key(name)
    decode_keys_with_blocks(key, where)
    return key.get()
