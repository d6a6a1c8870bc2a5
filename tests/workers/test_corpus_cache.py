"""Cached corpora are verified by checksum on every use: a corrupt one is rebuilt, not
measured (a bad cache made every later run on the worker fail)."""

from __future__ import annotations

from pathlib import Path

from basketbench.measure.digests import file_sha256
from basketbench_workers.pipeline.corpora import cached_ok, checksum_path, corpus_file
from basketbench_workers.pipeline.suites import CorpusSpec

SPEC = CorpusSpec(name="hzz", files=("uproot-HZZ.root",))


def test_a_corrupt_cached_corpus_is_rebuilt(tmp_path: Path) -> None:
    first = corpus_file(SPEC, tmp_path)
    good = first.read_bytes()
    assert cached_ok(first)
    assert checksum_path(first).read_text().strip() == file_sha256(first)
    built_at = first.stat().st_mtime_ns

    assert corpus_file(SPEC, tmp_path) == first  # intact: reused, not rebuilt
    assert first.stat().st_mtime_ns == built_at

    # One flipped byte in the middle, then a truncation: both are found and rebuilt.
    data = bytearray(good)
    data[len(data) // 2] ^= 0xFF
    first.write_bytes(bytes(data))
    assert not cached_ok(first)
    assert corpus_file(SPEC, tmp_path).read_bytes() == good

    first.write_bytes(good[: len(good) // 3])
    assert corpus_file(SPEC, tmp_path).read_bytes() == good

    # A cache from before checksums (no .sha256 file) is rebuilt once, then trusted.
    checksum_path(first).unlink()
    assert corpus_file(SPEC, tmp_path).read_bytes() == good
    assert cached_ok(first)
    assert not list(tmp_path.glob("*.partial-*"))
