"""The RNTuple suite's page-size x encoding dimensions: one dataset per combination, each a
cached corpus of the file's RNTuple pages re-paged with the real (or no split) encoding."""

from __future__ import annotations

from pathlib import Path

import pytest
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench_workers.pipeline.corpora import corpus_file
from basketbench_workers.pipeline.suites import SuiteError, load_suites, parse_suite

from tests.measure.conftest import RNTUPLE_FILE, real_file


def test_page_sweep_expands_into_named_datasets() -> None:
    suite = load_suites()["rntuple"]
    names = [c.name for c in suite.corpora]
    assert names[0] == "physlite-rntuple" and names[-1] == "physlite"
    assert "physlite-rntuple-p16384" in names and "physlite-rntuple-p1048576-unsplit" in names
    sweep = [c for c in suite.corpora if c.page_size]
    assert len(sweep) == 10 and {c.encoding for c in sweep} == {"as-written", "unsplit"}


@pytest.mark.parametrize(("extra", "message"), [
    ({"page_sizes": [8]}, "at least 64 bytes"),
    ({"page_sizes": [4096], "encodings": ["zigzag"]}, "'encodings' must be"),
    ({"encodings": ["unsplit"]}, "'encodings' needs 'page_sizes'"),
    ({"page_sizes": "65536"}, "'page_sizes' must be a non-empty list"),
])
def test_bad_page_dimensions_are_clear_errors(extra: dict[str, object], message: str) -> None:
    raw = {"name": "s", "corpora": [{"name": "r", "files": ["f.root"], **extra}]}
    with pytest.raises(SuiteError, match=message):
        parse_suite(raw, "s.toml")


def test_a_page_sweep_corpus_is_cached_repaged(tmp_path: Path) -> None:
    real_file(RNTUPLE_FILE)
    spec = next(c for c in load_suites()["rntuple"].corpora
                if c.name == "physlite-rntuple-p16384-unsplit")
    path = corpus_file(spec, tmp_path)
    corpus = read_corpus(path, verify_checksums=True)
    assert corpus.name == "physlite-rntuple-p16384-unsplit"
    assert {b.kind for b in corpus.baskets} == {"page"}
    assert all(b.raw[1] <= 16384 for b in corpus.baskets)
    assert not any((b.column_type or "").startswith("Split") for b in corpus.baskets)
    assert corpus_file(spec, tmp_path) == path  # reused
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name, path.name + ".sha256"]


def test_kind_keeps_only_the_rntuple_pages_or_only_the_ttree_baskets(tmp_path: Path) -> None:
    real_file(RNTUPLE_FILE)
    pages = next(c for c in load_suites()["rntuple"].corpora if c.name == "physlite-rntuple")
    assert pages.kind == "rntuple"
    corpus = read_corpus(corpus_file(pages, tmp_path))
    assert len(corpus.baskets) == 1807 and {b.kind for b in corpus.baskets} == {"page"}
    raw = {"name": "s", "corpora": [{"name": "t", "files": ["uproot-HZZ.root"], "kind": "ttree"}]}
    (baskets,) = parse_suite(raw, "s.toml").corpora
    corpus = read_corpus(corpus_file(baskets, tmp_path))
    assert {b.kind for b in corpus.baskets} == {"basket"} and len(corpus.baskets) == 57
    with pytest.raises(SuiteError, match="'kind' must be"):
        parse_suite({"name": "s", "corpora": [{"name": "t", "files": ["f"], "kind": "x"}]}, "s")


def test_the_demo_suite_measures_the_rntuple_beside_the_ttree(tmp_path: Path) -> None:
    import tomllib

    from basketbench_devtools.demo.home import DemoPaths
    from basketbench_devtools.demo.suite import available_corpora, write_suite

    real_file(RNTUPLE_FILE)
    suite_file = write_suite(DemoPaths(tmp_path), available_corpora(), quick=False)
    suite = parse_suite(tomllib.loads(suite_file.read_text()), str(suite_file))
    kinds = {c.name: c.kind for c in suite.corpora}
    assert kinds["physlite-rntuple"] == "rntuple" and kinds["physlite"] is None


def test_without_shared_data_the_demo_measures_hzz_as_rntuple_and_io_on_a_release(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A newcomer's clone: no ../shared, the wheel's files and HZZ converted by ROOT 6.40.00
    (here a copy stands in for the converted file: the conversion itself runs in
    tests/deploy/test_demo_releases.py and tests/measure/test_rntuple_groundtruth.py)."""
    import shutil
    import tomllib

    pytest.importorskip("skhep_testdata")
    import basketbench.measure.rootio.root_files as root_files
    from basketbench_devtools.demo.home import DemoPaths
    from basketbench_devtools.demo.rntuple import converted_name
    from basketbench_devtools.demo.suite import available_corpora, write_io_suite, write_suite

    monkeypatch.setattr(root_files, "shared_root_files_dir", lambda: tmp_path / "no-shared")
    monkeypatch.setenv("BASKETBENCH_CACHE_DIR", str(tmp_path / "cache"))
    paths = DemoPaths(tmp_path / "home")
    names = [name for name, _ in available_corpora()]
    assert "hzz" in names and "hzz-rntuple" not in names  # nothing converted yet
    converted = root_files.converted_root_files_dir() / converted_name()
    converted.parent.mkdir(parents=True)
    shutil.copy(real_file("uproot-HZZ-zlib.root"), converted)
    for quick in (True, False):
        suite_file = write_suite(paths, available_corpora(), quick=quick)
        suite = parse_suite(tomllib.loads(suite_file.read_text()), str(suite_file))
        kinds = {c.name: c.kind for c in suite.corpora}
        assert kinds["hzz"] is None and kinds["hzz-rntuple"] == "rntuple", kinds
    io_name = write_io_suite(paths)
    io_file = paths.suites / f"{io_name}.toml"
    io = parse_suite(tomllib.loads(io_file.read_text()), str(io_file)).io
    assert io is not None and io.files == ("uproot-HZZ-zlib.root",)
    assert io.forms == ("ttree", "rntuple") and io.threads == (1,) and io.settings == (101, 505)
