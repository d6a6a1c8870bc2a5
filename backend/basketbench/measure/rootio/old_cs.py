"""ROOT's old "CS" blocks (R__SetZipMode(3), settings 3xx), which uproot does not read.

ROOT 6.40 still writes and reads them. A "CS" block is the usual 9-byte header ("CS",
method 8 = deflate, 24-bit little-endian compressed and uncompressed sizes) followed by a
bare deflate stream (RFC 1951: no zlib header, no Adler-32), which zlib inflates with a
negative window size. `reading_old_cs()` lets uproot read files whose keys and baskets are
CS blocks: uproot's block decoder is wrapped while it is active, and every other block
still goes to uproot's own decoder.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

HEADER_SIZE = 9
DEFLATE = 8


class OldCsError(ValueError):
    """A CS block that does not decode (damaged, or not what its header says)."""


def decode_block(header: bytes, payload: bytes) -> bytes:
    """The uncompressed bytes of one CS block (header: its 9 bytes; payload: the rest)."""
    if header[:2] != b"CS" or len(header) != HEADER_SIZE:
        raise OldCsError(f"not a CS block header: {header[:HEADER_SIZE]!r}")
    if header[2] != DEFLATE:
        raise OldCsError(f"CS block with method byte {header[2]}, expected {DEFLATE} (deflate)")
    expected = int.from_bytes(header[6:9], "little")
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = inflater.decompress(payload, expected + 1)
    except zlib.error as exc:
        raise OldCsError(f"CS block: damaged deflate stream ({exc})") from exc
    if not inflater.eof or len(out) != expected or inflater.unused_data:
        raise OldCsError(
            f"CS block: the deflate stream gives {len(out)} bytes"
            f"{'' if inflater.eof else ' and does not end'}, its header says {expected}"
        )
    return out


def _cs_decompress(original: Callable[..., Any]) -> Callable[..., Any]:
    """uproot.compression.decompress, for CS blocks too (same signature and result)."""
    import uproot

    def decompress(chunk: Any, cursor: Any, context: Any, compressed_bytes: int,
                   uncompressed_bytes: int, block_info: list[Any] | None = None) -> Any:
        if bytes(cursor.copy().bytes(chunk, 2, context)) != b"CS":
            return original(chunk, cursor, context, compressed_bytes, uncompressed_bytes,
                            block_info)
        start = cursor.index
        out = bytearray()
        while cursor.index - start < compressed_bytes:
            header = bytes(cursor.bytes(chunk, HEADER_SIZE, context))
            size = int.from_bytes(header[3:6], "little")
            block = decode_block(header, bytes(cursor.bytes(chunk, size, context)))
            if block_info is not None:
                block_info.append(("CS", size, len(block)))
            out += block
        if len(out) != uncompressed_bytes:
            raise OldCsError(
                f"CS blocks give {len(out)} bytes, the key says {uncompressed_bytes}")
        chunk_type = uproot.source.chunk.Chunk
        return chunk_type.wrap(chunk.source, np.frombuffer(bytes(out), dtype=chunk_type._dtype))

    decompress.hook_before_block = getattr(original, "hook_before_block", None)  # type: ignore[attr-defined]
    decompress.hook_after_block = getattr(original, "hook_after_block", None)  # type: ignore[attr-defined]
    return decompress


_lock = threading.Lock()
_active = 0
_original: Callable[..., Any] | None = None


@contextmanager
def reading_old_cs() -> Iterator[None]:
    """While active (nestable, across threads), uproot reads CS blocks with decode_block."""
    import uproot.compression

    global _active, _original
    with _lock:
        if _active == 0:
            _original = uproot.compression.decompress
            uproot.compression.decompress = _cs_decompress(_original)
        _active += 1
    try:
        yield
    finally:
        with _lock:
            _active -= 1
            if _active == 0 and _original is not None:
                uproot.compression.decompress = _original
                _original = None
