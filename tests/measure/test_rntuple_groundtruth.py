"""RNTuple ground truth with a real ROOT release (6.40.00, the PyPI `root` wheel, installed and
built against once into ~/.cache/basketbench/root-releases, then reused).

ROOT's RNTupleImporter converts the HZZ tree to an RNTuple at 101, 207, 404, 505 and 509;
every page basketbench extracts is compressed again by the release's own
R__zipMultipleAlgorithm to the very bytes ROOT wrote, and `rzbench --root-release`'s compressed
total equals the sum of ROOT's on-disk page sizes, to the byte.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from basketbench.measure.document.contract import load_document
from basketbench.measure.realroot import groundtruth as gt
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import Release
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rootio.rntuple import read_ntuple
from basketbench.measure.rzbench.runner import BenchOptions, run_bench, run_verify

from tests.measure.conftest import real_file

RELEASE = "6.40.00"
REPO = Path(__file__).resolve().parents[2]
SETTINGS = (101, 207, 404, 505, 509)
pytestmark = pytest.mark.timeout(1800)  # first use installs the release and builds rzbench


@pytest.fixture(scope="module")
def converted(release: tuple[Release, Path], tmp_path_factory: pytest.TempPathFactory
              ) -> list[Path]:
    """HZZ converted to RNTuple by ROOT 6.40.00 itself at each setting (~10 s in all)."""
    rel, _ = release
    source = real_file("uproot-HZZ-uncompressed.root")
    out = tmp_path_factory.mktemp("rntuple")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root_release.release_dir(rel)), str(REPO / "backend")])}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.measure.realroot.pyroot_rntuple", str(out),
         ",".join(map(str, SETTINGS)), f"{source}:events"],
        env=env, capture_output=True, text=True, check=False, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    files = sorted(out.glob("*.root"))
    assert len(files) == len(SETTINGS)
    return files


def _on_disk_page_bytes(path: Path) -> int:
    """Sum of ROOT's page locator sizes, read straight from the RNTuple's page list."""
    import uproot

    data = path.read_bytes()
    with uproot.open(path) as root_file:
        key = root_file.key("events")
        anchor = data[key.fSeekKey + key.fKeylen:key.fSeekKey + key.fNbytes]
    nt = read_ntuple(io.BytesIO(data), len(data), anchor, "events", path.name)
    return sum(page.size for page in nt.pages)


def test_root_release_gives_roots_own_page_bytes(
    release: tuple[Release, Path], converted: list[Path]
) -> None:
    rel, binary = release
    root = gt.RZip(root_release.prefix(rel) / "lib" / "libCore.so", deepbind=True)
    for path in converted:
        setting = int(path.stem.rsplit("-", 1)[1])
        corpus_path = path.with_suffix(".bbc")
        summary = extract_corpus([path], corpus_path)
        corpus = read_corpus(corpus_path)
        assert summary.pages == len(corpus.baskets) == 51
        root_total = 0
        for i, (page, raw) in enumerate(corpus.iter_raw()):
            assert page.kind == "page" and (page.fcompress or corpus.files[0].fcompress) == setting
            written = corpus.root_compressed(i)
            root_total += len(written) if written is not None else len(raw)
            # the release's own R__zipMultipleAlgorithm, as RNTuple's compressor calls it
            assert root.compress(setting, raw) == written, (path.name, page.branch, i)
        assert root_total == _on_disk_page_bytes(path)
        out = path.with_suffix(".json")
        code, stderr = run_bench(BenchOptions(corpora=[corpus_path], settings=[setting],
                                              min_samples=1, target_ms=0, memcpy=False),
                                 out, binary=binary)
        assert code == 0, stderr
        (result,) = load_document(out)["results"]
        assert result["compressed_bytes"] == root_total, (path.name, setting)
        # `rzbench verify` decodes every page and recompresses it at the page's own setting
        # (the TFile says 101 whatever the pages use)
        code, report = run_verify(corpus_path, binary=binary)
        assert code == 0 and report["decoded_ok"] == report["baskets"], report
        (entry,) = report["files"]
        assert entry["fcompress"] == 101 and entry["recompressed_setting"] == setting
        assert entry["recompressed_bytes"] == entry["root_compressed_bytes"], entry
