"""ROOT's old "CS" blocks (R__SetZipMode(3), settings 3xx), which uproot does not read.

ROOT 6.40 still writes and reads them. A "CS" block is the usual 9-byte header ("CS",
method 8 = deflate, 24-bit little-endian compressed and uncompressed sizes) followed by a
bare deflate stream (RFC 1951: no zlib header, no Adler-32), which zlib inflates with a
negative window size. `decode_block` is that inflater; blocks.py (the block decoder every
reader here uses) hands it the CS blocks, and extract.py reads a CS file's TTree keys and
baskets through blocks.py, so uproot's own decompressor is never replaced.
"""

from __future__ import annotations

import zlib

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
