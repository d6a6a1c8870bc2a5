"""rzbench against real ROOT output (the cross-check) and `basketbench run` end to end.

Needs the built binary (bench-harness/build/rzbench, `make harness-build`);
skipped with the reason when it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from basketbench.cli.app import app
from basketbench.measure.document.contract import validate_document
from basketbench.measure.rootio.corpus_format import read_corpus
from basketbench.measure.rootio.extract import CorpusSummary
from basketbench.measure.rzbench.crosscheck import CrossCheckRow, markdown_table
from basketbench.measure.rzbench.runner import run_verify
from typer.testing import CliRunner

Extracted = dict[str, tuple[CorpusSummary, list[str]]]

# Files whose baskets rzbench recompresses at ROOT's own setting, with the
# largest relative difference of the total compressed size we accept.
SIZE_AGREEMENT = {
    "uproot-HZZ-zlib.root": (104, 0.01),
    "uproot-HZZ-lzma.root": (204, 0.01),
    "uproot-HZZ-lz4.root": (404, 0.01),
    "uproot-HZZ-zstd.root": (505, 0.01),
    "uproot-Zmumu.root": (104, 0.01),
    "nanoAOD_2015_CMS_Open_Data_ttbar.root": (101, 0.01),
    "atlas-DAOD_PHYSLITE-sample.root": (105, 0.01),
}


@pytest.fixture(scope="module")
def verified(rzbench: Path, extracted: Extracted) -> dict[str, tuple[int, dict, CorpusSummary]]:
    return {
        name: (*run_verify(summary.path, binary=rzbench, timeout=600), summary)
        for name, (summary, _) in extracted.items()
    }


def test_every_compressed_basket_decodes_byte_exactly(verified: dict) -> None:
    for name, (code, report, summary) in verified.items():
        corpus = read_corpus(summary.path)
        compressed = sum(b.root_compressed is not None for b in corpus.baskets)
        assert report["failures"] == [], (name, report["failures"][:3])
        assert code == 0, name
        assert report["baskets"] == compressed, name  # verify counts the baskets it can check
        # every compressed basket decodes exactly (old "CS" blocks too); "unsupported" lists
        # baskets decoded but at a setting this backend cannot write (3xx)
        assert report["decoded_ok"] == compressed, name
        for item in report["unsupported"]:
            assert "CS" in item["error"], (name, item)


def test_recompressed_sizes_agree_with_root(verified: dict) -> None:
    rows = []
    for name, (code, report, summary) in verified.items():
        files = report["files"]
        assert len(files) == 1, name
        rows.append(
            CrossCheckRow(
                file=name,
                fcompress=files[0]["fcompress"],
                baskets=summary.baskets,
                compressed_baskets=summary.files[0].compressed_baskets,
                decoded_ok=report["decoded_ok"],
                unsupported=len(report["unsupported"]),
                failures=report["failures"],
                root_compressed_bytes=files[0]["root_compressed_bytes"],
                recompressed_bytes=files[0]["recompressed_bytes"],
                exit_code=code,
            )
        )
    print("\n" + markdown_table(rows))  # the record (pytest -s); docs/perf/harness.md has it
    by_name = {r.file: r for r in rows}
    checked = 0
    for name, (fcompress, tolerance) in SIZE_AGREEMENT.items():
        row = by_name.get(name)
        if row is None:  # a file of ../shared only (the testdata wheel has HZZ and Zmumu)
            continue
        checked += 1
        assert row.fcompress == fcompress, name
        assert row.root_compressed_bytes > 0, name
        assert row.size_ratio is not None and abs(row.size_ratio - 1) <= tolerance, (
            name, row.size_ratio)
    assert checked > 0, f"none of {sorted(SIZE_AGREEMENT)} among {sorted(by_name)}"


def _run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *args], env=env)
    return result.exit_code, " ".join(result.output.split())


def test_run_synthetic(rzbench: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    code, output = _run(
        [
            "--synthetic", "tsmall,zeros", "--settings", "101,505",
            "--min-samples", "3", "--target-ms", "5",
            "--json", str(out),
            "--csv", str(tmp_path / "r.csv"), "--markdown", str(tmp_path / "r.md"),
        ]
    )  # fmt: skip
    assert code == 0, output
    doc = json.loads(out.read_text())
    assert validate_document(doc) == []
    assert {d["name"] for d in doc["datasets"]} >= {"tsmall", "zeros"}
    measured = [r for r in doc["results"] if r["codec"] != "memcpy"]
    assert {(r["dataset"], r["setting"]) for r in measured} == {
        (d, s) for d in ("tsmall", "zeros") for s in (101, 505)
    }
    for r in doc["results"]:
        assert r["roundtrip_ok"] and r["error"] is None
        assert r["ratio"] == pytest.approx(
            r["uncompressed_bytes"] / r["compressed_bytes"], rel=1e-9
        )
        assert len(r["compress_mbps"]["samples"]) >= 3
    assert any(r["codec"] == "memcpy" for r in doc["results"])
    assert "tsmall" in output and "zstd-5 (505)" in output  # the table was printed
    assert "tsmall" in (tmp_path / "r.csv").read_text()
    assert "tsmall" in (tmp_path / "r.md").read_text()


def test_run_real_corpus_checksum_matches(
    rzbench: Path, extracted: Extracted, tmp_path: Path
) -> None:
    summary, _ = extracted["uproot-HZZ-zstd.root"]
    out = tmp_path / "r.json"
    code, output = _run(
        [
            "--corpus", str(summary.path), "--settings", "505", "--no-memcpy",
            "--min-samples", "3", "--target-ms", "5", "--json", str(out), "--commit", "abc123",
        ]
    )  # fmt: skip
    assert code == 0, output
    doc = json.loads(out.read_text())
    assert validate_document(doc) == []
    (dataset,) = doc["datasets"]
    # the C++ reader and the Python writer agree on the bytes and the checksum
    assert dataset["checksum"] == summary.checksum
    assert dataset["bytes"] == summary.raw_bytes and dataset["baskets"] == summary.baskets
    (r,) = doc["results"]
    assert r["uncompressed_bytes"] == summary.raw_bytes
    assert doc["context"]["commit"] == "abc123"


def test_run_bad_corpus_propagates_the_error(rzbench: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.bbc"
    bad.write_bytes(b"NOTACORP" + b"\x00" * 64)
    code, output = _run(["--corpus", str(bad), "--min-samples", "1", "--target-ms", "1"])
    assert code == 2
    assert "rzbench failed (exit 2)" in output and "bad.bbc" in output


def test_run_without_binary_says_how_to_build(tmp_path: Path) -> None:
    code, output = _run(
        ["--synthetic", "zeros"], env={"BASKETBENCH_RZBENCH": str(tmp_path / "nope")}
    )
    assert code == 2
    assert "make setup" in output


def test_python_reads_what_rzbench_writes(rzbench: Path, tmp_path: Path) -> None:
    """The other direction of the format contract: rzbench synth -> Python reader."""
    import subprocess

    from basketbench.measure.document.contract import load_document

    corpus_path = tmp_path / "tsmall.bbc"
    subprocess.run([str(rzbench), "synth", "tsmall", "-o", str(corpus_path)], check=True)
    corpus = read_corpus(corpus_path, verify_checksums=True)
    assert corpus.name == "tsmall" and corpus.baskets
    out = tmp_path / "r.json"
    code, output = _run(
        ["--synthetic", "tsmall", "--settings", "101", "--no-memcpy",
         "--min-samples", "1", "--target-ms", "1", "--json", str(out)]
    )  # fmt: skip
    assert code == 0, output
    (dataset,) = load_document(out)["datasets"]
    assert dataset["checksum"] == corpus.checksum()
    assert dataset["bytes"] == corpus.raw_bytes
