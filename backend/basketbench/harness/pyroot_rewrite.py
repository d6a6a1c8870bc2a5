"""Rewrite TTrees with a real ROOT (PyROOT) at given compression settings: ROOT's own output.

Run as a script with a ROOT release's wheel folder on sys.path (see `rewrite_command`), never
imported next to other codec libraries: PyROOT loads libCore into the global symbol scope.

    python -m basketbench.harness.pyroot_rewrite OUT_DIR SETTINGS FILE:TREE [FILE:TREE ...]

writes OUT_DIR/<file stem>-<setting>.root for each input and setting: a full copy
(TTree::CloneTree(-1) without "fast", so every entry is read and every basket compressed
again at the output file's setting), with all baskets flushed to their own keys.
"""

from __future__ import annotations

import sys
from pathlib import Path


def rewrite(out_dir: Path, settings: list[int], inputs: list[tuple[Path, str]]) -> list[Path]:
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    written = []
    for path, tree_name in inputs:
        for setting in settings:
            source = ROOT.TFile.Open(str(path))
            if not source or source.IsZombie():
                raise SystemExit(f"cannot open {path}")
            tree = source.Get(tree_name)
            if not tree:
                raise SystemExit(f"{path} has no tree {tree_name!r}")
            target_path = out_dir / f"{path.stem}-{setting}.root"
            target = ROOT.TFile(str(target_path), "RECREATE", "", setting)
            target.SetCompressionSettings(setting)
            copy = tree.CloneTree(-1)  # no "fast": entries are read and written again
            copy.FlushBaskets()
            copy.Write()
            target.Close()
            source.Close()
            written.append(target_path)
            print(f"wrote {target_path}", flush=True)
    return written


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    settings = [int(s) for s in argv[1].split(",")]
    inputs = []
    for spec in argv[2:]:
        file_name, _, tree = spec.rpartition(":")
        inputs.append((Path(file_name), tree))
    rewrite(out_dir, settings, inputs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
