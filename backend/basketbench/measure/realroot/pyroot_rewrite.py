"""Rewrite TTrees with a real ROOT (PyROOT) at given compression settings: ROOT's own output.

Run as a script with a ROOT release's wheel folder on sys.path (see `rewrite_command`), never
imported next to other codec libraries: PyROOT loads libCore into the global symbol scope.

    python -m basketbench.measure.realroot.pyroot_rewrite OUT_DIR SETTINGS FILE:TREE [FILE:TREE ...]

writes OUT_DIR/<file stem>-<setting>.root for each input and setting: a full copy
(every entry is read and every basket compressed again at the output file's setting), with
all baskets flushed to their own keys. A setting written FILE/BRANCHES (e.g. 101/404) gives
the file one setting and every branch its own (TBranch::SetCompressionSettings), in
OUT_DIR/<file stem>-<file>-<branches>.root. After each file one line
`basket_bytes PATH N` gives ROOT's own count, read back by ROOT, of the bytes its baskets
hold after their keys (fNbytes - fKeylen summed: compressed blocks and stored baskets).
"""

from __future__ import annotations

import sys
from pathlib import Path


def parse_setting(spec: str) -> tuple[int, int | None]:
    """"101" -> (101, None); "101/404" -> (101, 404): file setting, branches' own setting."""
    file_setting, _, branch_setting = spec.partition("/")
    return int(file_setting), int(branch_setting) if branch_setting else None


def rewrite(out_dir: Path, settings: list[str], inputs: list[tuple[Path, str]]) -> list[Path]:
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    written = []
    for path, tree_name in inputs:
        for spec in settings:
            setting, branch_setting = parse_setting(spec)
            source = ROOT.TFile.Open(str(path))
            if not source or source.IsZombie():
                raise SystemExit(f"cannot open {path}")
            tree = source.Get(tree_name)
            if not tree:
                raise SystemExit(f"{path} has no tree {tree_name!r}")
            target_path = out_dir / f"{path.stem}-{spec.replace('/', '-')}.root"
            target = ROOT.TFile(str(target_path), "RECREATE", "", setting)
            target.SetCompressionSettings(setting)
            if branch_setting is None:
                copy = tree.CloneTree(-1)  # no "fast": entries are read and written again
            else:
                copy = tree.CloneTree(0)
                for branch in copy.GetListOfBranches():
                    branch.SetCompressionSettings(branch_setting)
                copy.CopyEntries(tree)
            copy.FlushBaskets()
            copy.Write()
            target.Close()
            source.Close()
            print(f"basket_bytes {target_path} {_basket_bytes(ROOT, target_path, tree_name)}",
                  flush=True)
            written.append(target_path)
            print(f"wrote {target_path}", flush=True)
    return written


def _basket_bytes(root: object, path: Path, tree_name: str) -> int:
    """Sum of fNbytes - fKeylen over every basket of every branch, as ROOT reads them."""
    written = root.TFile.Open(str(path))  # type: ignore[attr-defined]
    tree = written.Get(tree_name)
    total = 0
    branches = {leaf.GetBranch().GetFullName().Data(): leaf.GetBranch()
                for leaf in tree.GetListOfLeaves()}  # several leaves may share a branch
    for branch in branches.values():
        for i in range(branch.GetWriteBasket()):
            basket = branch.GetBasket(i)
            total += basket.GetNbytes() - basket.GetKeylen()
    written.Close()
    return int(total)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    out_dir = Path(argv[0])
    settings = argv[1].split(",")
    inputs = []
    for spec in argv[2:]:
        file_name, _, tree = spec.rpartition(":")
        inputs.append((Path(file_name), tree))
    rewrite(out_dir, settings, inputs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
