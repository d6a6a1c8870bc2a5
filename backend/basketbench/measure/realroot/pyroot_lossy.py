"""Write float values as an RNTuple with ROOT's lossy float representations (ground truth for
measure/rootio/lossy_floats.py), then read them back with ROOT.

Run as a script with a ROOT release's wheel folder on sys.path, like pyroot_rntuple:

    python -m basketbench.measure.realroot.pyroot_lossy VALUES.npy OUT_DIR SETTING SPEC[,SPEC...]

SPEC is `full`, `half`, `trunc:BITS` or `quant:BITS` (the quantization range is the values'
min and max). Writes OUT_DIR/lossy-SETTING.root, an RNTuple "lossy" with one float field per
SPEC (named full, half, trunc12, quant10 ...), each filled with every value, and
OUT_DIR/<field>.npy: the values as ROOT's RNTupleReader gives them back.
"""

from __future__ import annotations

import sys
from pathlib import Path

# The writer and reader run in ROOT's interpreter: one call per file, not one Python call per
# value (PyROOT's per-entry overhead would dominate for 10^5 values).
_CODE = r"""
#include <ROOT/RField.hxx>
#include <ROOT/RNTupleModel.hxx>
#include <ROOT/RNTupleReader.hxx>
#include <ROOT/RNTupleWriter.hxx>
#include <memory>
#include <string>
#include <vector>

void bb_lossy_write(const char *path, const float *values, long n, int setting,
                    const std::vector<std::string> &kinds, const std::vector<int> &bits,
                    double low, double high)
{
   auto model = ROOT::RNTupleModel::Create();
   std::vector<std::string> names;
   for (std::size_t i = 0; i < kinds.size(); ++i) {
      const bool fixed = kinds[i] == "full" || kinds[i] == "half";
      std::string name = fixed ? kinds[i] : kinds[i] + std::to_string(bits[i]);
      auto field = std::make_unique<ROOT::RField<float>>(name);
      if (kinds[i] == "half")
         field->SetHalfPrecision();
      else if (kinds[i] == "trunc")
         field->SetTruncated(bits[i]);
      else if (kinds[i] == "quant")
         field->SetQuantized(low, high, bits[i]);
      model->AddField(std::move(field));
      names.push_back(name);
   }
   ROOT::RNTupleWriteOptions options;
   options.SetCompression(setting);
   auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "lossy", path, options);
   auto entry = writer->GetModel().CreateEntry();
   std::vector<std::shared_ptr<float>> slots;
   for (const auto &name : names)
      slots.push_back(entry->GetPtr<float>(name));
   for (long i = 0; i < n; ++i) {
      for (auto &slot : slots)
         *slot = values[i];
      writer->Fill(*entry);
   }
}

void bb_lossy_read(const char *path, const char *name, float *out)
{
   auto reader = ROOT::RNTupleReader::Open("lossy", path);
   auto view = reader->GetView<float>(name);
   for (auto i : reader->GetEntryRange())
      out[i] = view(i);
}
"""


def parse_spec(spec: str) -> tuple[str, int]:
    kind, _, bits = spec.partition(":")
    return kind, int(bits) if bits else {"full": 32, "half": 16}.get(kind, 0)


def field_name(kind: str, bits: int) -> str:
    return kind if kind in ("full", "half") else f"{kind}{bits}"


def write_and_read(values_path: Path, out_dir: Path, setting: int, specs: list[str]) -> Path:
    import numpy as np
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    ROOT.gInterpreter.Declare(_CODE)
    values = np.ascontiguousarray(np.load(values_path).astype(np.float32))
    parsed = [parse_spec(s) for s in specs]
    kinds = ROOT.std.vector["std::string"]([k for k, _ in parsed])
    bits = ROOT.std.vector["int"]([b for _, b in parsed])
    target = out_dir / f"lossy-{setting}.root"
    ROOT.bb_lossy_write(str(target), values, len(values), setting, kinds, bits,
                        float(values.min()), float(values.max()))
    for kind, b in parsed:
        name = field_name(kind, b)
        out = np.zeros(len(values), np.float32)
        ROOT.bb_lossy_read(str(target), name, out)
        np.save(out_dir / f"{name}.npy", out)
    print(f"wrote {target}", flush=True)
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    write_and_read(Path(argv[0]), Path(argv[1]), int(argv[2]), argv[3].split(","))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
