"""How to apply a recommendation in ROOT: a copyable snippet for each way a file gets written.

A setting is ROOT's compression-settings integer, algorithm * 100 + level (505 = ZSTD level 5),
which every writer takes: TFile (constructor or SetCompressionSettings, the default of the
branches created afterwards), TBranch::SetCompressionSettings (one branch and its
sub-branches: per-branch exceptions), RDataFrame's Snapshot (RSnapshotOptions'
fCompressionAlgorithm and fCompressionLevel) and RNTuple (RNTupleWriteOptions::SetCompression,
for all pages). A basketbench preconditioner (shuffle, bitshuffle) is no ROOT setting: the
snippet says so instead of pretending.
"""

from __future__ import annotations

from collections.abc import Mapping

# ROOT::RCompressionSetting::EAlgorithm names per algorithm number
ALGORITHMS = {1: "kZLIB", 2: "kLZMA", 3: "kOldCompressionAlgo", 4: "kLZ4", 5: "kZSTD"}
MAX_BRANCHES = 25  # branch exceptions listed; the rest are counted in a comment


def _setting(label: str) -> tuple[int, str]:
    setting, _, pre = label.partition("+")
    return int(setting), pre


def _tree_and_branch(key: str, tree: str) -> tuple[str, str]:
    """advise's branch keys are "<tree>/<branch path>"; a bare name belongs to `tree`."""
    head, sep, rest = key.partition("/")
    return (head, rest) if sep else (tree, key)


def root_snippet(file_label: str, branch_labels: Mapping[str, str] | None = None,
                 tree: str | None = None) -> str:
    """C++ for TFile/TTree, per branch, RDataFrame::Snapshot and RNTuple, with `file_label`
    for the file and `branch_labels` ("<tree>/<branch>" -> label) for the branches whose own
    best setting differs from the file's."""
    if tree is None:
        trees = sorted({_tree_and_branch(k, "Events")[0] for k in branch_labels or {}})
        tree = trees[0] if trees else "Events"
    setting, pre = _setting(file_label)
    algorithm, level = divmod(setting, 100)
    enum = ALGORITHMS.get(algorithm, f"EAlgorithm({algorithm})")
    lines = []
    if pre:
        lines.append(f"// {file_label}: the preconditioner '{pre}' is basketbench's, not a "
                     f"ROOT setting; ROOT writes {setting} without it")
    lines += [
        f"// TFile / TTree: every branch created after this writes at {setting}",
        f'TFile out("out.root", "RECREATE", "", {setting});  // or out.SetCompressionSettings'
        f"({setting});",
    ]
    exceptions = {b: _setting(lbl)[0] for b, lbl in (branch_labels or {}).items()
                  if _setting(lbl)[0] != setting}
    if exceptions:
        lines.append(f"// branches whose own best setting differs from {setting} "
                     "(TBranch::SetCompressionSettings, before filling; `tree` is the TTree "
                     "named in the comment):")
        current = None
        for key, own in sorted(exceptions.items(), key=lambda e: (e[0].partition("/")[0],
                                                                   e[1], e[0]))[:MAX_BRANCHES]:
            tree_name, branch = _tree_and_branch(key, tree)
            if tree_name != current:
                lines.append(f"// TTree \"{tree_name}\"")
                current = tree_name
            lines.append(f'tree->GetBranch("{branch}")->SetCompressionSettings({own});')
        if len(exceptions) > MAX_BRANCHES:
            lines.append(f"// ... and {len(exceptions) - MAX_BRANCHES} more branches (advise "
                         "--json lists them all)")
    lines += [
        "",
        "// RDataFrame::Snapshot",
        "ROOT::RDF::RSnapshotOptions opts;",
        f"opts.fCompressionAlgorithm = ROOT::RCompressionSetting::EAlgorithm::{enum};",
        f"opts.fCompressionLevel = {level};",
        f'df.Snapshot("{tree}", "out.root", columns, opts);',
        "",
        "// RNTuple (ROOT::Experimental:: before ROOT 6.34)",
        "ROOT::RNTupleWriteOptions wopts;",
        f"wopts.SetCompression({setting});",
        f'auto writer = ROOT::RNTupleWriter::Recreate(std::move(model), "{tree}", "out.root", '
        "wopts);",
    ]
    return "\n".join(lines) + "\n"
