"""The one decoder of ROOT's compressed blocks (measure/rootio/blocks.py): good blocks of every
algorithm, made with the Python codec libraries, and damaged ones, which fail with BlockError
naming the block, never with another exception."""

from __future__ import annotations

import lzma
import random
import zlib

import cramjam
import pytest
import xxhash
from basketbench.measure.rootio import blocks
from basketbench.measure.rootio.blocks import BlockError, BlockHeader

DATA = b"".join(i.to_bytes(4, "little") for i in range(3000)) + b"ROOT basket " * 200


def _header(magic: bytes, method: int, payload: bytes, size: int) -> bytes:
    return magic + bytes([method]) + len(payload).to_bytes(3, "little") + size.to_bytes(3, "little")


def zl_block(data: bytes) -> bytes:
    return _header(b"ZL", 8, payload := zlib.compress(data, 6), len(data)) + payload


def xz_block(data: bytes) -> bytes:
    return _header(b"XZ", 0, payload := lzma.compress(data, lzma.FORMAT_XZ), len(data)) + payload


def l4_block(data: bytes) -> bytes:
    body = bytes(cramjam.lz4.compress_block(data, store_size=False))
    payload = xxhash.xxh64(body, seed=0).digest() + body
    return _header(b"L4", 1, payload, len(data)) + payload


def zs_block(data: bytes) -> bytes:
    return _header(b"ZS", 1, payload := bytes(cramjam.zstd.compress(data, 5)), len(data)) + payload


def cs_block(data: bytes) -> bytes:
    deflater = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
    payload = deflater.compress(data) + deflater.flush()
    return _header(b"CS", 8, payload, len(data)) + payload


MAKERS = {"ZL": zl_block, "XZ": xz_block, "L4": l4_block, "ZS": zs_block, "CS": cs_block}


@pytest.mark.parametrize("magic", sorted(MAKERS))
def test_one_block_of_each_algorithm(magic: str) -> None:
    block = MAKERS[magic](DATA)
    assert block[:2] == magic.encode() and len(block) < len(DATA)
    assert blocks.decompress(block, len(DATA), "t") == DATA
    (header,) = blocks.iter_headers(block)
    assert header == BlockHeader(0, magic.encode(), block[2], len(block) - 9, len(DATA))
    assert header.end == len(block)


def test_several_blocks_of_several_algorithms() -> None:
    """ROOT cuts big buffers into blocks; each block names its own algorithm."""
    parts = [DATA[:5000], DATA[5000:9000], DATA[9000:]]
    data = l4_block(parts[0]) + cs_block(parts[1]) + zs_block(parts[2])
    assert blocks.decompress(data, len(DATA)) == DATA
    assert [h.algorithm for h in blocks.iter_headers(data)] == [b"L4", b"CS", b"ZS"]


def test_stored_data_comes_back_unchanged() -> None:
    """As many bytes as the object holds: ROOT stored it uncompressed (even if it looks like a
    block), and the caller can tell by identity."""
    data = zl_block(DATA)
    assert blocks.decompress(data, len(data)) is data
    assert blocks.decompress(b"", 0) == b""


def _fails(data: bytes, size: int, message: str) -> None:
    with pytest.raises(BlockError, match=message):
        blocks.decompress(data, size, "basket 7")


def test_damaged_framing() -> None:
    good = zl_block(DATA)
    _fails(good[:5], len(DATA), r"^basket 7: compressed block header at byte 0 is cut short")
    _fails(good + good[:4], 2 * len(DATA),
           rf"compressed block header at byte {len(good)} is cut short")
    _fails(good[:-10], len(DATA),
           rf"compressed block at byte 0 says {len(good) - 9} bytes, only {len(good) - 19} remain")
    _fails(b"", 10, "decompresses to 0 bytes, expected 10")
    _fails(b"QQ" + good[2:], len(DATA), r"block at byte 0: unsupported compression algorithm b'QQ'")


def test_size_mismatches() -> None:
    good = zs_block(DATA)
    wrong_header = good[:6] + (len(DATA) - 1).to_bytes(3, "little") + good[9:]
    _fails(wrong_header, len(DATA) - 1,
           rf"block at byte 0 decompresses to {len(DATA)} bytes, its header says {len(DATA) - 1}")
    _fails(good, len(DATA) + 1, rf"decompresses to {len(DATA)} bytes, expected {len(DATA) + 1}")
    # the same for the algorithms whose decoder is told the size (LZ4, CS)
    for maker in (l4_block, cs_block):
        block = maker(DATA)
        short = block[:6] + (len(DATA) - 1).to_bytes(3, "little") + block[9:]
        with pytest.raises(BlockError, match=r"block at byte 0"):
            blocks.decompress(short, len(DATA) - 1)


def test_lz4_checksum_and_cs_method() -> None:
    block = bytearray(l4_block(DATA))
    block[12] ^= 0xFF  # inside the XXH64
    _fails(bytes(block), len(DATA), r"block at byte 0: LZ4 block's XXH64 checksum does not match")
    tiny = _header(b"L4", 1, b"\x00" * 5, 3) + b"\x00" * 5
    _fails(tiny, 3, r"LZ4 block of 5 bytes has no room for its 8-byte XXH64 checksum")
    cs = bytearray(cs_block(DATA))
    cs[2] = 7
    _fails(bytes(cs), len(DATA), r"block at byte 0: CS block with method byte 7, expected 8")


@pytest.mark.parametrize("magic", sorted(MAKERS))
def test_damaged_payloads_fail_cleanly(magic: str) -> None:
    """Truncations and flipped bytes anywhere: BlockError, or (a flip the codec cannot see,
    e.g. in a bare deflate stream) bytes of the promised size; never another exception."""
    good = MAKERS[magic](DATA)
    rng = random.Random(31)
    for cut in range(0, len(good), max(1, len(good) // 40)):
        with pytest.raises(BlockError, match=r"^basket 7: "):
            blocks.decompress(good[:cut], len(DATA), "basket 7")
    for _ in range(60):
        damaged = bytearray(good)
        for _flip in range(rng.randint(1, 4)):
            damaged[rng.randrange(9, len(good))] ^= 1 << rng.randrange(8)
        try:
            out = blocks.decompress(bytes(damaged), len(DATA), "basket 7")
        except BlockError as exc:
            assert str(exc).startswith("basket 7: ")
        else:
            assert len(out) == len(DATA)
    garbage = _header(magic.encode(), good[2], b"\xff" * 64, len(DATA)) + b"\xff" * 64
    _fails(garbage, len(DATA), r"block at byte 0")


def test_rntuple_keeps_its_own_error_type() -> None:
    from basketbench.measure.rootio.rntuple import RNTupleError, decompress_blocks

    assert decompress_blocks(xz_block(DATA), len(DATA), "page") == DATA
    with pytest.raises(RNTupleError, match=r"^page: compressed block header at byte 0 is cut"):
        decompress_blocks(b"XZ", len(DATA), "page")
