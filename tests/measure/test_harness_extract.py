"""`basketbench corpus extract` on the real ROOT files, checked independently with uproot."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import uproot
import xxhash
from basketbench.cli.app import app
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench.measure.rootio.extract import CorpusSummary, ExtractionError, extract_corpus
from basketbench.measure.rootio.root_files import (
    TESTDATA_FILES,
    default_root_files,
    shared_root_files_dir,
)
from typer.testing import CliRunner

from .conftest import RNTUPLE_FILE, extracted_file, real_file

Extracted = dict[str, tuple[CorpusSummary, list[str]]]

# ROOT's own compression setting of each file (fCompress in the TFile header).
EXPECTED_FCOMPRESS = {
    "uproot-HZZ.root": 1,
    "uproot-HZZ-zlib.root": 104,
    "uproot-HZZ-lzma.root": 204,
    "uproot-HZZ-lz4.root": 404,
    "uproot-HZZ-zstd.root": 505,
    "uproot-HZZ-uncompressed.root": 100,
    "uproot-Zmumu.root": 104,
    "uproot-Zmumu-zlib.root": 104,
    "uproot-Zmumu-lz4.root": 404,
    "nanoAOD_2015_CMS_Open_Data_ttbar.root": 101,
    "atlas-DAOD_PHYSLITE-sample.root": 105,
}


def test_every_real_file_extracts(root_files: list[Path], extracted: Extracted) -> None:
    assert set(extracted) == {p.name for p in root_files}
    for name, (summary, messages) in extracted.items():
        # the rule that rebuilds embedded baskets held for every normal basket
        assert not [m for m in messages if "usual layout" in m], name
        corpus = read_corpus(summary.path, verify_checksums=True)
        assert corpus.baskets, name
        assert corpus.files[0].path == name
        if name in EXPECTED_FCOMPRESS:
            assert corpus.files[0].fcompress == EXPECTED_FCOMPRESS[name]
        assert corpus.checksum() == summary.checksum
        assert len(corpus.baskets) == summary.baskets


def test_rntuple_pages_are_extracted_beside_the_ttree_baskets(extracted: Extracted) -> None:
    summary, _messages = extracted_file(extracted, RNTUPLE_FILE)
    assert summary.files[0].ntuples == ["DataHeader", "DataHeaderForm", "EventData", "EventTag"]
    corpus = read_corpus(summary.path)
    kinds = {b.tree: b.kind for b in corpus.baskets}
    assert kinds["EventData"] == "page" and kinds["MetaData"] == "basket"
    assert sum(b.kind == "page" for b in corpus.baskets) == summary.pages == 1807


def test_payloads_match_the_root_file(root_files: list[Path], extracted: Extracted) -> None:
    """Raw payloads are uproot's raw_data, fObjlen long; compressed blobs are the file's bytes."""
    for path in root_files:
        corpus = read_corpus(extracted[path.name][0].path)
        data = path.read_bytes()
        checked = 0
        with uproot.open(path) as root_file:
            for index, (basket, raw) in enumerate(corpus.iter_raw()):
                if basket.kind == "page":  # checked in test_rntuple.py
                    continue
                branch = root_file[basket.tree][basket.branch]
                got = branch.basket(basket.basket)
                if basket.embedded:
                    assert raw[: basket.data_bytes] == bytes(got.data)
                    assert basket.root_compressed is None
                    continue
                members = got.all_members
                assert raw == bytes(got.raw_data)
                assert len(raw) == members["fObjlen"]
                assert basket.data_bytes == got.border
                assert xxhash.xxh64(raw).hexdigest() == basket.raw_xxh64
                stored = members["fNbytes"] - members["fKeylen"]
                if stored == members["fObjlen"]:
                    assert basket.root_compressed is None
                else:
                    start = int(branch.member("fBasketSeek")[basket.basket]) + members["fKeylen"]
                    assert corpus.root_compressed(index) == data[start : start + stored]
                    assert basket.root_compressed_bytes == stored
                    # Every compressed block starts with one of ROOT's 9-byte headers.
                    assert data[start : start + 2] in (b"ZL", b"XZ", b"L4", b"ZS", b"CS")
                checked += 1
        # an RNTuple-only file (e.g. the demo's converted HZZ) has pages, checked elsewhere
        assert checked > 0 or all(b.kind == "page" for b in corpus.baskets), path.name


def test_same_events_give_the_same_payloads(extracted: Extracted) -> None:
    """The HZZ (Zmumu) files hold the same events at different settings: identical raw data."""
    for family in ("uproot-HZZ", "uproot-Zmumu"):
        sums = {s.checksum for name, (s, _) in extracted.items() if name.startswith(family + "")}
        names = [n for n in extracted if n.startswith(family)]
        assert len(names) >= 4 and len(sums) == 1, (family, sums)


def test_entry_offsets_and_element_sizes(extracted: Extracted) -> None:
    corpus = read_corpus(extracted["uproot-HZZ-zlib.root"][0].path)
    by_branch = {b.branch: (b, i) for i, b in enumerate(corpus.baskets) if b.basket == 0}
    assert by_branch["Muon_Px"][0].element_size == 4  # float[nMuon]
    assert by_branch["NMuon"][0].element_size == 4  # int
    assert by_branch["Jet_ID"][0].element_size == 1  # bool[nJet]
    assert by_branch["EventWeight"][0].entry_offsets is None
    basket, index = by_branch["Muon_Px"]
    with uproot.open(real_file("uproot-HZZ-zlib.root")) as f:
        counts = f["events"]["NMuon"].array(library="np")[: basket.entries]
    assert basket.entry_offsets == [
        int(x) for x in np.concatenate([[0], np.cumsum(counts * 4)[:-1]])
    ]
    raw = corpus.raw(index)
    # after the data: the offset array ROOT wrote, [n+1, offsets + fKeylen..., 0] big-endian
    tail = np.frombuffer(raw[basket.data_bytes :], dtype=">i4")
    assert tail[0] == basket.entries + 1 and tail[-1] == 0
    assert list(tail[1:-1] - tail[1]) == basket.entry_offsets


def test_embedded_baskets_are_kept_and_marked(extracted: Extracted) -> None:
    summary, _ = extracted_file(extracted, "nanoAOD_2015_CMS_Open_Data_ttbar.root")
    assert summary.files[0].embedded_baskets == 947  # closed with baskets still in the TBranches
    assert summary.baskets == 949 and summary.files[0].compressed_baskets == 2


def test_cli_extract_and_info(tmp_path: Path) -> None:
    files = [real_file(n) for n in ("uproot-HZZ-lz4.root", "uproot-Zmumu.root")]
    if not all(f.is_file() for f in files):
        pytest.skip("real ROOT files not available")
    out = tmp_path / "two.bbc"
    runner = CliRunner()
    result = runner.invoke(
        app,
        [
            "corpus",
            "extract",
            *map(str, files),
            "-o",
            str(out),
            "--name",
            "two",
            "--tree",
            "events",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "77 baskets" in result.output
    corpus = read_corpus(out)
    assert corpus.name == "two" and [f.path for f in corpus.files] == [f.name for f in files]
    assert {b.file for b in corpus.baskets} == {0, 1}
    info = runner.invoke(app, ["corpus", "info", str(out), "--verify"])
    assert info.exit_code == 0, info.output
    assert "uproot-HZZ-lz4.root" in info.output and corpus.checksum() in info.output


def _assert_rejected(tmp_path: Path, inputs: list[Path], message: str) -> None:
    out = tmp_path / "out" / "c.bbc"
    out.parent.mkdir()
    with pytest.raises(ExtractionError, match=message):
        extract_corpus(inputs, out)
    result = CliRunner().invoke(app, ["corpus", "extract", *map(str, inputs), "-o", str(out)])
    assert result.exit_code == 2
    assert message in " ".join(result.output.split())
    assert os.listdir(out.parent) == []  # nothing half-written, no temporary left behind


def test_not_a_root_file(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.root"
    bogus.write_text("this is not ROOT\n" * 100)
    _assert_rejected(tmp_path, [bogus], "not a ROOT file")


def test_truncated_root_file(tmp_path: Path) -> None:
    source = real_file("uproot-HZZ-zlib.root")
    if not source.is_file():
        pytest.skip("real ROOT files not available")
    cut = tmp_path / "cut.root"
    cut.write_bytes(source.read_bytes()[:100_000])
    _assert_rejected(tmp_path, [cut], "truncated ROOT file")


def test_damaged_root_file_after_a_good_one(tmp_path: Path) -> None:
    """A bad file later in the list still leaves no output (baskets from the first are dropped)."""
    source = real_file("uproot-Zmumu.root")
    if not source.is_file():
        pytest.skip("real ROOT files not available")
    data = bytearray(source.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 4000] = b"\xff" * 4000  # smash basket bytes mid-file
    damaged = tmp_path / "damaged.root"
    damaged.write_bytes(bytes(data))
    _assert_rejected(tmp_path, [source, damaged], "damaged.root")


def test_missing_input(tmp_path: Path) -> None:
    _assert_rejected(tmp_path, [tmp_path / "nope.root"], "no such file")


def test_default_root_files_are_the_shared_ones() -> None:
    from basketbench.measure.rootio.root_files import converted_root_files_dir

    files = default_root_files()
    if not shared_root_files_dir().is_dir():
        pytest.skip("shared files not present")
    converted = converted_root_files_dir()
    extra = sorted(converted.glob("*.root")) if converted.is_dir() else []
    assert files == sorted(shared_root_files_dir().glob("*.root")) + extra


def test_testdata_fallback_has_the_same_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("skhep_testdata")
    import basketbench.measure.rootio.root_files as root_files

    monkeypatch.setattr(root_files, "shared_root_files_dir", lambda: tmp_path / "absent")
    monkeypatch.setenv("BASKETBENCH_CACHE_DIR", str(tmp_path / "cache"))  # nothing converted
    files = root_files.default_root_files()
    assert [f.name for f in files] == list(TESTDATA_FILES)
    shared = shared_root_files_dir()
    for f in files:
        if (shared / f.name).is_file():
            assert f.read_bytes() == (shared / f.name).read_bytes()
    # ...and they extract.
    summary = extract_corpus(files[:1], tmp_path / "t.bbc")
    assert summary.baskets == 57


def test_output_not_replaced_on_failure(tmp_path: Path) -> None:
    source = real_file("uproot-HZZ-zstd.root")
    if not source.is_file():
        pytest.skip("real ROOT files not available")
    out = tmp_path / "c.bbc"
    extract_corpus([source], out)
    before = out.read_bytes()
    bogus = tmp_path / "bogus.root"
    shutil.copy(source, bogus)
    bogus.write_bytes(b"nope" + bogus.read_bytes()[4:])
    with pytest.raises(ExtractionError):
        extract_corpus([source, bogus], out)
    assert out.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["bogus.root", "c.bbc"]


@pytest.mark.parametrize("name", ["uproot-HZZ-lz4.root", "uproot-Zmumu.root",
                                  "uproot-HZZ-uncompressed.root"])
def test_baskets_read_through_our_block_decoder_match_uproot(name: str) -> None:
    """baskets.read_basket (uproot parses, blocks.py decompresses) gives what uproot's own
    TBasket gives, and reading a file leaves uproot's decompressor untouched."""
    from basketbench.measure.rootio.baskets import read_basket
    from basketbench.measure.rootio.extract import normal_basket_count

    decompress = uproot.compression.decompress
    path = real_file(name)
    seen = 0
    with uproot.open(path) as root_file, open(path, "rb") as raw_fh:
        for _path, branch in root_file["events"].iteritems(recursive=True):
            for i in range(normal_basket_count(branch)):
                ours, theirs = read_basket(branch, i, raw_fh, name), branch.basket(i)
                assert ours.raw == bytes(theirs.raw_data)
                assert ours.data == bytes(theirs.data)
                assert ours.entries == theirs.num_entries and ours.border == theirs.border
                if theirs.byte_offsets is None:
                    assert ours.byte_offsets is None
                else:
                    assert ours.byte_offsets is not None
                    assert ours.byte_offsets.tolist() == theirs.byte_offsets.tolist()
                stored = ours.nbytes - ours.keylen
                assert (ours.compressed is None) == (stored == ours.objlen)
                seen += 1
    assert seen and uproot.compression.decompress is decompress


def test_a_damaged_block_names_the_basket(tmp_path: Path) -> None:
    """A compressed basket whose block does not decode: our decoder's error, with the branch,
    the basket and the file offset (no uproot traceback text)."""
    source = real_file("uproot-Zmumu-zlib.root")
    with uproot.open(source) as root_file:
        branch = root_file["events"]["px1"]
        seek = int(branch.member("fBasketSeek")[0])
        keylen = int(branch.basket_key(0).fKeylen)
    data = bytearray(source.read_bytes())
    data[seek + keylen + 9 : seek + keylen + 29] = b"\x00" * 20  # over the zlib header
    broken = tmp_path / "broken.root"
    broken.write_bytes(bytes(data))
    where = f"broken.root: branch '/events;1:px1' basket 0 at file offset {seek + keylen}"
    with pytest.raises(ExtractionError,
                       match=re.escape(where) + r": block at byte 0 \(b'ZL'\) does not decompress"):
        extract_corpus([broken], tmp_path / "out.bbc")


@pytest.mark.parametrize("name", ["uproot-HZZ-lzma.root", "uproot-mc10events.root",
                                  RNTUPLE_FILE])
def test_extraction_never_calls_uproots_decompressor(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every compressed block of a file (baskets, the TTree key, the streamers, RNTuple pages)
    goes through blocks.py, so even a file in an algorithm uproot refuses (ROOT's old "CS")
    extracts, without a global replacement of uproot's decompressor."""
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("uproot.compression.decompress was called")

    path = real_file(name)
    reference = extract_corpus([path], tmp_path / "a.bbc", "x")
    monkeypatch.setattr(uproot.compression, "decompress", refuse)
    uproot.model.reset_classes()  # versioned models read from streamers are cached globally
    ours = extract_corpus([path], tmp_path / "b.bbc", "x")
    assert (tmp_path / "a.bbc").read_bytes() == (tmp_path / "b.bbc").read_bytes()
    assert ours.checksum == reference.checksum
