"""Ground truth with a real ROOT release (6.40.00, the PyPI `root` wheel; downloaded and built
against once into ~/.cache/basketbench/root-releases, then reused).

- rzbench's `root` backend over the release's libCore reports the codec versions that run;
- rootcompat vs the release's R__zipMultipleAlgorithm, byte for byte, on every basket of the
  shared real files at 101-109, 201-209, 401-409, 501-509: every difference must be explained
  by a codec library version that differs between the two;
- `basketbench run --root-release` vs ROOT's own output: PyROOT rewrites trees at a setting
  (full copy, every basket compressed again) and the compressed byte counts must be ROOT's.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from basketbench.measure.document.contract import load_document
from basketbench.measure.realroot import groundtruth as gt
from basketbench.measure.realroot import release_speed as speed
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import Release, RootReleaseError
from basketbench.measure.rootio.corpus_format import CorpusWriter, read_corpus
from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rzbench.crosscheck import crosscheck_file, markdown_table
from basketbench.measure.rzbench.runner import BenchOptions, run_bench, run_verify

from tests.measure.conftest import real_file, real_files

RELEASE = "6.40.00"
REPO = Path(__file__).resolve().parents[2]
ROOTCOMPAT_SO = REPO / "bench-harness" / "build" / "librootcompat_rzip.so"
# One file per distinct set of raw baskets (the HZZ / Zmumu variants hold the same events).
GROUND_TRUTH_FILES = (
    "uproot-HZZ-uncompressed.root",
    "uproot-Zmumu-uncompressed.root",
    "nanoAOD_2015_CMS_Open_Data_ttbar.root",
    "atlas-DAOD_PHYSLITE-sample.root",
)
# Trees PyROOT can copy without experiment dictionaries (PHYSLITE's xAOD classes cannot be read
# by a plain ROOT: reading them aborts in TBufferFile).
REWRITE_INPUTS = (("uproot-HZZ-uncompressed.root", "events"),
                  ("nanoAOD_2015_CMS_Open_Data_ttbar.root", "Events"))
REWRITE_SETTINGS = (101, 207, 404, 505, 509)
# The first test needing the release downloads its wheel and builds rzbench against it
# (1-7 min on a busy 2-core machine; reused afterwards).
pytestmark = pytest.mark.timeout(1800)


# --- no download needed -----------------------------------------------------------------------


def test_release_names_and_errors() -> None:
    assert root_release.lookup("6.40.00").wheel == "0.1a12"
    assert root_release.lookup("6.40/00") == root_release.lookup("v6-40-00")
    assert root_release.lookup("6.38.00").wheel == "0.1a10"
    assert root_release.release_for_tag("v6-38-00") == root_release.RELEASES["6.38.00"]
    assert root_release.release_for_tag("master") is None
    rel = root_release.RELEASES["6.40.00"]
    assert rel.tag == "v6-40-00" and rel.codec_set == "root-6.40.00"
    assert root_release.release_for_sha(root_release.release_commit_sha(rel)) == rel
    listing = (r"6\.37\.01 \(development\), 6\.39\.01 \(development\), 6\.38\.00, "
               r"6\.40\.00")
    with pytest.raises(RootReleaseError,
                       match=r"unknown ROOT release '6\.41\.00'; available: " + listing):
        root_release.lookup("6.41.00")
    for system, machine in (("Darwin", "arm64"), ("Linux", "aarch64")):
        with pytest.raises(RootReleaseError,
                           match=f"x86_64 Linux only; this is {system} {machine}"):
            root_release.check_platform(system, machine)
    root_release.check_platform("Linux", "x86_64")


def test_the_downloaded_wheel_is_found_whatever_its_case(tmp_path: Path) -> None:
    """The 0.1a8 / 0.1a9 wheels (6.37.01, 6.39.01) are named ROOT-*.whl, later ones root-*.whl;
    a case-sensitive glob made `--root-release 6.37.01` fail after a successful download."""
    assert root_release.downloaded_wheel(tmp_path) is None
    (tmp_path / "rootpy-1.0-py3-none-any.whl").write_bytes(b"")
    assert root_release.downloaded_wheel(tmp_path) is None
    wheel = tmp_path / "ROOT-0.1a8-cp311-cp311-manylinux_2_28_x86_64.whl"
    wheel.write_bytes(b"")
    assert root_release.downloaded_wheel(tmp_path) == wheel


def test_cli_unknown_release_is_a_usage_error() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "run", "--root-release", "5.34.38",
         "--synthetic", "event"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "unknown ROOT release '5.34.38'; available: 6.37.01" in " ".join(done.stderr.split())


# --- with the real release ----------------------------------------------------------------------


def _version(binary: Path) -> dict[str, object]:
    done = subprocess.run([str(binary), "version"], capture_output=True, text=True, check=True)
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_release_backend_reports_the_codecs_that_run(
    release: tuple[Release, Path], rzbench: Path, tmp_path: Path
) -> None:
    _rel, binary = release
    info = _version(binary)
    host = _version(rzbench)
    assert info["backend"] == "root"
    codecs = info["codecs"]
    assert isinstance(codecs, dict)
    assert codecs["set"] == "root-6.40.00" and codecs["root_version"] == "6.40.00"
    # zstd and lz4 are exported by libCore (dlsym); xz and xxhash are hidden symbols read from
    # libCore's .symtab and called at their load address; zlib is the host's libz libCore links.
    host_libraries = host["libraries"]
    assert isinstance(host_libraries, dict)
    assert codecs["libraries"] == {"zstd": "1.5.7", "lz4": "1.10.0", "lzma": "5.8.2",
                                   "xxhash": "0.8.0", "zlib": host_libraries["zlib"]}
    # The harness's own calls still reach the host libraries (machine.libraries keeps its meaning)
    assert info["libraries"] == host["libraries"]
    assert host["codecs"] == {"set": "host", "root_version": None, "libraries": host["libraries"]}

    doc_path = tmp_path / "r.json"
    code, _ = run_bench(BenchOptions(synthetic=["event"], settings=[505], min_samples=1,
                                     target_ms=0), doc_path, binary=binary)
    assert code == 0
    doc = load_document(doc_path)  # schema-valid, "codecs" included
    assert doc["codecs"] == codecs
    assert doc["machine"]["root_version"] == "6.40.00"
    host_doc = tmp_path / "h.json"
    run_bench(BenchOptions(synthetic=["event"], settings=[505], min_samples=1, target_ms=0),
              host_doc, binary=rzbench)
    host_machine = load_document(host_doc)["machine"]
    assert host_machine["root_version"] is None
    # One machine measures releases and rootcompat alike: the codec build is not hashed.
    assert doc["machine"]["fingerprint_hash"] == host_machine["fingerprint_hash"]


@pytest.fixture(scope="module")
def ground_truth_corpora(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    files = {p.name: p for p in real_files()}
    present = [files[f] for f in GROUND_TRUTH_FILES if f in files]
    if not present:
        pytest.skip("real ROOT files not found (no ../shared/data/root-files, no testdata wheel)")
    out = tmp_path_factory.mktemp("gt")
    corpora = []
    for path in present:
        extract_corpus([path], out / f"{path.stem}.bbc", path.stem)
        corpora.append(out / f"{path.stem}.bbc")
    return corpora


def test_rootcompat_vs_release_byte_for_byte(
    release: tuple[Release, Path], rzbench: Path, ground_truth_corpora: list[Path]
) -> None:
    rel, binary = release
    if not ROOTCOMPAT_SO.is_file():
        pytest.skip(f"{ROOTCOMPAT_SO} is not built (make harness-build)")
    rows = gt.compare_parallel(ground_truth_corpora, gt.SETTINGS, ROOTCOMPAT_SO,
                               root_release.prefix(rel) / "lib" / "libCore.so")
    host_versions = _version(rzbench)["codecs"]["libraries"]  # type: ignore[index]
    root_versions = _version(binary)["codecs"]["libraries"]  # type: ignore[index]
    print("\n" + gt.markdown(rows, "rootcompat", f"ROOT {rel.version}"))
    assert len(rows) == len(ground_truth_corpora) * 36
    assert gt.unexplained(rows, host_versions, root_versions) == []
    # What the codec versions predict here: identical ZLIB (same host libz), LZMA and LZ4
    # (xz 5.4 vs 5.8 and lz4 1.9 vs 1.10 produce the same bytes), different ZSTD (1.5.4 vs 1.5.7).
    for row in rows:
        if row.setting // 100 in (1, 2, 4):
            assert not row.differs, (row.dataset, row.setting, row.first_difference)
    if host_versions["zstd"] != root_versions["zstd"]:
        assert any(r.differs for r in rows if r.setting // 100 == 5)

    # rzbench frames baskets as TBasket does (output room = input size, stored when it does not
    # shrink): its totals are the ctypes totals above, stored baskets included.
    physlite = [c for c in ground_truth_corpora if "PHYSLITE" in c.name]
    for corpus in physlite:
        doc = _bench(rzbench, corpus, [505], corpus.parent / "physlite.json")
        expected = next(r for r in rows if r.dataset == corpus.stem and r.setting == 505)
        assert doc[505] == expected.bytes_a


def _bench(binary: Path, corpus: Path, settings: list[int], out: Path) -> dict[int, int]:
    code, stderr = run_bench(
        BenchOptions(corpora=[corpus], settings=settings, min_samples=1, target_ms=0,
                     memcpy=False), out, binary=binary)
    assert code == 0, stderr
    return {r["setting"]: r["compressed_bytes"] for r in load_document(out)["results"]}


@pytest.fixture(scope="module")
def rewritten(release: tuple[Release, Path], tmp_path_factory: pytest.TempPathFactory
              ) -> list[Path]:
    """HZZ and NanoAOD rewritten by ROOT 6.40.00 itself (PyROOT) at each setting."""
    rel, _ = release
    files = {p.name: p for p in real_files()}
    inputs = [(files[f], t) for f, t in REWRITE_INPUTS if f in files]
    if not inputs:
        pytest.skip("real ROOT files not found (no ../shared/data/root-files, no testdata wheel)")
    out = tmp_path_factory.mktemp("pyroot")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(root_release.release_dir(rel)),
                                          str(REPO / "backend")])}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.measure.realroot.pyroot_rewrite", str(out),
         ",".join(str(s) for s in REWRITE_SETTINGS), *(f"{p}:{t}" for p, t in inputs)],
        env=env, capture_output=True, text=True, check=False, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    files = sorted(out.glob("*.root"))
    assert len(files) == len(inputs) * len(REWRITE_SETTINGS)
    return files


def test_root_release_gives_roots_own_bytes(
    release: tuple[Release, Path], rewritten: list[Path]
) -> None:
    rel, binary = release
    root = gt.RZip(root_release.prefix(rel) / "lib" / "libCore.so", deepbind=True)
    for path in rewritten:
        corpus_path = path.with_suffix(".bbc")
        summary = extract_corpus([path], corpus_path)
        assert summary.embedded_baskets == 0 if hasattr(summary, "embedded_baskets") else True
        corpus = read_corpus(corpus_path)
        setting = corpus.files[0].fcompress
        assert setting in REWRITE_SETTINGS
        # sum of fNbytes - fKeylen: the compressed block, or the raw payload when ROOT stored it
        root_total = 0
        for i, (basket, raw) in enumerate(corpus.iter_raw()):
            written = corpus.root_compressed(i)
            root_total += len(written) if written is not None else len(raw)
            # the release's own R__zipMultipleAlgorithm, called as TBasket calls it: same bytes
            assert root.compress(setting, raw) == written, (path.name, basket.branch, i)
        measured = _bench(binary, corpus_path, [setting], path.with_suffix(".json"))
        assert measured[setting] == root_total, (path.name, setting)


def test_old_fcompress_takes_the_algorithm_from_the_blocks(
    rzbench: Path, tmp_path: Path
) -> None:
    """A file with fCompress < 100 (ROOT 6.14 wrote 4 for LZ4-4) is recompressed with the
    algorithm its blocks name, not as ZLIB-4."""
    source_file = real_file("uproot-HZZ-lz4.root")
    lz4 = extract_corpus([source_file], tmp_path / "lz4.bbc")
    corpus = read_corpus(lz4.path)
    old = tmp_path / "old-style.bbc"
    with CorpusWriter(old, "old-style", created_by="test: fCompress 4") as writer:
        writer.add_file(corpus.files[0].path, 4, corpus.files[0].sha256)
        for i, (b, raw) in enumerate(corpus.iter_raw()):
            writer.add_basket(
                file=0, tree=b.tree, branch=b.branch, basket=b.basket,
                element_size=b.element_size, entries=b.entries, data_bytes=b.data_bytes,
                entry_offsets=b.entry_offsets, raw=raw, root_compressed=corpus.root_compressed(i),
            )
        writer.commit()
    code, report = run_verify(old, binary=rzbench)
    assert code == 0
    (entry,) = report["files"]
    assert entry["fcompress"] == 4 and entry["recompressed_setting"] == 404
    assert entry["size_ratio"] == pytest.approx(1.0, abs=1e-4)


# --- files whose branches have their own settings, and ROOT's old "CS" algorithm (issue 28) ---
# HZZ rewritten by ROOT 6.40.00: a file at 101 whose branches are at 404 (TBranch::
# SetCompressionSettings), and a file at 301 (R__SetZipMode(3): "CS" blocks, still written).
OWN_SETTINGS = ("101/404", "301")


@pytest.fixture(scope="module")
def own_settings(release: tuple[Release, Path], tmp_path_factory: pytest.TempPathFactory
                 ) -> dict[str, tuple[Path, int]]:
    """{setting spec: (file ROOT wrote, ROOT's sum of fNbytes - fKeylen over its baskets)}."""
    rel, _ = release
    source = real_file("uproot-HZZ-uncompressed.root")
    if not source.is_file():
        pytest.skip("real ROOT files not found")
    out = tmp_path_factory.mktemp("own-settings")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join([str(root_release.release_dir(rel)),
                                          str(REPO / "backend")])}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.measure.realroot.pyroot_rewrite", str(out),
         ",".join(OWN_SETTINGS), f"{source}:events"],
        env=env, capture_output=True, text=True, check=False, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    counted = {Path(line.split()[1]).name: int(line.split()[2])
               for line in done.stdout.splitlines() if line.startswith("basket_bytes ")}
    return {spec: (out / f"{source.stem}-{spec.replace('/', '-')}.root",
                   counted[f"{source.stem}-{spec.replace('/', '-')}.root"])
            for spec in OWN_SETTINGS}


def test_verify_uses_each_branchs_own_setting(
    own_settings: dict[str, tuple[Path, int]], rzbench: Path, tmp_path: Path
) -> None:
    path, _ = own_settings["101/404"]
    summary = extract_corpus([path], tmp_path / "mixed.bbc")
    corpus = read_corpus(summary.path)
    assert corpus.files[0].fcompress == 101
    assert {b.fcompress for b in corpus.baskets} == {404}  # recorded per basket
    compressed = [i for i, b in enumerate(corpus.baskets) if b.root_compressed is not None]
    assert all(corpus.root_compressed(i)[:2] == b"L4" for i in compressed)
    code, report = run_verify(summary.path, binary=rzbench)
    assert code == 0 and report["failures"] == []
    assert report["decoded_ok"] == len(compressed)
    (entry,) = report["files"]
    assert entry["fcompress"] == 101 and entry["recompressed_setting"] == 404
    assert entry["recompressed_settings"] == {"404": len(compressed)}
    # rootcompat and ROOT 6.40 write the same LZ4 bytes (test above): the same total, exactly
    assert entry["recompressed_bytes"] == entry["root_compressed_bytes"]
    row = crosscheck_file(path, tmp_path, rzbench)
    assert row.size_ratio == 1.0 and row.recompressed_settings == {404: len(compressed)}
    assert "| 404 (" in markdown_table([row])


def test_old_cs_files_are_decoded(
    release: tuple[Release, Path], own_settings: dict[str, tuple[Path, int]], rzbench: Path,
    tmp_path: Path
) -> None:
    _rel, release_binary = release
    path, _ = own_settings["301"]
    summary = extract_corpus([path], tmp_path / "cs.bbc")  # uproot alone cannot read it
    corpus = read_corpus(summary.path)
    assert corpus.files[0].fcompress == 301
    compressed = [i for i, b in enumerate(corpus.baskets) if b.root_compressed is not None]
    assert compressed and all(corpus.root_compressed(i)[:3] == b"CS\x08" for i in compressed)
    # the payloads our decoder gives are the source file's (stored uncompressed there)
    source = extract_corpus([real_file("uproot-HZZ-uncompressed.root")], tmp_path / "u.bbc")
    assert [raw for _b, raw in corpus.iter_raw()] == [
        raw for _b, raw in read_corpus(source.path).iter_raw()]
    # rootcompat decodes every CS block byte-exactly, and so does ROOT's own R__unzip
    for binary in (rzbench, release_binary):
        code, report = run_verify(summary.path, binary=binary)
        assert code == 0 and report["failures"] == [], (binary, report["failures"][:2])
        assert report["decoded_ok"] == len(compressed)
    # rootcompat cannot write CS: the sizes are not compared, and it says why
    code, report = run_verify(summary.path, binary=rzbench)
    assert report["files"][0]["recompressed_bytes"] is None
    assert len(report["unsupported"]) == len(compressed)
    assert "ROOT's old CS algorithm (R__SetZipMode(3)) is not supported for writing" in (
        report["unsupported"][0]["error"])
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "corpus", "extract", str(path), "-o",
         str(tmp_path / "cli.bbc")], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "truncated or damaged" not in done.stderr + done.stdout


def test_corpus_info_counts_what_root_counts(
    own_settings: dict[str, tuple[Path, int]], tmp_path: Path
) -> None:
    """ROOT's own count of its baskets' bytes (fNbytes - fKeylen, read back by ROOT) includes
    the baskets it stored uncompressed: `corpus info` shows that total and its split."""
    path, root_total = own_settings["101/404"]
    summary = extract_corpus([path], tmp_path / "mixed.bbc")
    corpus = read_corpus(summary.path)
    stored = [b for b in corpus.baskets if b.root_compressed is None and not b.embedded]
    assert stored, "this file has baskets LZ4 did not shrink"
    compressed_bytes = sum(b.root_compressed_bytes for b in corpus.baskets)
    stored_bytes = sum(b.raw[1] for b in stored)
    assert compressed_bytes + stored_bytes == root_total
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.cli", "corpus", "info", str(summary.path)],
        capture_output=True, text=True, check=True)
    row = next(line for line in done.stdout.splitlines() if path.name in line)
    cells = [c.strip() for c in row.split("│")]
    assert f"{root_total:,}" in cells and f"{compressed_bytes:,}" in cells
    assert f"{stored_bytes:,}" in cells and str(len(stored)) in cells


def test_a_script_answers_which_zstd_and_which_root(
    release: tuple[Release, Path], own_settings: dict[str, tuple[Path, int]], rzbench: Path,
    api_server: Any, tmp_path: Path
) -> None:
    """Numbers measured on a file ROOT 6.40 wrote, by the release's rzbench and by the host's,
    uploaded as a worker uploads them: one /results call says which zstd and which ROOT."""
    from basketbench_workers.build.profiles import load_profiles
    from basketbench_workers.pipeline.stages import record_build

    _rel, release_binary = release
    path, _ = own_settings["101/404"]
    corpus = extract_corpus([path], tmp_path / "hzz.bbc", "hzz").path
    commit = "ab" * 20
    built_from = root_release.harness_hash(REPO / "bench-harness")
    for name, binary in (("release", release_binary), ("host", rzbench)):
        out = tmp_path / f"{name}.json"
        code, stderr = run_bench(BenchOptions(corpora=[corpus], settings=[505], min_samples=1,
                                              target_ms=0, memcpy=False), out, binary=binary)
        assert code == 0, stderr
        if name == "release":
            record_build(out, load_profiles()["root-release"], built_from)
        answer = httpx.post(f"{api_server.api}/results", content=out.read_bytes(),
                            headers={**api_server.headers, "Content-Type": "application/json"},
                            params={"commit": commit, "machine": "bench-e2e", "tag": "haswell"},
                            timeout=120)
        assert answer.status_code == 201, answer.text
    script = [sys.executable, str(REPO / "scripts" / "which_codecs.py"), "--api", api_server.url,
              "--token", api_server.token, "--json", f"commit={commit}"]
    done = subprocess.run([*script, "root_version=6.40.00"], capture_output=True, text=True,
                          check=False, timeout=120)
    assert done.returncode == 0, done.stderr
    (answer,) = [json.loads(line) for line in done.stdout.splitlines()]
    measured = _version(release_binary)["codecs"]
    assert isinstance(measured, dict)
    assert answer["zstd"] == measured["libraries"]["zstd"] == "1.5.7"
    assert answer["root"] == "ROOT 6.40.00" and answer["codec_set"] == "root-6.40.00"
    assert answer["harness_hash"] == built_from and answer["build_profile"] == "root-release"
    assert answer["setting"] == 505 and answer["dataset"] == "hzz"
    # without the filter: both; the host's numbers name the host's zstd and no ROOT code
    done = subprocess.run(script, capture_output=True, text=True, check=False, timeout=120)
    answers = {a["codec_set"]: a for a in map(json.loads, done.stdout.splitlines())}
    host_libraries = _version(rzbench)["libraries"]
    assert isinstance(host_libraries, dict)
    assert answers["host"]["zstd"] == host_libraries["zstd"]
    assert answers["host"]["root"].startswith("no ROOT code")
    assert answers["root-6.40.00"] == answer
    text = subprocess.run([*script[:-2], f"commit={commit}", "root_version=6.40.00"],
                          capture_output=True, text=True, check=True, timeout=120).stdout
    assert "zstd 1.5.7" in text and "ROOT 6.40.00" in text
    missing = subprocess.run([*script, "root_version=6.99.00"], capture_output=True, text=True,
                             check=False, timeout=120)
    assert missing.returncode == 2 and "no results measured with ROOT version" in missing.stderr


# --- speed between releases, by instruction counts (issue 9: "LZMA decompression 1.7x faster") --


@pytest.fixture(scope="module")
def small_hzz(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first 20 HZZ baskets (286 kB): enough for stable per-byte counts, fast under
    callgrind (~3 s of CPU per run, most of it loading libCore)."""
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed (scripts/system-deps.sh installs it)")
    full = extract_corpus([real_file("uproot-HZZ-uncompressed.root")],
                          tmp_path_factory.mktemp("hzz") / "full.bbc")
    corpus = read_corpus(full.path)
    small = full.path.with_name("hzz20.bbc")
    with CorpusWriter(small, "hzz20", created_by="test: first 20 HZZ baskets") as writer:
        writer.add_file(corpus.files[0].path, corpus.files[0].fcompress, corpus.files[0].sha256)
        for i, (b, raw) in enumerate(corpus.iter_raw()):
            if i == 20:
                break
            writer.add_basket(
                file=0, tree=b.tree, branch=b.branch, basket=b.basket,
                element_size=b.element_size, entries=b.entries, data_bytes=b.data_bytes,
                entry_offsets=b.entry_offsets, raw=raw, root_compressed=corpus.root_compressed(i),
            )
        writer.commit()
    return small


def test_callgrind_parsing_agrees_with_callgrind_annotate(
    release: tuple[Release, Path], small_hzz: Path, tmp_path: Path
) -> None:
    """Our reader of callgrind's format gives the inclusive costs valgrind's own tool gives."""
    _rel, binary = release
    out = tmp_path / "callgrind.out"
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(binary),
         *speed.bench_arguments([small_hzz], [101], 1, 0, tmp_path / "r.json")],
        capture_output=True, check=True)
    ours = speed.parse_callgrind(out, (speed.COMPRESS_PASS, speed.DECOMPRESS_PASS))
    annotate = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)],
                              capture_output=True, text=True, check=True).stdout
    for name, cost in ours.items():
        line = next(x for x in annotate.splitlines() if f":{name} [" in x)
        assert cost.inclusive["Ir"] == int(line.split()[0].replace(",", ""))
        assert cost.calls == 3  # validation, warm-up, one sample (--min-samples 1 --target-ms 0)


def test_lzma_decompression_runs_fewer_instructions_in_6_40(
    release: tuple[Release, Path], small_hzz: Path
) -> None:
    """6.38.00 (xz 5.2.4) vs 6.40.00 (xz 5.8.2), deterministic counts: LZMA-1 decompression
    executes ~9-11 % fewer instructions in 6.40 and mispredicts (callgrind's branch model) ~3x
    less; ZLIB, the host's libz in both, is the control and costs the same."""
    _rel, new_binary = release
    _old, old_binary = root_release.release_rzbench("6.38.00")
    runs = [(binary, s) for binary in (old_binary, new_binary) for s in (101, 201)]
    with ThreadPoolExecutor(max_workers=2) as pool:  # four callgrind processes, two at a time
        counted = list(pool.map(
            lambda run: speed.count_instructions(run[0], small_hzz, run[1], branch_sim=True),
            runs))
    old = {r.setting: r for r in counted[:2]}
    new = {r.setting: r for r in counted[2:]}
    for result in (*old.values(), *new.values()):
        # three passes each; after the first (which loads libCore) they cost the same
        assert len(result.compress_passes) == len(result.decompress_passes) == 3
        for passes in (result.compress_passes, result.decompress_passes):
            assert passes[2] == pytest.approx(passes[1], rel=5e-3)
    assert old[101].decompress_ir == pytest.approx(new[101].decompress_ir, rel=1e-3)
    assert old[101].compress_ir == pytest.approx(new[101].compress_ir, rel=1e-3)
    instructions = old[201].decompress_ir / new[201].decompress_ir
    mispredictions = old[201].decompress["Bcm"] / new[201].decompress["Bcm"]
    print(f"\nLZMA-1 decompression, 6.38.00 / 6.40.00: instructions {instructions:.3f}, "
          f"simulated branch mispredictions {mispredictions:.2f}")
    assert 1.04 < instructions < 1.3
    assert mispredictions > 2
