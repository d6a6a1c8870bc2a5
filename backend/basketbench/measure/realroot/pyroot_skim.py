"""A real analysis skim written by a real ROOT: RDataFrame Filter + Define + Snapshot.

The ROOT PR #21753 case: skimmed outputs carry RVec branches whose collections are mostly
or all empty (selected objects that few events have). Run as a script with a ROOT
release's wheel folder on sys.path (as `pyroot_rewrite`), never imported next to other
codec libraries:

    python -m basketbench.measure.realroot.pyroot_skim OUT_DIR SETTINGS NANOAOD.root

writes OUT_DIR/skim-<setting>.root for each setting: the events with at least one jet,
and selected collections (tight muons, high-pT electrons, photons, taus, b-tagged jets)
next to the dense per-jet floats, every RVec branch as RDataFrame writes it.
"""

from __future__ import annotations

import sys
from pathlib import Path

# Selections that leave a growing share of the entries empty (PR #21753's shape), and dense
# columns (Jet_*) where ZSTD is expected to keep its edge.
DEFINES = {
    "SelMuon_pt": "Muon_pt[Muon_pt > 20 && abs(Muon_eta) < 2.4]",
    "SelMuon_eta": "Muon_eta[Muon_pt > 20 && abs(Muon_eta) < 2.4]",
    "SelElectron_pt": "Electron_pt[Electron_pt > 30]",
    "SelElectron_charge": "Electron_charge[Electron_pt > 30]",
    "SelPhoton_pt": "Photon_pt[Photon_pt > 50]",
    "SelTau_pt": "Tau_pt[Tau_pt > 60]",
    "BJet_pt": "Jet_pt[Jet_btagCSVV2 > 0.9]",
    "BJet_eta": "Jet_eta[Jet_btagCSVV2 > 0.9]",
}
KEPT = ["run", "luminosityBlock", "event", "nJet", "Jet_pt", "Jet_eta", "Jet_phi", "Jet_mass"]
TREE = "Events"


def skim(out_dir: Path, settings: list[int], source: Path) -> list[Path]:
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    written = []
    for setting in settings:
        frame = ROOT.RDataFrame(TREE, str(source)).Filter("nJet > 0", "at least one jet")
        for name, expression in DEFINES.items():
            frame = frame.Define(name, expression)
        options = ROOT.RDF.RSnapshotOptions()
        options.fMode = "RECREATE"
        options.fCompressionAlgorithm = ROOT.RCompressionSetting.EAlgorithm.EValues(setting // 100)
        options.fCompressionLevel = setting % 100
        target = out_dir / f"skim-{setting}.root"
        columns = ROOT.std.vector["std::string"](KEPT + list(DEFINES))
        frame.Snapshot(TREE, str(target), columns, options)
        written.append(target)
        print(f"wrote {target}", flush=True)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    skim(Path(argv[0]), [int(s) for s in argv[1].split(",")], Path(argv[2]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
