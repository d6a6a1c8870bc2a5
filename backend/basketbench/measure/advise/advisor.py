"""`basketbench advise`: which setting for this file? Extract, measure, rank.

1. extract every basket of the file (a corpus, docs/CORPUS_FORMAT.md);
2. exact compressed bytes of every branch at every setting (`rzbench sizes`, all baskets);
3. compression and decompression speeds per setting (`rzbench bench`) on a sample of the
   baskets (every k-th basket of every branch, at most `speed_sample_mb`): speeds are rates,
   a sample measures them; sizes are exact and always come from every basket;
4. rank with measure/advise/ranking per file, per type class and per branch. A branch is
   ranked with its own exact sizes and the file's speeds (the speeds of one branch's few
   baskets would be noise).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from basketbench.measure.advise.branch_sizes import SizeGroup, aggregate
from basketbench.measure.advise.groups import advise_group, group_candidates
from basketbench.measure.advise.ranking import Candidate, CostModel, recommend
from basketbench.measure.document.contract import load_document
from basketbench.measure.rootio.corpus_format import CorpusWriter, read_corpus
from basketbench.measure.rootio.extract import extract_corpus
from basketbench.measure.rzbench.runner import BenchOptions, RzbenchError, run_bench, run_sizes

# The settings that matter (DESIGN.md): TFile default, ZLIB mid, LZMA small, LZ4 analysis,
# ZSTD general purpose and stronger.
DEFAULT_SETTINGS = (101, 106, 201, 404, 505, 508)
DEFAULT_PRECONDITIONERS = ("none",)
STAGES = ("extract", "sizes", "speeds")

# (stage, done, total)
Progress = Callable[[str, int, int], None]


class AdviseError(ValueError):
    """Bad input to `advise` (the message names the file or option)."""


@dataclass(frozen=True)
class AdviseOptions:
    settings: Sequence[int] = DEFAULT_SETTINGS
    preconditioners: Sequence[str] = DEFAULT_PRECONDITIONERS
    model: CostModel = CostModel()
    speed_sample_mb: float = 8.0
    min_samples: int = 3
    target_ms: float = 20.0
    rzbench: Path | None = None  # None: locate_rzbench() (a worker passes its own build)


def _sample_corpus(full: Path, out: Path, budget_bytes: int) -> int:
    """Every k-th basket of each branch (k the smallest keeping the sample under budget)."""
    corpus = read_corpus(full)
    total = corpus.raw_bytes
    stride = max(1, -(-total // max(1, budget_bytes)))
    by_branch: dict[tuple[int, str, str], int] = {}
    with CorpusWriter(out, corpus.name + "-speed-sample", created_by="basketbench advise") as w:
        files = [w.add_file(f.path, f.fcompress, f.sha256) for f in corpus.files]
        for i, b in enumerate(corpus.baskets):
            n = by_branch.get((b.file, b.tree, b.branch), 0)
            by_branch[(b.file, b.tree, b.branch)] = n + 1
            if n % stride:
                continue
            w.add_basket(
                file=files[b.file],
                tree=b.tree,
                branch=b.branch,
                basket=b.basket,
                element_size=b.element_size,
                entries=b.entries,
                data_bytes=b.data_bytes,
                entry_offsets=b.entry_offsets,
                raw=corpus.raw(i),
                root_compressed=None,
                type_class=b.type_class,
            )
        w.commit()
    return stride


def _speeds(document: dict[str, Any]) -> dict[tuple[int, str], tuple[float, float]]:
    out = {}
    for r in document["results"]:
        if r["setting"] == 0 or r.get("error"):
            continue
        out[(int(r["setting"]), str(r["preconditioner"]))] = (
            float(r["compress_mbps"]["median"]),
            float(r["decompress_mbps"]["median"]),
        )
    return out


def _candidates(
    group: SizeGroup, speeds: dict[tuple[int, str], tuple[float, float]]
) -> list[Candidate]:
    return group_candidates(group.raw_bytes, group.compressed, speeds)


def advise(path: Path, options: AdviseOptions, progress: Progress | None = None) -> dict[str, Any]:
    """The advice document for one ROOT file (what `advise --json` writes)."""
    say: Progress = progress or (lambda _s, _d, _t: None)
    if not path.is_file():
        raise AdviseError(f"{path}: no such file")
    if not options.settings:
        raise AdviseError("--settings: give at least one setting")
    with tempfile.TemporaryDirectory(prefix="basketbench-advise-") as tmp:
        corpus = Path(tmp) / "file.bbc"
        say("extract", 0, 1)
        summary = extract_corpus([path], corpus, name=path.stem)
        say("extract", 1, 1)
        try:
            datasets = run_sizes(
                corpora=[corpus],
                settings=options.settings,
                preconditioners=options.preconditioners,
                progress=lambda d, t: say("sizes", d, t),
                binary=options.rzbench,
            )
            sample = Path(tmp) / "sample.bbc"
            stride = _sample_corpus(corpus, sample, int(options.speed_sample_mb * 1_000_000))
            doc_path = Path(tmp) / "speeds.json"
            run_bench(
                BenchOptions(
                    corpora=[sample],
                    settings=list(options.settings),
                    preconditioners=list(options.preconditioners),
                    min_samples=options.min_samples,
                    target_ms=options.target_ms,
                    memcpy=False,
                ),
                doc_path,
                binary=options.rzbench,
                progress=lambda d, t: say("speeds", d, t),
            )
        except RzbenchError as exc:
            raise AdviseError(f"{path}: rzbench failed: {exc}") from exc
        document = load_document(doc_path)
    speeds = _speeds(document)
    branches = datasets[0]["branches"]
    file_group = aggregate(branches, "file")[0]
    file_group.key = path.name
    measured = [
        {
            "setting": c.setting,
            "preconditioner": c.preconditioner,
            "raw_bytes": c.raw_bytes,
            "compressed_bytes": c.compressed_bytes,
            "ratio": c.raw_bytes / c.compressed_bytes,
            "compress_mb_s": c.compress_mb_s,
            "decompress_mb_s": c.decompress_mb_s,
        }
        for c in _candidates(file_group, speeds)
    ]
    if not measured:
        raise AdviseError(f"{path}: no setting could be measured")
    if stride == 1:
        # Speeds ran on every basket: the two rzbench commands must agree on every size.
        bench_sizes = {
            (int(r["setting"]), str(r["preconditioner"])): int(r["compressed_bytes"])
            for r in document["results"]
            if r["setting"] != 0
        }
        for row in measured:
            key = (row["setting"], row["preconditioner"])
            if key in bench_sizes and bench_sizes[key] != row["compressed_bytes"]:
                raise AdviseError(
                    f"{path}: {key}: rzbench sizes says {row['compressed_bytes']} bytes, "
                    f"bench says {bench_sizes[key]}"
                )
    file_rec = recommend(_candidates(file_group, speeds), options.model).as_dict()

    def per_group(groups: list[SizeGroup]) -> list[dict[str, Any]]:
        return [{**g.as_dict(), **advise_group(_candidates(g, speeds), options.model)}
                for g in groups]

    return {
        "file": path.name,
        "fcompress": summary.files[0].fcompress,
        "raw_bytes": file_group.raw_bytes,
        "baskets": file_group.baskets,
        "branches_count": len(branches),
        "speed_sample": {
            "every_kth_basket": stride,
            "bytes": document["datasets"][0]["bytes"],
            "min_samples": options.min_samples,
            "target_ms": options.target_ms,
        },
        "codecs": document.get("codecs"),
        "machine": {k: document["machine"].get(k) for k in ("cpu_model", "fingerprint_hash")},
        "measured": measured,
        **file_rec,
        "type_classes": per_group(aggregate(branches, "type_class")),
        "branches": per_group(aggregate(branches, "branch")),
    }
