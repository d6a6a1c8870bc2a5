"""The corpus file format: round trip and rejection of malformed files (no ROOT needed)."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
import xxhash
from basketbench.cli.app import app
from basketbench.measure.rootio.corpus_format import (
    MAGIC,
    PREAMBLE_SIZE,
    CorpusFormatError,
    CorpusWriter,
    read_corpus,
)
from typer.testing import CliRunner

RAWS = [b"\x00\x01\x02\x03" * 10, b"", bytes(range(256)) * 3]


def write_sample(path: Path) -> None:
    with CorpusWriter(path, "sample", created_by="test") as writer:
        index = writer.add_file("a.root", 505, "ab" * 32)
        writer.add_basket(
            file=index,
            tree="t",
            branch="x",
            basket=0,
            element_size=4,
            entries=10,
            data_bytes=40,
            entry_offsets=None,
            raw=RAWS[0],
            root_compressed=b"ZS\x01compressed",
        )
        writer.add_basket(
            file=index,
            tree="t",
            branch="y",
            basket=0,
            element_size=1,
            entries=0,
            data_bytes=0,
            entry_offsets=[],
            raw=RAWS[1],
            root_compressed=None,
        )
        writer.add_basket(
            file=index,
            tree="t",
            branch="z",
            basket=1,
            element_size=8,
            entries=3,
            data_bytes=700,
            entry_offsets=[0, 100, 700],
            raw=RAWS[2],
            root_compressed=None,
            fcompress=101,
            embedded=True,
        )
        writer.commit()


def split(path: Path) -> tuple[bytes, dict, bytes]:
    data = path.read_bytes()
    _, _, header_len = struct.unpack("<8sIQ", data[:PREAMBLE_SIZE])
    header = json.loads(data[PREAMBLE_SIZE : PREAMBLE_SIZE + header_len])
    return data[:8], header, data[PREAMBLE_SIZE + header_len :]


def assemble(
    path: Path, header: dict, payload: bytes, magic: bytes = MAGIC, version: int = 1
) -> None:
    blob = json.dumps(header).encode()
    path.write_bytes(struct.pack("<8sIQ", magic, version, len(blob)) + blob + payload)


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "c.bbc"
    write_sample(path)
    corpus = read_corpus(path, verify_checksums=True)
    assert corpus.name == "sample"
    assert [f.fcompress for f in corpus.files] == [505]
    assert [corpus.raw(i) for i in range(3)] == RAWS
    assert corpus.root_compressed(0) == b"ZS\x01compressed"
    assert corpus.root_compressed(1) is None
    assert corpus.baskets[0].root_compressed_bytes == len(b"ZS\x01compressed")
    assert corpus.baskets[2].entry_offsets == [0, 100, 700]
    assert corpus.baskets[2].embedded and corpus.baskets[2].fcompress == 101
    assert corpus.baskets[0].fcompress is None and not corpus.baskets[0].embedded
    expected = "xxh64:" + xxhash.xxh64(b"".join(RAWS), seed=0).hexdigest()
    assert corpus.checksum() == expected
    # The file is laid out as documented: magic, version, header_len, JSON, payload.
    magic, header, payload = split(path)
    assert magic == b"BBCORPUS" and header["format"] == "basketbench-corpus"
    assert header["payload_len"] == len(payload)
    off, length = header["baskets"][2]["raw"]
    assert payload[off : off + length] == RAWS[2]
    assert header["baskets"][2]["raw_xxh64"] == xxhash.xxh64(RAWS[2]).hexdigest()


def test_writer_leaves_nothing_on_error(tmp_path: Path) -> None:
    path = tmp_path / "c.bbc"
    with pytest.raises(RuntimeError), CorpusWriter(path, "x", created_by="test") as writer:
        writer.add_file("a.root", 1, "00")
        raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


def mutate(tmp_path: Path, change) -> Path:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.bbc"
    write_sample(good)
    _, header, payload = split(good)
    bad = tmp_path / "bad.bbc"
    change(bad, header, payload)
    return bad


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p, h, pl: assemble(p, h, pl, magic=b"NOTACORP"), "not a basketbench corpus"),
        (lambda p, h, pl: assemble(p, h, pl, version=2), "unsupported corpus format version 2"),
        (lambda p, h, pl: assemble(p, h, pl[:-5]), "truncated or padded"),
        (lambda p, h, pl: p.write_bytes(MAGIC + b"\x01\x00"), "shorter than the 20-byte preamble"),
        (
            lambda p, h, pl: p.write_bytes(struct.pack("<8sIQ", MAGIC, 1, 10**6) + b"{}"),
            "header_len 1000000 exceeds the file",
        ),
        (
            lambda p, h, pl: p.write_bytes(struct.pack("<8sIQ", MAGIC, 1, 5) + b"{nope"),
            "not valid UTF-8 JSON",
        ),
        (
            lambda p, h, pl: assemble(
                p, {**h, "baskets": [{**h["baskets"][2], "raw": [len(pl) - 100, 768]}]}, pl
            ),
            "lies outside the payload",
        ),
        (
            lambda p, h, pl: assemble(
                p, {**h, "baskets": [{**h["baskets"][0], "root_compressed": [0, 10**9]}]}, pl
            ),
            "lies outside the payload",
        ),
        (
            lambda p, h, pl: assemble(
                p, {**h, "baskets": [{**h["baskets"][2], "entry_offsets": [0]}]}, pl
            ),
            "entry_offsets must be null or a list of 3",
        ),
        (
            lambda p, h, pl: assemble(p, {**h, "baskets": [{**h["baskets"][0], "file": 3}]}, pl),
            "there are 1 files",
        ),
        (
            lambda p, h, pl: assemble(p, {k: v for k, v in h.items() if k != "baskets"}, pl),
            "needs 'files' and 'baskets'",
        ),
    ],
)
def test_malformed_corpus_is_rejected(tmp_path: Path, change, message: str) -> None:  # type: ignore[no-untyped-def]
    bad = mutate(tmp_path, change)
    with pytest.raises(CorpusFormatError, match=message):
        read_corpus(bad)
    result = CliRunner().invoke(app, ["corpus", "info", str(bad)])
    assert result.exit_code == 2
    assert message.split("(")[0] in " ".join(result.output.split())


def test_corrupted_payload_detected_by_checksum(tmp_path: Path) -> None:
    def flip(p: Path, h: dict, pl: bytes) -> None:
        off = h["baskets"][2]["raw"][0]
        assemble(p, h, pl[:off] + bytes([pl[off] ^ 0xFF]) + pl[off + 1 :])

    bad = mutate(tmp_path, flip)
    read_corpus(bad)  # the structure is intact...
    with pytest.raises(CorpusFormatError, match="raw_xxh64 mismatch"):
        read_corpus(bad, verify_checksums=True)  # ...but the content is not


def test_cut_corpus_file_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "c.bbc"
    write_sample(path)
    data = path.read_bytes()
    for cut in (3, PREAMBLE_SIZE + 10, len(data) - 1):
        path.write_bytes(data[:cut])
        with pytest.raises(CorpusFormatError, match="truncated"):
            read_corpus(path)
