"""The lossy float encodings, the sweep and `basketbench lossy` (ROOT's own bytes are checked in
test_lossy_groundtruth.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from basketbench.measure.lossy.budget import BudgetError, parse_budget, recommend
from basketbench.measure.lossy.physics import histogram_change, ks_distance
from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.rootio import lossy_floats as lf
from basketbench.measure.rootio.lossy_floats import LossyError, Representation

from tests.measure.conftest import real_file

RNG = np.random.default_rng(36)


@pytest.mark.parametrize("bits", [1, 7, 10, 13, 16, 23, 31, 32])
def test_bit_packing_roundtrips_and_has_the_minimal_size(bits: int) -> None:
    words = RNG.integers(0, 2**32, 1001, dtype=np.uint64).astype(np.uint32)
    kept = words & np.uint32((0xFFFFFFFF << (32 - bits)) & 0xFFFFFFFF)
    packed = lf.pack_top_bits(words, bits)
    assert len(packed) == lf.page_size(1001, bits) == (1001 * bits + 7) // 8
    assert np.array_equal(lf.unpack_top_bits(packed, 1001, bits), kept)


def test_bit_stream_is_little_endian_low_bits_first() -> None:
    # two 10-bit elements 0b1000000001 and 0b0000000011 -> bits 0..19 of the stream
    words = np.array([0b1000000001 << 22, 0b11 << 22], np.uint32)
    assert lf.pack_top_bits(words, 10) == bytes([0b00000001, 0b00001110, 0b00000000])


def test_every_representation_decodes_what_it_encodes() -> None:
    values = RNG.normal(0, 50, 4000).astype(np.float32)
    reps = [Representation("full", 32), Representation("half", 16),
            Representation("trunc", 12), Representation("trunc", 31),
            Representation("quant", 1, float(values.min()), float(values.max())),
            Representation("quant", 20, float(values.min()), float(values.max())),
            Representation("quant", 32, float(values.min()), float(values.max()))]
    for rep in reps:
        back = lf.decode(rep, lf.encode(rep, values), len(values))
        assert np.array_equal(back.view(np.uint32), lf.roundtrip(rep, values).view(np.uint32))
    trunc = lf.roundtrip(Representation("trunc", 12), values)
    assert np.all(np.abs(trunc) <= np.abs(values)) and np.all(np.sign(trunc) == np.sign(values))


def test_invalid_representations_and_ranges_are_refused() -> None:
    for kind, bits in [("trunc", 9), ("trunc", 32), ("quant", 0), ("half", 12), ("zip", 8)]:
        with pytest.raises(LossyError):
            Representation(kind, bits, 0.0, 1.0)
    with pytest.raises(LossyError, match="value range"):
        Representation("quant", 8, 1.0, 1.0)
    with pytest.raises(LossyError, match="outside"):
        lf.encode(Representation("quant", 8, 0.0, 1.0), np.array([0.5, 2.0], np.float32))
    with pytest.raises(LossyError, match="needs"):
        lf.decode(Representation("trunc", 16), b"\0" * 3, 2)


def test_distribution_distances() -> None:
    x = RNG.normal(size=5000)
    assert ks_distance(x, x) == 0.0 and histogram_change(x, x) == 0.0
    assert 0.3 < ks_distance(x, x + 1.0) < 0.5  # N(0,1) against N(1,1): 0.38
    assert histogram_change(x, x * 1.1) > 0.05


def test_budgets_parse_and_pick_the_fewest_bytes_within_them() -> None:
    assert parse_budget("momenta:rel=1e-4").matches("Muon_Px")
    assert parse_budget("momenta:rel=1e-4").matches("AnalysisMuonsAuxDyn.pt")
    assert not parse_budget("angles:abs=1e-3").matches("Muon_Px")
    for bad in ("momenta", "momenta:rel", "momenta:rms=1", "momenta:rel=-1", ":rel=1"):
        with pytest.raises(BudgetError):
            parse_budget(bad)
    rows = [{"column": "Muon_Px", "setting": 505, "representation": k, "bits": b,
             "compressed_bytes": n, "max_rel_error": e, "max_abs_error": e}
            for k, b, n, e in [("full", 32, 100, 0.0), ("trunc", 16, 50, 1e-2),
                               ("trunc", 24, 70, 3e-5), ("quant", 20, 65, 2e-4)]]
    (answer,) = recommend(rows, [parse_budget("momenta:rel=1e-4")], 505)
    assert (answer["representation"], answer["bits"], answer["saved_bytes"]) == ("trunc", 24, 30)


def test_sweep_of_hzz(tmp_path: Path) -> None:
    doc = sweep(real_file("uproot-HZZ.root"),
                SweepOptions(settings=[505, 404], bits=[10, 16, 24], columns=["Muon_*"],
                             budgets=[parse_budget("momenta:rel=1e-4")]))
    assert doc["schema"] == "basketbench-lossy-v1" and doc["columns"] == 5
    by = {(r["column"], r["representation"], r["bits"], r["setting"]): r for r in doc["results"]}
    assert len(by) == len(doc["results"]) == 5 * 2 * (2 + 3 + 3)  # full, half, trunc x3, quant x3
    for r in doc["results"]:
        assert set(r) >= {"column", "representation", "bits", "setting", "compressed_bytes",
                          "max_abs_error", "max_rel_error", "rms_rel_error"}
    for column in ("Muon_Px", "Muon_E"):
        errors = [by[(column, "trunc", b, 505)]["max_rel_error"] for b in (10, 16, 24)]
        sizes = [by[(column, "trunc", b, 505)]["compressed_bytes"] for b in (10, 16, 24)]
        full = by[(column, "full", 32, 505)]
        assert errors == sorted(errors, reverse=True) and errors[-1] < 2 ** -15
        assert sizes[0] < sizes[-1] < full["compressed_bytes"]  # fewer bits, fewer bytes
        assert full["max_rel_error"] == 0 and full["saved_bytes"] == 0
    quantities = {e["quantity"] for e in doc["physics"]}
    assert quantities == {"dimuon mass (GeV)"}  # the four-lepton mass needs electrons too
    ks = {(e["representation"], e["bits"]): e["ks_distance"] for e in doc["physics"]}
    assert ks[("trunc", 10)] > ks[("trunc", 24)]
    chosen = {r["column"]: r for r in doc["recommendations"]}
    assert set(chosen) == {"Muon_Px", "Muon_Py", "Muon_Pz", "Muon_E"}  # Iso: no budget
    assert all(r["max_rel_error"] <= 1e-4 and r["saved_bytes"] > 0 for r in chosen.values())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basketbench.cli", "lossy", *args],
                          capture_output=True, text=True, check=False, timeout=300)


def test_cli_writes_the_interface_json(tmp_path: Path) -> None:
    out = tmp_path / "lossy.json"
    done = _cli(str(real_file("uproot-HZZ.root")), "--json", str(out), "--settings", "404",
                "--bits", "12,20", "--column", "Jet_P?", "--budget", "momenta:rel=1e-3")
    assert done.returncode == 0, done.stderr
    doc = json.loads(out.read_text())
    assert {r["column"] for r in doc["results"]} == {"Jet_Px", "Jet_Py", "Jet_Pz"}
    assert {r["setting"] for r in doc["results"]} == {404}
    assert "Jet_Px under momenta:rel=0.001" in done.stdout


@pytest.mark.parametrize("args, message", [
    (["missing.root"], "no such file"),
    (["--bits", "0"], "bit widths"),
    (["--budget", "momenta"], "CLASS:rel=X"),
    (["--settings", "301"], "settings"),
])
def test_cli_refuses_bad_input_with_exit_2(args: list[str], message: str) -> None:
    file = [] if args[0] == "missing.root" else [str(real_file("uproot-HZZ.root"))]
    done = _cli(*file, *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr


def test_cli_on_a_file_that_is_not_root(tmp_path: Path) -> None:
    junk = tmp_path / "junk.root"
    junk.write_bytes(b"not a ROOT file" * 10)
    done = _cli(str(junk))
    assert done.returncode == 2 and "not a readable ROOT file" in done.stderr
    assert "Traceback" not in done.stderr
