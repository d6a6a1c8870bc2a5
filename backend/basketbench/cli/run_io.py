"""`basketbench run --io FILE.root`: end-to-end ROOT I/O per setting (measure/realroot/io_bench.py).

Exit codes as `basketbench run`: 0 ok; 1 a measurement failed (the document is still written
and shown); 2 bad input or usage (message on stderr, naming the option).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from basketbench.cli.options import (
    UsageError,
    choice_list,
    fail,
    int_list,
    setting_list,
    split_list,
)
from basketbench.measure.realroot.io_bench import (
    CACHES,
    FORMS,
    PAGE_CACHES,
    IoBenchError,
    IoOptions,
    list_trees,
    run_io,
)
from basketbench.measure.realroot.releases import RootReleaseError
from basketbench.measure.rootio.extract import ExtractionError, check_root_header
from basketbench.measure.rzbench.tables import console, io_table


def run_io_command(file: Path, settings: str, threads: str | None, forms: str, caches: str,
                   page_caches: str, trees: str | None, samples: int, target_ms: float,
                   release: str, json_out: Path | None, commit: str | None,
                   machine: str | None) -> None:
    if not file.is_file():
        raise fail(f"--io: {file} not found", 2)
    try:
        check_root_header(file)
        found = list_trees(file)
        wanted = split_list(trees) if trees else found
        missing = [t for t in wanted if t not in found]
        if missing or not wanted:
            raise UsageError(f"--trees: {file} has no TTree {', '.join(missing) or ''}; it has "
                             f"{', '.join(found) or 'none'}")
        options = IoOptions(
            file=file, settings=setting_list(settings), release=release, trees=wanted,
            forms=choice_list(forms, "forms", FORMS), caches=choice_list(caches, "caches", CACHES),
            page_caches=choice_list(page_caches, "page-caches", PAGE_CACHES),
            threads=int_list(threads, "threads", minimum=1) if threads
            else list(range(1, (os.cpu_count() or 1) + 1)),
            samples=samples, target_ms=target_ms,
            context={k: v for k, v in (("commit", commit), ("machine", machine)) if v})
    except (UsageError, ExtractionError) as exc:
        raise fail(str(exc), 2) from exc
    workdir = Path(tempfile.mkdtemp(prefix="basketbench-io-"))
    try:
        out = json_out or workdir / "result.json"
        try:
            doc = run_io(options, out, say=lambda m: console(stderr=True).print(m, highlight=False))
        except RootReleaseError as exc:
            raise fail(str(exc), 2) from exc
        except IoBenchError as exc:
            raise fail(str(exc), 1) from exc
        console().print(io_table(doc))
        if json_out:
            console().print(f"result document: {json_out}", highlight=False)
        failed = [r for r in doc["results"] if r["error"] is not None]
        if failed:
            details = "; ".join(f"{r['dataset']} {r['setting']} {r['mode']} x{r['threads']}: "
                                f"{r['error']}" for r in failed[:3])
            raise fail(f"{len(failed)} measurement(s) failed: {details}", 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
