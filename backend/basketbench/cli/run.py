"""`basketbench run`: run rzbench locally, validate its document, print a table.

Exit codes follow rzbench: 0 ok; 1 a result failed (the document is still
written and shown) or rzbench produced an invalid document; 2 bad input or
usage (message on stderr); 128+N when rzbench was killed by signal N.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import typer

from basketbench.cli.options import (
    UsageError,
    choice_list,
    fail,
    int_list,
    setting_list,
    write_json,
)
from basketbench.cli.progress import stage_progress
from basketbench.measure.document.contract import DocumentError, load_document, validate_document
from basketbench.measure.realroot.io_bench import DEFAULT_RELEASE
from basketbench.measure.realroot.releases import RootReleaseError, release_rzbench
from basketbench.measure.rzbench import noise
from basketbench.measure.rzbench.counting import (
    CountingError,
    record_valgrind,
    run_counted,
    valgrind_path,
)
from basketbench.measure.rzbench.runner import (
    MODES,
    PRECONDITIONERS,
    SYNTHETIC_DATASETS,
    BenchOptions,
    RzbenchError,
    RzbenchNotFound,
    locate_rzbench,
    run_bench,
)
from basketbench.measure.rzbench.tables import console, results_table


def _rewrite(path: Path, doc: dict[str, Any]) -> None:
    """Write the document back with what was added around rzbench (load, counts), checked
    against the schema first."""
    errors = validate_document(doc)
    if errors:
        raise fail("the completed result document is invalid: " + "; ".join(errors[:5]), 1)
    write_json(path, doc)


def run(
    corpus: list[Path] = typer.Option([], "--corpus", help="Corpus file (*.bbc); repeatable."),
    synthetic: str | None = typer.Option(
        None,
        help=f"Synthetic datasets: {', '.join(SYNTHETIC_DATASETS)} or all "
        "(the default without --corpus).",
    ),
    settings: str = typer.Option("101,404,505", help="Compression settings, algorithm*100+level."),
    preconditioners: str = typer.Option("none", help="none, shuffle, bitshuffle."),
    dictionary_sizes: str = typer.Option("0", help="ZSTD dictionary sizes in bytes (0 = none)."),
    basket_sizes: str = typer.Option(
        "0", help="Re-chunk branches into baskets of these sizes (0 = as stored)."
    ),
    modes: str = typer.Option("basket", help="basket, rac-sequential, rac-random."),
    threads: str | None = typer.Option(
        None, help="Decompression thread counts (default 1; with --io 1..the machine's cores)."),
    min_samples: int = typer.Option(9, min=1, help="Samples per configuration."),
    target_ms: float = typer.Option(100.0, min=0.0, help="Target duration of one pass, ms."),
    memcpy: bool = typer.Option(True, "--memcpy/--no-memcpy", help="Add the memcpy baseline row."),
    json_out: Path | None = typer.Option(None, "--json", help="Write the result document here."),
    csv_out: Path | None = typer.Option(None, "--csv", help="Also write CSV."),
    markdown_out: Path | None = typer.Option(
        None, "--markdown", help="Also write a Markdown table."
    ),
    commit: str | None = typer.Option(None, help="Recorded in the document's context.commit."),
    machine: str | None = typer.Option(None, help="Recorded in the document's context.machine."),
    root_commit: str | None = typer.Option(None, help="ROOT commit of the `root` backend build."),
    root_release: str | None = typer.Option(
        None,
        "--root-release",
        help="Measure with this ROOT release's own compression code (e.g. 6.40.00): its PyPI "
        "wheel is downloaded and rzbench built against its libCore once, then reused.",
    ),
    io: Path | None = typer.Option(
        None, "--io", help="End-to-end ROOT I/O instead: write each tree of this .root file at "
        "each setting and read it back with the ROOT release (default "
        f"{DEFAULT_RELEASE}); modes io-write / io-read."),
    forms: str = typer.Option("ttree,rntuple", help="With --io: ttree, rntuple."),
    caches: str = typer.Option("on,off", help="With --io: TTreeCache / cluster cache on, off."),
    page_caches: str = typer.Option("warm,cold", help="With --io: page cache warm, cold."),
    trees: str | None = typer.Option(None, help="With --io: these trees (default: all)."),
    instructions: bool = typer.Option(
        False,
        "--instructions",
        help="Also count each configuration's compress and decompress pass under valgrind "
        "(callgrind): instructions and estimated cycles, in total and per uncompressed MB.",
    ),
) -> None:
    """Run rzbench locally over corpora or synthetic datasets and print a table."""
    if io is not None:
        from basketbench.cli.run_io import run_io_command

        run_io_command(io, settings, threads, forms, caches, page_caches, trees, min_samples,
                       target_ms, root_release or DEFAULT_RELEASE, json_out, commit, machine)
        return
    try:
        options = BenchOptions(
            corpora=list(corpus),
            synthetic=choice_list(synthetic, "synthetic", (*SYNTHETIC_DATASETS, "all"))
            if synthetic
            else [],
            settings=setting_list(settings),
            preconditioners=choice_list(preconditioners, "preconditioners", PRECONDITIONERS),
            dictionary_sizes=int_list(dictionary_sizes, "dictionary-sizes"),
            basket_sizes=int_list(basket_sizes, "basket-sizes"),
            modes=choice_list(modes, "modes", MODES),
            threads=int_list(threads or "1", "threads", minimum=1),
            min_samples=min_samples,
            target_ms=target_ms,
            memcpy=memcpy,
            root_commit=root_commit,
            context={k: v for k, v in (("commit", commit), ("machine", machine)) if v},
        )
    except UsageError as exc:
        raise fail(str(exc), 2) from exc
    missing = [str(p) for p in options.corpora if not p.is_file()]
    if missing:
        raise fail(f"corpus file(s) not found: {', '.join(missing)}", 2)
    try:
        if root_release:
            _release, binary = release_rzbench(
                root_release, say=lambda m: console(stderr=True).print(m, highlight=False)
            )
        else:
            binary = locate_rzbench()
        if instructions:
            valgrind_path()
    except (RzbenchNotFound, RootReleaseError, CountingError) as exc:
        raise fail(str(exc), 2) from exc

    workdir = Path(tempfile.mkdtemp(prefix="basketbench-run-"))
    try:
        document_path = json_out or workdir / "result.json"
        with stage_progress(console(stderr=True), "run", ("measuring",),
                            transient=True) as step:
            load_start = noise.snapshot()
            try:
                code, stderr = run_bench(
                    options,
                    document_path,
                    csv_out=csv_out,
                    markdown_out=markdown_out,
                    binary=binary,
                    progress=lambda done, total: step("measuring", done, total),
                )
            except RzbenchError as exc:
                code = exc.exit_code
                # a signal becomes 128+N as in a shell; exit 0 without a document is a failure
                status = code if code > 0 else 128 - code if code < 0 else 1
                raise fail(f"rzbench failed (exit {code}): {exc}", status) from exc
            load_end = noise.snapshot()
            try:
                doc = load_document(document_path)
            except DocumentError as exc:
                raise fail(f"rzbench wrote an invalid result document: {exc}", 1) from exc
            doc["load"] = noise.summarize(load_start, load_end)
            record_valgrind(doc)
            if instructions:
                step("counting (valgrind)", 0, 0)
                try:
                    run_counted(binary, options.arguments(), doc)
                except CountingError as exc:
                    raise fail(str(exc), 1) from exc
            _rewrite(document_path, doc)
        console().print(results_table(doc))
        if json_out:
            console().print(f"result document: {json_out}", highlight=False)
        failed = [r for r in doc["results"] if r["error"] is not None]
        if code != 0 or failed:
            details = "; ".join(f"{r['dataset']} {r['setting']}: {r['error']}" for r in failed[:5])
            raise fail(f"{len(failed)} result(s) failed: {details or stderr}", 1)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
