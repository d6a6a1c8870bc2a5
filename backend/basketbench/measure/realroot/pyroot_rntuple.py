"""Convert TTrees to RNTuples with a real ROOT (PyROOT's RNTupleImporter): ROOT's own pages.

Run as a script with a ROOT release's wheel folder on sys.path, like pyroot_rewrite (PyROOT
loads libCore into the global symbol scope, so never import it next to other codec libraries):

    python -m basketbench.measure.realroot.pyroot_rntuple OUT_DIR SETTINGS FILE:TREE [FILE:TREE ...]
        [--page-size BYTES]

writes OUT_DIR/<file stem>-rntuple-<setting>.root for each input and setting: every entry of
the tree read and written again as an RNTuple whose pages are compressed at the setting
(`RNTupleWriteOptions::SetCompression`), with at most BYTES uncompressed bytes per page when
given (`SetMaxUnzippedPageSize`; ROOT's default otherwise).
"""

from __future__ import annotations

import sys
from pathlib import Path


def convert(out_dir: Path, settings: list[int], inputs: list[tuple[Path, str]],
            page_size: int | None = None) -> list[Path]:
    import ROOT  # the release's PyROOT

    ROOT.gROOT.SetBatch(True)
    written = []
    for path, tree_name in inputs:
        for setting in settings:
            suffix = f"-{page_size}" if page_size else ""
            target = out_dir / f"{path.stem}-rntuple-{setting}{suffix}.root"
            importer = ROOT.Experimental.RNTupleImporter.Create(str(path), tree_name,
                                                                str(target))
            options = ROOT.RNTupleWriteOptions()
            options.SetCompression(setting)
            if page_size:
                options.SetMaxUnzippedPageSize(page_size)
            importer.SetWriteOptions(options)
            importer.SetIsQuiet(True)
            importer.Import()
            written.append(target)
            print(f"wrote {target}", flush=True)
    return written


def main(argv: list[str]) -> int:
    page_size = None
    if "--page-size" in argv:
        at = argv.index("--page-size")
        page_size = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    settings = [int(s) for s in argv[1].split(",")]
    inputs = []
    for spec in argv[2:]:
        file_name, _, tree = spec.rpartition(":")
        inputs.append((Path(file_name), tree))
    convert(Path(argv[0]), settings, inputs, page_size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
