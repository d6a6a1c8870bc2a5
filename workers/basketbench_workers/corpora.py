"""Corpus files (docs/CORPUS_FORMAT.md) built once per worker from real ROOT files and cached.

The cache name carries a hash of the source files' bytes, so a changed input file
gives a new corpus instead of silently reusing a stale one.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from basketbench_workers.procs import StageFailed
from basketbench_workers.suites import CorpusSpec


def _resolve(spec: CorpusSpec) -> list[Path]:
    from basketbench.harness import default_root_files  # the harness-python helper's API

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


def corpus_file(spec: CorpusSpec, cache_dir: Path) -> Path:
    """The cached corpus for `spec`, extracting it on first use."""
    from basketbench.harness import extract_corpus

    sources = _resolve(spec)
    target = cache_dir / f"{spec.name}-{_digest(sources)}.bbc"
    if target.is_file():
        return target
    cache_dir.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".partial-{os.getpid()}")
    try:
        extract_corpus(sources, partial, spec.name)
        partial.replace(target)  # atomic: a killed worker never leaves a half corpus behind
    except StageFailed:
        raise
    except Exception as exc:  # extraction errors are data problems: fail the run clearly
        raise StageFailed(f"corpus {spec.name}: extraction failed: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return target
