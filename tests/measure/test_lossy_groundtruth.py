"""Lossy float columns against real ROOT 6.40.00 (the PyPI `root` wheel, cached like the other
ground-truth tests): ROOT writes HZZ's muon momenta as an RNTuple with one field per
representation (full, half, Real32Trunc and Real32Quant at several bit widths); then

- every page ROOT wrote holds, byte for byte, what rootio/lossy_floats.encode makes of the
  values written, and ROOT's own R__zipMultipleAlgorithm compresses our page to ROOT's bytes;
- the values our reader decodes equal those ROOT's RNTupleReader and uproot read back;
- the lossy sweep, run with the release's rzbench on the file's `full` column, gives for each
  representation ROOT's on-disk page bytes of the field ROOT wrote with it, to the byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import uproot
from basketbench.measure.lossy.sweep import SweepOptions, sweep
from basketbench.measure.realroot import groundtruth as gt
from basketbench.measure.realroot import releases as root_release
from basketbench.measure.realroot.releases import Release
from basketbench.measure.rootio import lossy_floats
from basketbench.measure.rootio.rntuple import (
    Column,
    Page,
    decode_column_page,
    iter_pages,
    load_ntuple,
    lossy_representation,
)

from tests.measure.conftest import real_file

REPO = Path(__file__).resolve().parents[2]
SETTING = 505
SPECS = ("full", "half", "trunc:10", "trunc:16", "trunc:24", "quant:8", "quant:16", "quant:32")
pytestmark = pytest.mark.timeout(1800)  # first use installs the release and builds rzbench


@pytest.fixture(scope="module")
def written(release: tuple[Release, Path], tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, np.ndarray, Path]:
    """(the RNTuple file ROOT wrote, the values written, the folder of ROOT's read-back .npy)."""
    rel, _ = release
    with uproot.open(real_file("uproot-HZZ.root")) as f:
        # jagged per event: one flat array of every muon's value
        values = np.concatenate([np.concatenate(list(f["events"][b].array(library="np")))
                                 for b in ("Muon_Px", "Muon_E")]).astype(np.float32)
    out = tmp_path_factory.mktemp("lossy")
    np.save(out / "values.npy", values)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root_release.release_dir(rel)), str(REPO / "backend")])}
    done = subprocess.run(
        [sys.executable, "-m", "basketbench.measure.realroot.pyroot_lossy",
         str(out / "values.npy"), str(out), str(SETTING), ",".join(SPECS)],
        env=env, capture_output=True, text=True, check=False, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return out / f"lossy-{SETTING}.root", values, out


def _pages(path: Path) -> list[tuple[str, Column, Page, bytes, bytes | None]]:
    size = path.stat().st_size
    with uproot.open(path) as f, path.open("rb") as fh:
        nt = load_ntuple(fh, size, f.key("lossy"), "lossy", path.name)
        return [(nt.fields[nt.columns[p.column].field].path, nt.columns[p.column], p, raw, comp)
                for p, raw, comp in iter_pages(fh, size, nt, path.name)]


def test_roots_pages_are_our_encoding_byte_for_byte(
        release: tuple[Release, Path], written: tuple[Path, np.ndarray, Path]) -> None:
    rel, _ = release
    path, values, _ = written
    root = gt.RZip(root_release.prefix(rel) / "lib" / "libCore.so", deepbind=True)
    starts: dict[str, int] = {}
    kinds = set()
    for name, column, page, raw, compressed in _pages(path):
        rep = lossy_representation(column) or lossy_floats.Representation("full", 32)
        kinds.add(column.type.name)
        start = starts.get(name, 0)
        chunk = values[start:start + page.elements]
        starts[name] = start + page.elements
        assert lossy_floats.encode(rep, chunk) == raw, (name, page)
        assert root.compress(SETTING, raw) == compressed, (name, page)
    assert kinds == {"SplitReal32", "Real16", "Real32Trunc", "Real32Quant"}
    assert all(n == len(values) for n in starts.values()) and len(starts) == len(SPECS)


def test_decoded_values_equal_roots_and_uproots(written: tuple[Path, np.ndarray, Path]) -> None:
    path, values, folder = written
    decoded: dict[str, list[np.ndarray]] = {}
    reps = {}
    for name, column, page, raw, _ in _pages(path):
        decoded.setdefault(name, []).append(
            decode_column_page(column, raw, page.elements))
        reps[name] = lossy_representation(column) or lossy_floats.Representation("full", 32)
    with uproot.open(path) as f:
        ntuple = f["lossy"]
        for name, pages in decoded.items():
            ours = np.concatenate(pages).astype(np.float32)
            roots = np.load(folder / f"{name}.npy")
            uproots = np.asarray(ntuple.arrays([name])[name], np.float32)
            assert np.array_equal(ours.view(np.uint32), roots.view(np.uint32)), name
            assert np.array_equal(uproots.view(np.uint32), roots.view(np.uint32)), name
            # what the sweep's error statistics are computed from
            assert np.array_equal(lossy_floats.roundtrip(reps[name], values).view(np.uint32),
                                  roots.view(np.uint32)), name
    assert reps["quant16"].low == float(values.min()) and reps["quant16"].high == float(
        values.max())
    assert np.array_equal(np.concatenate(decoded["full"]), values)


def test_sweep_sizes_are_roots_bytes(release: tuple[Release, Path],
                                     written: tuple[Path, np.ndarray, Path]) -> None:
    _, binary = release
    path, _, _ = written
    on_disk: dict[str, int] = {}
    for name, _, page, _, _ in _pages(path):
        on_disk[name] = on_disk.get(name, 0) + page.size
    doc = sweep(path, SweepOptions(settings=[SETTING], bits=[8, 10, 16, 24, 32],
                                   columns=["full"], rzbench=binary))
    got = {(r["representation"] if r["representation"] in ("full", "half")
            else f"{r['representation']}{r['bits']}"): r["compressed_bytes"]
           for r in doc["results"]}
    assert {name: got[name] for name in on_disk} == on_disk
