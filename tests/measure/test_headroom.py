"""`basketbench headroom` / measure.headroom: ROOT's framed path against the bare library.

Nothing here depends on speed: the tests check that the bare library writes the payload inside
ROOT's block (same work), the document's statistics follow from its repetitions, instruction
counts split the gap exactly, and bad input exits 2 with one line. The figures themselves are a
measurement, recorded in docs/perf/headroom.md.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from basketbench.cli.app import app
from basketbench.measure.headroom import (
    HeadroomDocumentError,
    HeadroomInputError,
    build_document,
    cause_of,
    parse_callgrind_dump,
    parse_document,
    run_headroom,
)
from basketbench.measure.headroom.document import Instructions
from basketbench.measure.rootio.corpus_format import CorpusWriter, read_corpus
from basketbench.measure.rzbench import ab_stats
from typer.testing import CliRunner

SETTINGS = [101, 201, 404, 505]
COUNTED_SETTINGS = [101, 404, 501]  # the fast levels: callgrind runs ~50x slower
DATASET = "tfloat"  # a synthetic dataset (2.4 MB) for the command line


@pytest.fixture(scope="module")
def raw_timed(rzbench: Path, small_corpus: Path,
              tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    out = tmp_path_factory.mktemp("headroom") / "timed.json"
    subprocess.run([str(rzbench), "headroom", "--corpus", str(small_corpus), "--settings",
                    ",".join(map(str, SETTINGS)), "--pairs", "3", "--target-ms", "1",
                    "--json", str(out)], check=True, capture_output=True)
    data: dict[str, Any] = json.loads(out.read_text())
    return data


@pytest.fixture(scope="module")
def small_corpus(rzbench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first baskets of the synthetic "event" dataset (~170 kB): small enough for the
    counted run under valgrind to take seconds."""
    folder = tmp_path_factory.mktemp("headroom-corpus")
    subprocess.run([str(rzbench), "synth", "event", "-o", str(folder / "event.bbc")],
                   check=True)
    corpus = read_corpus(folder / "event.bbc")
    out = folder / "event-small.bbc"
    with CorpusWriter(out, "event-small", "tests") as writer:
        writer.add_file("synthetic:event", 0, "0" * 64)
        for basket, raw in list(corpus.iter_raw())[:6]:
            writer.add_basket(file=0, tree=basket.tree, branch=basket.branch,
                              basket=basket.basket, element_size=basket.element_size,
                              entries=basket.entries, data_bytes=basket.data_bytes,
                              entry_offsets=basket.entry_offsets, raw=raw, root_compressed=None)
        writer.commit()
    return out


@pytest.fixture(scope="module")
def counted_doc(rzbench: Path, small_corpus: Path) -> dict[str, Any]:
    if shutil.which("valgrind") is None:
        pytest.skip("valgrind is not installed")
    return run_headroom(small_corpus, settings=COUNTED_SETTINGS, pairs=3, target_ms=1.0,
                        rzbench=rzbench)


def test_bare_library_writes_roots_payload(raw_timed: dict[str, Any]) -> None:
    # rzbench compared every unit's bare output with the bytes after ROOT's header
    assert [r["setting"] for r in raw_timed["results"]] == SETTINGS
    for r in raw_timed["results"]:
        assert r["error"] is None, r["error"]
        assert all(r["roundtrip"].values()), r["roundtrip"]
        for path in ("bare_fresh", "bare_reused"):
            same = r["same_payload"][path]
            assert same["units"] == r["compressed_units"] > 0
            assert same["identical"] == same["units"]
            assert same["stored_disagree"] == 0
        offset = 17 if r["setting"] // 100 == 4 else 9
        # each compressed unit carries ROOT's header (and LZ4's checksum) on top of the payload
        framed, bare = r["compressed_bytes"]["framed"], r["compressed_bytes"]["bare_fresh"]
        assert framed - bare == offset * r["compressed_units"]
        assert r["compressed_bytes"]["bare_reused"] == bare


def test_document_recomputes_rzbench_statistics(raw_timed: dict[str, Any]) -> None:
    doc = build_document(raw_timed, None, load_start=[1.0, 1.0, 1.0],
                         load_end=[1.0, 1.0, 1.0])
    parsed = parse_document(json.loads(json.dumps(doc)))
    assert not parsed.instructions_counted
    assert parsed.same_versions  # rootcompat calls the host's libraries, as the bare path does
    limits = ab_stats.Limits.from_json(raw_timed["params"]["limits"])
    if parsed.machine.get("arch") == "x86_64":
        assert parsed.machine_costs.cpuid_us is not None and parsed.machine_costs.cpuid_us > 0
    for r, raw in zip(doc["results"], raw_timed["results"], strict=True):
        assert r["same_work"] and r["roundtrip_ok"]
        for direction in ("compress", "decompress"):
            times = r[direction]["per_buffer_us"]
            assert times is not None and min(times[p] for p in ("framed", "bare_fresh",
                                                                 "bare_reused")) > 0
            assert times["context"] == pytest.approx(times["bare_fresh"] - times["bare_reused"])
            faults = r[direction]["minor_faults_per_pass"]
            assert set(faults) == {"framed", "bare_fresh", "bare_reused"}
        for direction in ("compress", "decompress"):
            slots = raw[direction]["slots"]
            assert len(slots) == 3
            for name, (a, b) in {"headroom": ("framed", "bare_reused"),
                                 "framing": ("framed", "bare_fresh"),
                                 "context": ("bare_fresh", "bare_reused")}.items():
                effect = r[direction][name]
                pairs = [{"a": s["repetitions"][a], "b": s["repetitions"][b]} for s in slots]
                ours = ab_stats.summarize(pairs, "cpu", limits)
                assert effect["ratio"] == ours.ratio
                assert effect["pairs"] + effect["disturbed_pairs"] == 3


def test_a_summary_that_does_not_follow_from_the_repetitions_is_refused(
        raw_timed: dict[str, Any]) -> None:
    tampered = copy.deepcopy(raw_timed)
    summary = tampered["results"][0]["decompress"]["comparisons"]["headroom"]
    summary["ratio"] = (summary["ratio"] or 1.0) * 2
    summary["ci_high"] = summary["ratio"]
    with pytest.raises(HeadroomDocumentError, match="differs"):
        build_document(tampered, None, load_start=[1.0] * 3, load_end=[1.0] * 3)


def test_parse_document_refusals(raw_timed: dict[str, Any]) -> None:
    good = build_document(raw_timed, None, load_start=[1.0] * 3, load_end=[1.0] * 3)
    with pytest.raises(HeadroomDocumentError, match="not a basketbench-headroom-v1"):
        parse_document({**good, "schema": "basketbench-ab-v1"})
    with pytest.raises(HeadroomDocumentError, match="not a basketbench-headroom-v1"):
        parse_document([good])
    missing = {k: v for k, v in good.items() if k != "machine"}
    with pytest.raises(HeadroomDocumentError, match="machine"):
        parse_document(missing)
    outside = copy.deepcopy(good)
    effect = outside["results"][0]["compress"]["headroom"]
    effect["ratio"] = effect["ci_high"] + 1
    with pytest.raises(HeadroomDocumentError, match="outside its interval"):
        parse_document(outside)


def test_callgrind_dump_and_cause() -> None:
    dump = ("version: 1\ncreator: callgrind-3.19.0\n"
            "desc: Trigger: Client Request: rzbench-headroom:3:bare_fresh:decompress\n"
            "events: Ir\nsummary: 123456\n")
    assert parse_callgrind_dump(dump) == (3, "bare_fresh", "decompress", 123456)
    assert parse_callgrind_dump("desc: Trigger: Program termination\nevents: Ir\n"
                                "summary: 5\n") is None
    cause = cause_of(Instructions(framed=1000, bare_fresh=900, bare_reused=300), checksum=50)
    assert (cause.gap, cause.context, cause.framing, cause.checksum) == (700, 600, 100, 50)
    assert cause.summary.startswith("context set-up dominates: context set-up 86 %")
    none = cause_of(Instructions(framed=10, bare_fresh=10, bare_reused=10), checksum=None)
    assert none.gap == 0 and none.summary.startswith("no gap")


def test_counted_document(counted_doc: dict[str, Any]) -> None:
    parsed = parse_document(counted_doc)
    assert parsed.instructions_counted and parsed.valgrind
    by_setting = {r.setting: r for r in parsed.results}
    for r in parsed.results:
        for direction in (r.compress, r.decompress):
            i, cause = direction.instructions, direction.cause
            assert i is not None and cause is not None
            assert min(i.framed, i.bare_fresh, i.bare_reused) > 0
            assert cause.gap == cause.context + cause.framing
        assert (r.compress.cause is not None and r.compress.cause.checksum is not None) == (
            r.setting // 100 == 4)
    # Facts of the libraries, not of the load: a fresh ZSTD_DCtx per buffer costs instructions
    # a reused one does not, and LZ4 decoding keeps no state at all.
    zstd = by_setting[501].decompress.instructions
    assert zstd is not None and zstd.bare_fresh > zstd.bare_reused
    lz4 = by_setting[404].decompress
    assert lz4.instructions is not None and lz4.cause is not None
    assert lz4.instructions.bare_fresh == lz4.instructions.bare_reused
    assert lz4.cause.checksum is not None and lz4.cause.framing >= lz4.cause.checksum


def test_run_headroom_input_errors(rzbench: Path, tmp_path: Path) -> None:
    with pytest.raises(HeadroomInputError, match="either a file"):
        run_headroom(rzbench=rzbench, instructions=False)
    with pytest.raises(HeadroomInputError, match="setting 301"):
        run_headroom(synthetic=DATASET, settings=[301], rzbench=rzbench, instructions=False)
    with pytest.raises(HeadroomInputError, match="unknown synthetic dataset"):
        run_headroom(synthetic="no-such-data", settings=[101], rzbench=rzbench,
                     instructions=False)


@pytest.mark.parametrize("args, reason", [
    ([], "either a file"),
    (["missing.root"], "no such file"),
    (["data.txt"], "expected a ROOT file"),
    (["bad.root"], "bad.root"),
    (["--synthetic", "nope"], "unknown synthetic dataset"),
    (["--synthetic", DATASET, "--settings", "301"], "setting 301"),
    (["--synthetic", DATASET, "--settings", "abc"], "--settings"),
    (["--synthetic", DATASET, "--layer", "missing.so"], "missing.so"),
])
def test_cli_bad_input_exits_2(args: list[str], reason: str, rzbench: Path,
                               tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data.txt").write_text("not data\n")
    (tmp_path / "bad.root").write_bytes(b"root\0" * 100)
    monkeypatch.setenv("BASKETBENCH_RZBENCH", str(rzbench))
    done = CliRunner().invoke(app, ["headroom", *args, "--no-instructions"])
    assert done.exit_code == 2, done.output
    assert reason in done.output
    assert "Traceback" not in done.output and str(tmp_path) not in done.output


def test_cli_writes_a_valid_document(rzbench: Path, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BASKETBENCH_RZBENCH", str(rzbench))
    out = tmp_path / "headroom.json"
    done = CliRunner().invoke(app, ["headroom", "--synthetic", DATASET, "--settings", "101,401",
                                    "--pairs", "3", "--target-ms", "1", "--no-instructions",
                                    "--json", str(out), "--markdown", str(tmp_path / "t.md")])
    assert done.exit_code == 0, done.output
    doc = parse_document(json.loads(out.read_text()))
    assert [r.setting for r in doc.results] == [101, 401]
    assert all(r.same_work and r.roundtrip_ok for r in doc.results)
    assert "LZ4-1 (401)" in done.output
    table = (tmp_path / "t.md").read_text().splitlines()
    assert len(table) == 2 + 2 * 2 and "| LZ4-1 (401) | compress |" in table[4]
