"""Page encodings of RNTuple's lossy float columns, byte for byte as ROOT 6.40 writes them.

Learned from the format specification and checked against pages written by the PyPI ROOT
6.40.00 wheel (tests/measure/test_lossy_groundtruth.py):

- Real32Trunc (10-31 bits): each float's IEEE-754 bit pattern keeps its `bits` most significant
  bits (sign, exponent, upper mantissa); the rest is dropped, not rounded.
- Real32Quant (1-32 bits, with the column's [min, max] value range): q = floor(0.5 + (x - min)
  * (2^bits - 1) / (max - min)) in double precision; read back as min + q * (max - min) /
  (2^bits - 1), rounded to float.
- Both are bit-packed: element i occupies bits [i*bits, (i+1)*bits) of a little-endian bit
  stream (bit k is bit k % 8 of byte k // 8), low bits first; a page holds ceil(n*bits/8) bytes.
- Real16: IEEE-754 half precision, 2 little-endian bytes per element, not byte-split.

Everything here is vectorised with numpy: memory and time grow with the number of values only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TRUNC_BITS = range(10, 32)  # what ROOT accepts for Real32Trunc
QUANT_BITS = range(1, 33)  # what ROOT accepts for Real32Quant
REPRESENTATIONS = ("full", "trunc", "quant", "half")


class LossyError(ValueError):
    """A bit width, value range or page that a representation cannot take."""


@dataclass(frozen=True)
class Representation:
    """One way to store a float column: `full` (SplitReal32, ROOT's default for float),
    `trunc` or `quant` with their bits on storage, or `half` (16 bits)."""

    kind: str
    bits: int
    low: float | None = None  # value range, quant only
    high: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in REPRESENTATIONS:
            raise LossyError(f"unknown representation {self.kind!r} "
                             f"(one of {', '.join(REPRESENTATIONS)})")
        fixed = {"full": 32, "half": 16}
        if self.kind in fixed and self.bits != fixed[self.kind]:
            raise LossyError(f"{self.kind} has {fixed[self.kind]} bits, not {self.bits}")
        if self.kind == "trunc" and self.bits not in TRUNC_BITS:
            raise LossyError(f"trunc keeps 10 to 31 bits, not {self.bits}")
        if self.kind == "quant":
            if self.bits not in QUANT_BITS:
                raise LossyError(f"quant keeps 1 to 32 bits, not {self.bits}")
            if self.low is None or self.high is None or not self.low < self.high:
                raise LossyError(f"quant needs a value range min < max, not "
                                 f"[{self.low}, {self.high}]")

    @property
    def label(self) -> str:
        return self.kind if self.kind in ("full", "half") else f"{self.kind}{self.bits}"


def page_size(count: int, bits: int) -> int:
    """Bytes of a bit-packed page of `count` elements of `bits` bits."""
    return (count * bits + 7) // 8


def pack_top_bits(words: np.ndarray, bits: int) -> bytes:
    """The `bits` most significant bits of each uint32 word, bit-packed (see module doc)."""
    kept = (np.asarray(words, np.uint32) >> np.uint32(32 - bits)).astype(np.uint64)
    stream = ((kept[:, None] >> np.arange(bits, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)
    return np.packbits(stream.reshape(-1), bitorder="little").tobytes()


def unpack_top_bits(raw: bytes, count: int, bits: int) -> np.ndarray:
    """Inverse of pack_top_bits: uint32 words with the kept bits on top, zeros below."""
    need = page_size(count, bits)
    if len(raw) < need:
        raise LossyError(f"a page of {count} {bits}-bit elements needs {need} bytes, "
                         f"it has {len(raw)}")
    stream = np.unpackbits(np.frombuffer(raw, np.uint8, need), bitorder="little")
    grid = stream[:count * bits].reshape(count, bits).astype(np.uint64)
    kept = grid @ (np.uint64(1) << np.arange(bits, dtype=np.uint64))
    return (kept.astype(np.uint64) << np.uint64(32 - bits)).astype(np.uint32)


def truncate(values: np.ndarray, bits: int) -> np.ndarray:
    """The floats a Real32Trunc column of `bits` bits gives back."""
    pattern = np.asarray(values, np.float32).view(np.uint32)
    mask = np.uint32((0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF)
    return (pattern & mask).view(np.float32)


def quantize(values: np.ndarray, low: float, high: float, bits: int) -> np.ndarray:
    """ROOT's quantized integers of `values` in [low, high] (LossyError if any is outside)."""
    x = np.asarray(values, np.float32).astype(np.float64)
    outside = int(np.count_nonzero(~((low <= x) & (x <= high))))
    if outside:
        raise LossyError(f"{outside} values outside the quantization range [{low}, {high}]")
    top = float((1 << bits) - 1)
    return (0.5 + (x - low) * (top / (high - low))).astype(np.uint32)


def unquantize(q: np.ndarray, low: float, high: float, bits: int) -> np.ndarray:
    top = float((1 << bits) - 1)
    return (np.asarray(q, np.float64) * ((high - low) / top) + low).astype(np.float32)


def encode(rep: Representation, values: np.ndarray) -> bytes:
    """The page buffer ROOT writes for `values` (before compression)."""
    v = np.asarray(values, np.float32)
    if rep.kind == "full":  # SplitReal32: all first bytes, then all second bytes, ...
        return np.frombuffer(v.astype("<f4").tobytes(), np.uint8).reshape(-1, 4).T.tobytes()
    if rep.kind == "half":
        return v.astype("<f2").tobytes()
    if rep.kind == "trunc":
        return pack_top_bits(v.view(np.uint32), rep.bits)
    assert rep.low is not None and rep.high is not None
    q = quantize(v, rep.low, rep.high, rep.bits)
    return pack_top_bits(q << np.uint32(32 - rep.bits), rep.bits)


def decode(rep: Representation, raw: bytes, count: int) -> np.ndarray:
    """The floats a reader gets back from a page of `count` elements."""
    if rep.kind == "full":
        grid = np.frombuffer(raw, np.uint8, count * 4).reshape(4, count).T
        return np.ascontiguousarray(grid).view("<f4").reshape(-1).astype(np.float32)
    if rep.kind == "half":
        return np.frombuffer(raw, "<f2", count).astype(np.float32)
    words = unpack_top_bits(raw, count, rep.bits)
    if rep.kind == "trunc":
        return words.view(np.float32)
    assert rep.low is not None and rep.high is not None
    return unquantize(words >> np.uint32(32 - rep.bits), rep.low, rep.high, rep.bits)


def roundtrip(rep: Representation, values: np.ndarray) -> np.ndarray:
    """What a column stored as `rep` reads back (without packing: same values, faster)."""
    v = np.asarray(values, np.float32)
    if rep.kind == "full":
        return v.copy()
    if rep.kind == "half":
        return v.astype(np.float16).astype(np.float32)
    if rep.kind == "trunc":
        return truncate(v, rep.bits)
    assert rep.low is not None and rep.high is not None
    return unquantize(quantize(v, rep.low, rep.high, rep.bits), rep.low, rep.high, rep.bits)
