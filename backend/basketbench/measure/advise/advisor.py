"""`basketbench advise`: which setting for this file? Extract, measure, rank.

1. extract every basket of the file (a corpus, docs/CORPUS_FORMAT.md);
2. exact compressed bytes of every branch at every setting (`rzbench sizes`, all baskets);
3. compression and decompression speeds per setting (`rzbench bench`) on a sample of the
   baskets (every k-th basket of every branch, at most `speed_sample_mb`): speeds are rates,
   a sample measures them; sizes are exact and always come from every basket;
4. rank with measure/advise/ranking per file, per type class and per branch. A branch is
   ranked with its own exact sizes and the file's speeds (the speeds of one branch's few
   baskets would be noise). The speeds the cost model uses come from evidence that does not
   swing with the load (speed_evidence: the median of this build's recent runs on this
   machine when there are any), and resampling them says how stable the winner is
   (stability).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from basketbench.measure.advise.branch_sizes import SizeGroup, aggregate
from basketbench.measure.advise.groups import (
    advise_group,
    group_candidates,
    lead_with_differences,
)
from basketbench.measure.advise.ranking import Candidate, CostModel, cost_of
from basketbench.measure.advise.root_snippet import root_snippet
from basketbench.measure.advise.speed_evidence import choose_speeds
from basketbench.measure.advise.stability import recommend_stably
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
    # where this build's recent speeds are kept (speed_evidence); None: this run's only
    speed_history: Path | None = None
    seed: int = 0  # of the stability resampling


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


def _candidates(
    group: SizeGroup, speeds: dict[tuple[int, str], tuple[float, float]]
) -> list[Candidate]:
    return group_candidates(group.raw_bytes, group.compressed, speeds)


def _load() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def advise(path: Path, options: AdviseOptions, progress: Progress | None = None) -> dict[str, Any]:
    """The advice document for one ROOT file (what `advise --json` writes)."""
    say: Progress = progress or (lambda _s, _d, _t: None)
    if not path.is_file():
        raise AdviseError(f"{path}: no such file")
    if not options.settings:
        raise AdviseError("--settings: give at least one setting")
    load_start = _load()
    with tempfile.TemporaryDirectory(prefix="basketbench-advise-") as tmp:
        corpus = Path(tmp) / "file.bbc"
        summary = extract_corpus([path], corpus, name=path.stem,
                                 progress=lambda d, t: say("extract", d, t))
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
    document["load"] = {"loadavg_start": load_start, "loadavg_end": _load()}
    return compose(path.name, summary.files[0].fcompress, datasets[0]["branches"], document,
                   stride, options)


def compose(file_name: str, fcompress: int, branches: list[dict[str, Any]],
            document: dict[str, Any], stride: int, options: AdviseOptions) -> dict[str, Any]:
    """The advice from exact sizes per branch (`rzbench sizes`) and a speeds document
    (`rzbench bench` on the sample): the ranking, its evidence, stability and provenance."""
    evidence = choose_speeds(document, options.speed_history)
    speeds = evidence.speeds
    file_group = aggregate(branches, "file")[0]
    file_group.key = file_name
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
        raise AdviseError(f"{file_name}: no setting could be measured")
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
                    f"{file_name}: {key}: rzbench sizes says {row['compressed_bytes']} bytes, "
                    f"bench says {bench_sizes[key]}"
                )
    file_cands = _candidates(file_group, speeds)
    file_rec = recommend_stably(file_cands, evidence.samples, options.model, seed=options.seed)
    best = file_rec["recommended"]
    stability = file_rec.pop("stability")

    def per_group(groups: list[SizeGroup]) -> list[dict[str, Any]]:
        rows = []
        for g in groups:
            cands = _candidates(g, speeds)
            row = {**g.as_dict(), **advise_group(cands, options.model)}
            own = next((c for c in cands if c.label == row["recommended"]), None)
            at_file = next((c for c in cands if c.label == best), None)
            row["differs"] = bool(own and at_file and own.label != at_file.label)
            row["saving"] = (cost_of(at_file, options.model).total
                             - cost_of(own, options.model).total) if own and at_file else None
            row["saving_bytes"] = (at_file.compressed_bytes - own.compressed_bytes
                                   if own and at_file else None)
            rows.append(row)
        return lead_with_differences(rows)

    branch_rows = per_group(aggregate(branches, "branch"))
    codecs = document.get("codecs") or {}
    return {
        "file": file_name,
        "fcompress": fcompress,
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
        "machine": {k: document["machine"].get(k)
                    for k in ("cpu_model", "fingerprint_hash", "hostname")},
        # what measured it: the provenance the Recommend page and the CLI print
        "provenance": {
            "root_version": codecs.get("root_version"),
            "codec_set": codecs.get("set"),
            "codec_versions": codecs.get("libraries") or {},
            "build": document.get("build"),
            "tool": document.get("tool"),
            "cpu_model": document["machine"].get("cpu_model"),
            "measured_at": document.get("created_at")
            or datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="seconds"),
            "load": document.get("load"),
        },
        "speed_evidence": evidence.as_dict(),
        "stability": stability,
        "measured": measured,
        **file_rec,
        "type_classes": per_group(aggregate(branches, "type_class")),
        "branches": branch_rows,
        "branches_differing": sum(1 for r in branch_rows if r["differs"]),
        "snippet": root_snippet(best, {r["key"]: r["recommended"] for r in branch_rows
                                       if r["differs"]}),
    }
