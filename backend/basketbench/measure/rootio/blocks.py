"""ROOT's compressed blocks: the one decoder for every byte string ROOT compressed that this
package reads itself (TTree baskets, TKey payloads, the RNTuple anchor, envelopes and pages).

ROOT (core/zip/src/RZip.cxx, R__zipMultipleAlgorithm / R__unzip) cuts a buffer into blocks of
at most 0xffffff bytes and writes each one behind a 9-byte header:

    bytes 0-1  algorithm: "ZL" zlib, "XZ" LZMA (an xz container), "L4" LZ4, "ZS" ZSTD,
               "CS" ROOT's old algorithm (a bare deflate stream, settings 3xx)
    byte  2    method (8 = deflate for "ZL" and "CS"; a version byte for the others)
    bytes 3-5  compressed size of the block after its header, 24-bit little-endian
    bytes 6-8  uncompressed size of the block, 24-bit little-endian

An "L4" block's payload starts with the XXH64 (seed 0, big-endian) of the LZ4 data after it.
A buffer stored as exactly as many bytes as it holds is not compressed at all (ROOT's rule for
TKeys, TBaskets and RNTuple pages alike): `decompress` hands it back unchanged.

Damaged input never crashes: a header cut short, a block running past the data, an unknown
algorithm, a bad LZ4 checksum, a codec that refuses its payload or gives another size than the
header says all raise BlockError naming the block's byte offset.
"""

from __future__ import annotations

import lzma
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

import cramjam
import xxhash

from basketbench.measure.rootio.old_cs import OldCsError
from basketbench.measure.rootio.old_cs import decode_block as decode_cs_block

HEADER_SIZE = 9
LZ4_CHECKSUM_SIZE = 8
MAX_BLOCK_SIZE = 0xFFFFFF  # 24-bit sizes: ROOT cuts larger buffers into several blocks
ALGORITHMS = {b"ZL": "zlib", b"XZ": "lzma", b"L4": "lz4", b"ZS": "zstd", b"CS": "old"}


class BlockError(ValueError):
    """Compressed ROOT data that does not decode (the message names the block's offset)."""


@dataclass(frozen=True)
class BlockHeader:
    """One block's 9-byte header and where its payload lies in the compressed data."""

    offset: int  # of the header, within the compressed data
    algorithm: bytes  # the 2-byte magic
    method: int
    compressed_size: int  # payload bytes after the header (an LZ4 checksum included)
    uncompressed_size: int

    @property
    def payload_start(self) -> int:
        return self.offset + HEADER_SIZE

    @property
    def end(self) -> int:
        return self.payload_start + self.compressed_size


def _prefix(where: str) -> str:
    return f"{where}: " if where else ""


def read_header(data: bytes, pos: int, where: str = "") -> BlockHeader:
    """The header of the block at `pos`; its payload is checked to lie within `data`."""
    if len(data) - pos < HEADER_SIZE:
        raise BlockError(f"{_prefix(where)}compressed block header at byte {pos} is cut short")
    csize = int.from_bytes(data[pos + 3:pos + 6], "little")
    header = BlockHeader(offset=pos, algorithm=bytes(data[pos:pos + 2]), method=data[pos + 2],
                         compressed_size=csize,
                         uncompressed_size=int.from_bytes(data[pos + 6:pos + 9], "little"))
    if header.end > len(data):
        raise BlockError(
            f"{_prefix(where)}compressed block at byte {pos} says {csize} bytes, "
            f"only {len(data) - header.payload_start} remain")
    return header


def iter_headers(data: bytes, where: str = "") -> Iterator[BlockHeader]:
    """The headers of all blocks in `data`, which must hold whole blocks and nothing else."""
    pos = 0
    while pos < len(data):
        header = read_header(data, pos, where)
        yield header
        pos = header.end


def decode_block(header: BlockHeader, payload: bytes) -> bytes:
    """One block's uncompressed bytes, chosen by its algorithm magic (sizes not checked here).

    Raises BlockError for what this module checks itself (algorithm, LZ4 checksum, a CS
    block's method and length); the codec libraries raise their own kinds on damaged data.
    """
    magic = header.algorithm
    if magic == b"ZL":
        return zlib.decompress(payload)
    if magic == b"XZ":
        return lzma.decompress(payload)
    if magic == b"ZS":
        return bytes(cramjam.zstd.decompress(payload))
    if magic == b"L4":
        if len(payload) < LZ4_CHECKSUM_SIZE:
            raise BlockError(f"LZ4 block of {len(payload)} bytes has no room for its "
                             f"{LZ4_CHECKSUM_SIZE}-byte XXH64 checksum")
        checksum, body = payload[:LZ4_CHECKSUM_SIZE], payload[LZ4_CHECKSUM_SIZE:]
        if xxhash.xxh64(body, seed=0).digest() != checksum:
            raise BlockError("LZ4 block's XXH64 checksum does not match")
        return bytes(cramjam.lz4.decompress_block(body, output_len=header.uncompressed_size))
    if magic == b"CS":
        head = (magic + bytes([header.method]) + header.compressed_size.to_bytes(3, "little")
                + header.uncompressed_size.to_bytes(3, "little"))
        try:
            return decode_cs_block(head, payload)
        except OldCsError as exc:
            raise BlockError(str(exc)) from None
    raise BlockError(f"unsupported compression algorithm {magic!r}")


def decompress(data: bytes, size: int, where: str = "") -> bytes:
    """The `size` bytes that the blocks in `data` decompress to; `where` prefixes errors.

    `data` of exactly `size` bytes is stored uncompressed and comes back as it is (the same
    object, so a caller can tell that nothing was compressed).
    """
    if len(data) == size:
        return data
    out = bytearray()
    for header in iter_headers(data, where):
        pos = header.offset
        payload = bytes(data[header.payload_start:header.end])
        try:
            block = decode_block(header, payload)
        except BlockError as exc:
            raise BlockError(f"{_prefix(where)}block at byte {pos}: {exc}") from None
        except Exception as exc:  # the codec libraries raise their own kinds
            raise BlockError(f"{_prefix(where)}block at byte {pos} ({header.algorithm!r}) "
                             f"does not decompress: {exc}") from exc
        if len(block) != header.uncompressed_size:
            raise BlockError(
                f"{_prefix(where)}block at byte {pos} decompresses to {len(block)} bytes, "
                f"its header says {header.uncompressed_size}")
        out += block
    if len(out) != size:
        raise BlockError(f"{_prefix(where)}decompresses to {len(out)} bytes, expected {size}")
    return bytes(out)
