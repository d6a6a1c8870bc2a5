"""`basketbench ab` / measure.ab: two layers interleaved in one rzbench process (issue 32).

No test here depends on speed: they check the document's shape, the pairs and their counts, the
statistics recomputed from the pairs, byte-exact round trips and the refusals of bad input.
Whether intervals contain 1 (a build against itself) or exclude it (LZMA 6.38 -> 6.40) is a
measurement, recorded in docs/perf/ab.md.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from basketbench.cli.app import app
from basketbench.measure.ab import SCHEMA, ABInputError, run_ab
from basketbench.measure.realroot import releases
from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rzbench import ab_stats, interference
from typer.testing import CliRunner

from tests.measure.conftest import real_file

EFFECT_KEYS = {"ratio", "ci_low", "ci_high", "pairs", "disturbed_pairs", "samples"}


@pytest.fixture(scope="module")
def corpus_dir(rzbench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ab-corpus")
    subprocess.run([str(rzbench), "synth", "tsmall", "-o", str(folder / "tsmall.bbc")], check=True)
    return folder


def check_document(doc: dict[str, Any], pairs: int, settings: list[int]) -> None:
    """The basketbench-ab-v1 shape of COMMON.md, and statistics that follow from the samples."""
    assert doc["schema"] == SCHEMA
    assert set(doc) == {"schema", "a", "b", "method", "load", "disturbed_fraction", "results"}
    for side in ("a", "b"):
        assert set(doc[side]) == {"build", "label", "codec_versions"}
        assert doc[side]["codec_versions"], side
    method = doc["method"]
    assert {"order", "ratio", "ci", "confidence", "disturbed_rule",
            "repetitions_per_pair"} <= set(method)
    assert method["confidence"] == 0.95
    assert len(doc["load"]["loadavg_start"]) == len(doc["load"]["loadavg_end"]) == 3
    assert 0 <= doc["disturbed_fraction"] <= 1
    assert [r["setting"] for r in doc["results"]] == settings
    for r in doc["results"]:
        assert r["roundtrip_ok"] is True
        assert set(r["compressed_bytes"]) == {"a", "b"}
        for direction in ("compress", "decompress"):
            effect = r[direction]
            assert set(effect) == EFFECT_KEYS
            assert effect["pairs"] + effect["disturbed_pairs"] == pairs
            assert len(effect["samples"]) == effect["pairs"]
            if effect["pairs"]:
                ordered = sorted(effect["samples"])
                lo, hi, _ = ab_stats.median_ci_ranks(len(ordered), 0.95)
                assert effect["ratio"] == pytest.approx(ab_stats.median(ordered))
                assert (effect["ci_low"], effect["ci_high"]) == (ordered[lo - 1], ordered[hi - 1])
                assert effect["ci_low"] <= effect["ratio"] <= effect["ci_high"]


def test_host_against_host_cli(corpus_dir: Path, tmp_path: Path) -> None:
    out, raw = tmp_path / "ab.json", tmp_path / "raw.json"
    done = CliRunner().invoke(app, [
        "ab", "--a", "host", "--b", "host", "--corpus", str(corpus_dir), "--settings", "101,404",
        "--pairs", "5", "--target-ms", "2", "--json", str(out), "--raw", str(raw)])
    assert done.exit_code == 0, done.output
    doc = json.loads(out.read_text())
    check_document(doc, 5, [101, 404])
    for r in doc["results"]:
        assert r["compressed_bytes"]["a"] == r["compressed_bytes"]["b"]
    # rzbench's pairs carry the interference evidence of every repetition
    measured = json.loads(raw.read_text())
    pair = measured["results"][0]["compress"]["pairs"][0]
    assert set(pair["a"]) == {"wall_s", "cpu_s", "involuntary_switches", "steal_ticks"}
    assert measured["results"][0]["identical_output"] is True
    assert interference.judge(measured["interference"]).judged
    assert "ratio" in done.output and "interval" in done.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--a", "release:6.99.00", "--b", "host"], "unknown ROOT release"),
        (["--a", "host", "--b", "/nonexistent/build"], "neither host"),
        (["--a", "host", "--b", "host", "--settings", "100"], "setting 100"),
        (["--a", "host", "--b", "host", "--settings", "1x"], "comma-separated integers"),
        (["--a", "host", "--b", "host", "--settings", "305"], "setting 305"),
    ],
)
def test_bad_input_exits_2(corpus_dir: Path, args: list[str], message: str) -> None:
    done = CliRunner().invoke(app, ["ab", *args, "--corpus", str(corpus_dir)])
    assert done.exit_code == 2, done.output
    assert message in done.output
    assert "Traceback" not in done.output


def test_missing_layer_and_empty_corpus(tmp_path: Path, corpus_dir: Path) -> None:
    build = tmp_path / "build"
    (build / "layer").mkdir(parents=True)
    with pytest.raises(ABInputError, match="has no layer/libbbzip.so"):
        run_ab("host", str(build), corpus_dir, [101])
    empty = tmp_path / "empty"
    empty.mkdir()
    done = CliRunner().invoke(app, ["ab", "--a", "host", "--b", "host", "--corpus", str(empty)])
    assert done.exit_code == 2 and "holds no *.bbc file" in done.output
    done = CliRunner().invoke(app, ["ab", "--a", "host", "--b", "host",
                                    "--corpus", str(tmp_path / "missing")])
    assert done.exit_code == 2 and "does not exist" in done.output


def test_build_directory_layer(tmp_path: Path, corpus_dir: Path) -> None:
    """A build directory's layer/libbbzip.so (rootcompat built as a shared object here)."""
    so = Path(__file__).resolve().parents[2] / "bench-harness" / "build" / "librootcompat_rzip.so"
    if not so.is_file():
        pytest.skip("librootcompat_rzip.so is not built")
    layer = tmp_path / "build" / "layer"
    layer.mkdir(parents=True)
    (layer / "libbbzip.so").symlink_to(so)
    (layer / "layer.json").write_text(json.dumps(
        {"commit": "a" * 40, "profile": "test", "codec_versions": {"zstd": "x"}}))
    doc = run_ab("host", str(tmp_path / "build"), corpus_dir, [505], pairs=3, target_ms=1)
    check_document(doc, 3, [505])
    assert doc["b"]["label"] == "aaaaaaaaaaaa (test)"
    assert doc["results"][0]["compressed_bytes"]["a"] == doc["results"][0]["compressed_bytes"]["b"]


def test_statistics_and_judge() -> None:
    assert ab_stats.median_ci_ranks(31, 0.95)[:2] == (10, 22)
    assert ab_stats.median_ci_ranks(5, 0.95) == (1, 5, pytest.approx(0.9375))
    limits = ab_stats.Limits(min_cpu_wall=0.5, max_involuntary=10, max_steal_ticks=0)

    def rep(cpu: float, switches: int = 0) -> dict[str, Any]:
        return {"wall_s": 1.0, "cpu_s": cpu, "involuntary_switches": switches, "steal_ticks": 0}

    pairs = [{"a": rep(1.0 + i / 100), "b": rep(1.0)} for i in range(1, 8)]
    pairs.append({"a": rep(0.2), "b": rep(1.0)})  # disturbed
    pairs.append({"a": rep(1.0), "b": rep(1.0, switches=11)})  # disturbed
    s = ab_stats.summarize(pairs, "cpu", limits)
    assert (s.pairs, s.disturbed_pairs) == (7, 2)
    assert s.ratio == pytest.approx(1.04)
    assert (s.ci_low, s.ci_high) == (pytest.approx(1.01), pytest.approx(1.07))
    # judging a run: a back-to-back dedicated worker's record is not disturbed, a run whose
    # repetitions were mostly disturbed is, and an old document is not judged (busy applies)
    assert not interference.judge({"disturbed_fraction": 0.0}).disturbed
    verdict = interference.judge({"disturbed_fraction": 0.8})
    assert verdict.disturbed and verdict.reasons
    assert not interference.judge(None).judged


@pytest.mark.slow
def test_release_638_against_640_on_hzz(tmp_path: Path) -> None:
    """Both releases' libCore in one process, if they are cached (no download in tests)."""
    wanted = [releases.lookup(v) for v in ("6.38.00", "6.40.00")]
    if not all(releases.is_installed(r) for r in wanted):
        pytest.skip("ROOT 6.38.00 and 6.40.00 are not in ~/.cache/basketbench/root-releases")
    hzz = real_file("uproot-HZZ.root")
    corpus = tmp_path / "hzz.bbc"
    extract_corpus([hzz], corpus, "hzz")
    doc = run_ab("release:6.38.00", "release:6.40.00", corpus, [101, 201], pairs=3, target_ms=5)
    check_document(doc, 3, [101, 201])
    assert doc["a"]["codec_versions"]["lzma"] == "5.2.4"
    assert doc["b"]["codec_versions"]["lzma"] == "5.8.2"
    # both link the host's zlib: ZLIB-1 writes the same bytes
    zlib = doc["results"][0]
    assert zlib["compressed_bytes"]["a"] == zlib["compressed_bytes"]["b"]


def test_bench_document_carries_interference(rzbench: Path, tmp_path: Path) -> None:
    """`rzbench bench` records every timed sample's interference; judge_document uses it and
    falls back to the load-average `busy` of older documents."""
    from basketbench.measure.document.contract import validate_document

    out = tmp_path / "bench.json"
    subprocess.run([str(rzbench), "bench", "--synthetic", "tsmall", "--settings", "101",
                    "--min-samples", "2", "--target-ms", "1", "--no-memcpy", "--quiet",
                    "--json", str(out)], check=True)
    doc = json.loads(out.read_text())
    assert validate_document(doc) == []
    record = doc["interference"]
    assert record["repetitions"] == 2 * 2  # 2 samples x (compress, decompress)
    assert record["limits"]["min_cpu_wall"] == 0.9
    assert interference.judge_document(doc).judged
    old = {k: v for k, v in doc.items() if k != "interference"}
    old["load"] = {"busy": True, "busy_reasons": ["load average 2.00 at start (>= 1)"]}
    verdict = interference.judge_document(old)
    assert verdict.disturbed and not verdict.judged
    assert interference.judge_document({"disturbed_fraction": 0.1}).disturbed is False
