"""The ROOT snippet `advise` and the Recommend page print does what it says, in a real ROOT
(6.40.00, the PyPI wheel in ~/.cache/basketbench/root-releases): cling compiles it, the file
and the branches it names get their settings, Snapshot and RNTuple write at the setting."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from basketbench.measure.advise.root_snippet import root_snippet
from basketbench.measure.realroot import releases as root_release

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.timeout(900)

# Run in the release's own Python path (PyROOT loads libCore globally: never in this process).
SCRIPT = r'''
import json, sys
import ROOT
snippet, out = sys.argv[1], sys.argv[2]
head, _, rest = snippet.partition("// branches whose")
branches, _, tail = rest.partition("// RDataFrame::Snapshot")
code = """
#include <ROOT/RDataFrame.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <ROOT/RNTupleWriteOptions.hxx>
std::string bb_check() {
  gSystem->cd("OUT");
  HEAD
  TTree *tree = new TTree("events", "events");
  float pt = 1; int n = 2, other = 3;
  tree->Branch("Jet_pt", &pt); tree->Branch("nJet", &n); tree->Branch("other", &other);
  // branches whose BRANCHES
  for (int i = 0; i < 100; ++i) tree->Fill();
  std::string got = std::to_string(out.GetCompressionSettings());
  for (auto name : {"Jet_pt", "nJet", "other"})
    got += std::string(" ") + name + "="
           + std::to_string(tree->GetBranch(name)->GetCompressionSettings());
  out.Write(); out.Close();
  ROOT::RDataFrame df(10);
  auto dfx = df.Define("Jet_pt", [] { return 1.f; });
  std::vector<std::string> columns{"Jet_pt"};
  auto model = ROOT::RNTupleModel::Create();
  *model->MakeField<float>("x") = 1.f;
  // RDataFrame::Snapshot TAIL
  writer->Fill();
  return got;
}
""".replace("OUT", out).replace("HEAD", head).replace("BRANCHES", branches).replace(
    "TAIL", tail.replace("df.Snapshot", "dfx.Snapshot")
    .replace('"out.root", columns', '"snap.root", columns')  # each writer its own file here
    .replace('"out.root", wopts', '"ntuple.root", wopts'))
assert ROOT.gInterpreter.Declare(code), "cling could not compile the snippet"
got = str(ROOT.bb_check())
print(json.dumps({"tree": got}))
'''


def test_the_snippet_applies_the_settings_it_names(tmp_path: Path) -> None:
    try:
        rel = root_release.lookup("6.40.00")
        root_release.check_platform()
    except root_release.RootReleaseError as exc:
        pytest.skip(str(exc))
    if not root_release.is_installed(rel):
        pytest.skip("ROOT 6.40.00 is not installed here (tests/measure/test_root_release.py "
                    "installs it)")
    snippet = root_snippet("505", {"events/Jet_pt": "101", "events/nJet": "404+shuffle"})
    env = {**os.environ, "PYTHONPATH": str(root_release.release_dir(rel)),
           "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", SCRIPT, snippet, str(tmp_path)], env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    # the TFile at 505, the named branches at their own, the rest at the file's
    assert got["tree"] == "505 Jet_pt=101 nJet=404 other=505"
    # Snapshot's file at 505 (read by uproot), the RNTuple's pages at 505 (read by our own
    # extraction: a page records its own setting where it differs from the file's)
    import uproot
    from basketbench.measure.rootio.corpus_format import read_corpus
    from basketbench.measure.rootio.extract import extract_corpus

    with uproot.open(tmp_path / "snap.root") as snap:
        assert snap.file.fCompress == 505 and snap["events"].num_entries == 10
    extract_corpus([tmp_path / "ntuple.root"], tmp_path / "nt.bbc")
    corpus = read_corpus(tmp_path / "nt.bbc")
    assert corpus.baskets and {b.kind for b in corpus.baskets} == {"page"}
    assert {b.fcompress or corpus.files[0].fcompress for b in corpus.baskets} == {505}
