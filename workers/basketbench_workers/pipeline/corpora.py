"""Corpus files (docs/CORPUS_FORMAT.md) built once per worker from real ROOT files and cached.

The cache name carries a hash of the source files' bytes, so a changed input file
gives a new corpus instead of silently reusing a stale one.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path

from basketbench.measure.digests import file_sha256

from basketbench_workers.pipeline.suites import CorpusSpec
from basketbench_workers.procs import StageFailed

log = logging.getLogger(__name__)


def _resolve(spec: CorpusSpec) -> list[Path]:
    from basketbench.measure.rootio import default_root_files

    known = {Path(p).name: Path(p) for p in default_root_files()}
    missing = [name for name in spec.files if name not in known]
    if missing:
        raise StageFailed(f"corpus {spec.name}: unknown ROOT files {missing}")
    return [known[name] for name in spec.files]


def _digest(paths: list[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0")
        with path.open("rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()[:16]


def checksum_path(target: Path) -> Path:
    return target.with_name(target.name + ".sha256")


def cached_ok(target: Path) -> bool:
    """The cached corpus is byte-for-byte what was extracted (its recorded sha256): a
    truncated or bit-flipped file (disk trouble, a stray write) is rebuilt, not used."""
    try:
        recorded = checksum_path(target).read_text().strip()
    except OSError:
        return False
    return target.is_file() and recorded == file_sha256(target)


def corpus_file(spec: CorpusSpec, cache_dir: Path) -> Path:
    """The cached corpus for `spec`, extracting it on first use or when its checksum
    does not match."""
    from basketbench.measure.rootio import extract_corpus

    sources = _resolve(spec)
    paging = f"-p{spec.page_size}-{spec.encoding}" if spec.page_size else ""
    paging += f"-{spec.kind}" if spec.kind else ""
    target = cache_dir / f"{spec.name}-{_digest(sources)}{paging}.bbc"
    if cached_ok(target):
        return target
    if target.exists():
        log.warning("cached corpus %s fails its checksum: rebuilding it", target.name)
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    try:
        kinds = {None: ("basket", "page"), "ttree": ("basket",), "rntuple": ("page",)}
        extract_corpus(sources, partial, spec.name, kinds=kinds[spec.kind])
        if spec.page_size:
            from basketbench.measure.rootio.repage import repage_corpus

            whole = partial.with_name(partial.name + ".whole")
            partial.replace(whole)
            try:
                repage_corpus(whole, partial, spec.page_size,
                              "unsplit" if spec.encoding == "unsplit" else "as-written",
                              spec.name)
            finally:
                whole.unlink(missing_ok=True)
        digest = file_sha256(partial)
        # Checksum first, then the corpus, both atomically: a killed worker leaves either
        # no corpus or one whose checksum is recorded (a stale checksum only rebuilds).
        tmp_sum = checksum_path(partial)
        tmp_sum.write_text(digest + "\n")
        tmp_sum.replace(checksum_path(target))
        partial.replace(target)
    except StageFailed:
        raise
    except Exception as exc:  # extraction errors are data problems: fail the run clearly
        raise StageFailed(f"corpus {spec.name}: extraction failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
        checksum_path(partial).unlink(missing_ok=True)
    return target
