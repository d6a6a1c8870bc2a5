"""One end-to-end ROOT I/O measurement with a real ROOT (PyROOT), in a process of its own.

Run as a script with a ROOT release's wheel folder on sys.path (see `io_bench.run_measurement`),
never imported next to other codec libraries: PyROOT loads libCore into the global symbol scope.

    python -m basketbench.measure.realroot.pyroot_io '<json spec>'

prints one JSON line: the seconds of each sample (the mean of the passes that make a sample
of about target_ms), the entries, uncompressed and compressed bytes
and (op "checksum") a checksum of every value read. The loops are C++ (declared once per
process, before any timing) so that Python's per-entry cost is not measured:

- write, ttree: TTree::CloneTree(-1) of a stored (setting 0) copy into a new TFile at the
  setting: every entry is read (no decompression) and filled again, every basket compressed;
  TFile::Close included. With implicit multi-threading TTree flushes (compresses) its baskets
  in parallel, one task per branch.
- write, rntuple: RNTupleImporter of the same stored tree into an RNTuple at the setting; with
  implicit multi-threading RNTuple compresses its pages in parallel.
- read, ttree: TFile::Open, then TTree::GetEntry of every entry, all branches; TTreeCache on
  (ROOT's default, 30 MB) or off (SetCacheSize(0)); with implicit multi-threading GetEntry
  reads and unzips the branches of an entry in parallel.
- read, rntuple: RNTupleReader::Open, LoadEntry of every entry; cluster cache on (default) or
  off; implicit multi-threading unzips the pages of a cluster in parallel.
- colsums: per branch (TTree, TLeaf::GetValue) or per numeric column (RNTuple, through
  RDataFrame, which names an imported RNTuple's fields after the original branches): the sum
  and count of its values: how an RNTuple copy is compared with the original tree.
- page cache "cold": the file's pages are dropped from the page cache before each sample with
  posix_fadvise(DONTNEED) (only this file, so the other users of the machine keep theirs).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
from typing import Any

CPP = r"""
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include "TFile.h"
#include "TTree.h"
#include "TLeaf.h"
#include "TBranch.h"
#include <vector>
#include <utility>
#include "TObjArray.h"
#include "ROOT/RNTupleReader.hxx"
#include "ROOT/RNTupleImporter.hxx"
#include "ROOT/RNTupleWriteOptions.hxx"
#include "ROOT/RNTupleReadOptions.hxx"

namespace bbio {

struct Out { long long entries = 0; long long zip = 0; long long tot = 0;
             unsigned long long checksum = 1469598103934665603ULL; };

void mix(Out &o, const void *p, std::size_t n) {
   const unsigned char *b = static_cast<const unsigned char *>(p);
   for (std::size_t i = 0; i < n; ++i) { o.checksum ^= b[i]; o.checksum *= 1099511628211ULL; }
}

Out write_ttree(const char *src, const char *tree, const char *dst, int setting) {
   Out o;
   std::unique_ptr<TFile> in(TFile::Open(src));
   TTree *t = in->Get<TTree>(tree);
   TFile out(dst, "RECREATE", "", setting);
   TTree *c = t->CloneTree(-1);
   c->FlushBaskets();
   c->Write();
   o.entries = c->GetEntries(); o.zip = c->GetZipBytes(); o.tot = c->GetTotBytes();
   out.Close();
   return o;
}

Out write_rntuple(const char *src, const char *tree, const char *dst, int setting) {
   Out o;
   auto imp = ROOT::Experimental::RNTupleImporter::Create(src, tree, dst);
   ROOT::RNTupleWriteOptions opts;
   opts.SetCompression(setting);
   imp->SetWriteOptions(opts);
   imp->SetIsQuiet(true);
   imp->Import();
   return o;
}

Out read_ttree(const char *path, const char *tree, bool cache, bool checksum) {
   Out o;
   std::unique_ptr<TFile> f(TFile::Open(path));
   TTree *t = f->Get<TTree>(tree);
   if (!cache) t->SetCacheSize(0);
   const Long64_t n = t->GetEntries();
   TObjArray *leaves = t->GetListOfLeaves();
   for (Long64_t i = 0; i < n; ++i) {
      t->GetEntry(i);
      if (!checksum) continue;
      for (int l = 0; l < leaves->GetEntriesFast(); ++l) {
         TLeaf *leaf = static_cast<TLeaf *>(leaves->UncheckedAt(l));
         const int len = leaf->GetLen();
         mix(o, &len, sizeof len);
         for (int j = 0; j < len; ++j) { double v = leaf->GetValue(j); mix(o, &v, sizeof v); }
      }
   }
   o.entries = n; o.zip = t->GetZipBytes(); o.tot = t->GetTotBytes();
   return o;
}

// Per branch of a TTree: the sum (as double, in entry order) and the count of its leaves'
// values, by TLeaf::GetValue: the TTree side of the comparison with an RNTuple copy.
std::vector<std::pair<std::string, std::pair<double, double>>> branch_sums(const char *path,
                                                                           const char *tree) {
   std::unique_ptr<TFile> f(TFile::Open(path));
   TTree *t = f->Get<TTree>(tree);
   TObjArray *branches = t->GetListOfBranches();
   std::vector<std::pair<std::string, std::pair<double, double>>> out;
   for (int b = 0; b < branches->GetEntriesFast(); ++b)
      out.push_back({branches->UncheckedAt(b)->GetName(), {0.0, 0.0}});
   for (Long64_t i = 0; i < t->GetEntries(); ++i) {
      t->GetEntry(i);
      for (int b = 0; b < branches->GetEntriesFast(); ++b) {
         TObjArray *leaves = static_cast<TBranch *>(branches->UncheckedAt(b))->GetListOfLeaves();
         double entry_sum = 0;  // per entry first, then the total: the order column_sums uses
         for (int l = 0; l < leaves->GetEntriesFast(); ++l) {
            TLeaf *leaf = static_cast<TLeaf *>(leaves->UncheckedAt(l));
            for (int j = 0; j < leaf->GetLen(); ++j) {
               entry_sum += leaf->GetValue(j);
               out[b].second.second += 1;
            }
         }
         out[b].second.first += entry_sum;
      }
   }
   return out;
}

Out read_rntuple(const char *path, const char *name, bool cache) {
   Out o;
   ROOT::RNTupleReadOptions opts;
   opts.SetClusterCache(cache ? ROOT::RNTupleReadOptions::EClusterCache::kOn
                              : ROOT::RNTupleReadOptions::EClusterCache::kOff);
   opts.SetEnableMetrics(true);
   auto r = ROOT::RNTupleReader::Open(name, path, opts);
   const auto n = r->GetNEntries();
   for (ROOT::NTupleSize_t i = 0; i < n; ++i) r->LoadEntry(i);
   o.entries = n;
   auto &m = r->GetMetrics();
   const std::string src = "RNTupleReader.RPageSourceFile.";
   if (auto *c = m.GetCounter(src + "szReadPayload")) o.zip = c->GetValueAsInt();
   if (auto *c = m.GetCounter(src + "szUnzip")) o.tot = c->GetValueAsInt();
   return o;
}

}  // namespace bbio
"""


def _drop_page_cache(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


_NUMBERS = {"Float_t", "float", "Double_t", "double", "Int_t", "int", "std::int32_t", "UInt_t",
            "unsigned int", "std::uint32_t", "Bool_t", "bool", "Char_t", "char", "std::int8_t",
            "UChar_t", "unsigned char", "std::uint8_t", "Short_t", "short", "std::int16_t",
            "UShort_t", "unsigned short", "std::uint16_t", "Long64_t", "long long",
            "std::int64_t", "ULong64_t", "unsigned long long", "std::uint64_t", "Long_t", "long",
            "ULong_t", "unsigned long"}


def column_sums(root: Any, path: str, tree: str) -> dict[str, Any]:
    """Per numeric column of the tree (by RDataFrame, which reads TTree and RNTuple alike and
    names an imported RNTuple's fields as the original branches): the sum of every value as
    double (per entry, then over the entries in order) and the number of values. Sums of the
    same values in the same order are equal bit for bit, so a changed value shows (unless
    changes cancel exactly)."""
    df = root.RDataFrame(tree, path)
    sums = {}
    for name in sorted(str(c) for c in df.GetColumnNames()):
        if not name.isidentifier() or name.startswith("_"):
            continue  # an RNTuple's internal collections and sub-fields
        kind = str(df.GetColumnType(name))
        inner = kind.removeprefix("ROOT::VecOps::RVec<").removesuffix(">")
        if "RNTupleCardinality<" in kind:
            inner = kind  # a collection's size (ROOT 6.38 imports leaf counts as these)
        elif inner not in _NUMBERS:
            continue
        if inner == kind:
            total, count = f"return double(std::uint64_t({name}));" if "Cardinality" in kind \
                else f"return double({name});", "return 1.0;"
        else:
            total = f"double s = 0; for (auto v : {name}) s += double(v); return s;"
            count = f"return double({name}.size());"
        # Take, not Sum: RDataFrame's Sum compensates rounding (Kahan), a plain running sum
        # in entry order is what branch_sums computes
        sums[name] = (df.Define(f"bb_sum_{name}", total).Take["double"](f"bb_sum_{name}"),
                      df.Define(f"bb_n_{name}", count).Take["double"](f"bb_n_{name}"))

    def running(values: Any) -> str:
        acc = 0.0
        for v in values.GetValue():
            acc += float(v)
        return acc.hex()

    return {name: [running(a), running(b)] for name, (a, b) in sums.items()}


def measure(spec: dict[str, Any]) -> dict[str, Any]:
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    ROOT.gErrorIgnoreLevel = ROOT.kWarning
    threads = int(spec.get("threads", 1))
    if threads > 1:
        ROOT.EnableImplicitMT(threads)
    if spec["op"] == "colsums" and spec["form"] == "ttree":
        if not ROOT.gInterpreter.Declare(CPP):
            raise SystemExit("the measuring C++ did not compile with this ROOT")
        columns = {str(p.first): [float(p.second.first).hex(), float(p.second.second).hex()]
                   for p in ROOT.bbio.branch_sums(spec["target"], spec["tree"])}
        return {"seconds": [0.0], "entries": 0, "compressed_bytes": 0,
                "uncompressed_bytes": 0, "columns": columns, "checksum": "",
                "threads_pool": 1, "passes_per_sample": 1}
    if spec["op"] == "colsums":
        columns = column_sums(ROOT, spec["target"], spec["tree"])
        return {"seconds": [0.0], "entries": int(ROOT.RDataFrame(spec["tree"], spec["target"])
                                                  .Count().GetValue()),
                "compressed_bytes": 0, "uncompressed_bytes": 0, "columns": columns,
                "checksum": hashlib.sha256(json.dumps(columns, sort_keys=True).encode())
                .hexdigest()[:16], "threads_pool": 1, "passes_per_sample": 1}
    if not ROOT.gInterpreter.Declare(CPP):
        raise SystemExit("the measuring C++ did not compile with this ROOT")
    op, form = spec["op"], spec["form"]
    source, tree, target = spec.get("source", ""), spec["tree"], spec["target"]
    cache = bool(spec.get("cache", True))
    cold = spec.get("page_cache", "warm") == "cold"
    samples = int(spec.get("samples", 1))

    def once() -> Any:
        if op == "write" and form == "ttree":
            return ROOT.bbio.write_ttree(source, tree, target, int(spec["setting"]))
        if op == "write" and form == "rntuple":
            if os.path.exists(target):
                os.remove(target)  # the importer refuses to overwrite
            return ROOT.bbio.write_rntuple(source, tree, target, int(spec["setting"]))
        if form == "ttree":
            return ROOT.bbio.read_ttree(target, tree, cache, op == "checksum")
        return ROOT.bbio.read_rntuple(target, tree, cache)

    # warm-up: the first call also pays for loading ROOT's libraries and dictionaries; the
    # second says how many passes make one sample of about target_ms (small files take ms)
    once()
    started = time.perf_counter()
    out = once()
    passes = max(1, min(50, math.ceil(float(spec.get("target_ms", 0)) / 1000
                                      / max(time.perf_counter() - started, 1e-6))))
    seconds = []
    for _ in range(samples):
        total = 0.0
        for _ in range(passes):
            if cold and op != "write":
                _drop_page_cache(target)  # outside the timed pass
            started = time.perf_counter()
            out = once()
            total += time.perf_counter() - started
        seconds.append(total / passes)
    return {"seconds": seconds, "entries": int(out.entries), "compressed_bytes": int(out.zip),
            "uncompressed_bytes": int(out.tot), "checksum": f"{int(out.checksum):016x}",
            "threads_pool": int(ROOT.GetThreadPoolSize()) if threads > 1 else 1,
            "passes_per_sample": passes}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    print(json.dumps(measure(json.loads(argv[0]))), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
