"""`basketbench corpus extract|info`: build and inspect basket corpora."""

from __future__ import annotations

from pathlib import Path

import typer

from basketbench.cli.progress import stage_progress
from basketbench.measure.rootio.corpus_format import CorpusFormatError, read_corpus
from basketbench.measure.rootio.extract import ExtractionError, extract_corpus
from basketbench.measure.rzbench.tables import console, corpus_table

app = typer.Typer(no_args_is_help=True)


@app.command("extract")
def extract(
    files: list[Path] = typer.Argument(
        ..., help="ROOT files to read (every TTree basket and RNTuple page)."
    ),
    output: Path = typer.Option(..., "-o", "--output", help="Corpus file to write (*.bbc)."),
    name: str | None = typer.Option(None, help="Dataset name; default: the output file's stem."),
    tree: str | None = typer.Option(
        None, help="Only this TTree or RNTuple (name or path) in each file."
    ),
) -> None:
    """Extract every basket's and page's uncompressed payload and ROOT's compressed bytes."""
    try:
        with stage_progress(console(stderr=True), "corpus", ("extract",),
                            units={"extract": "bytes"}, transient=True) as step:
            summary = extract_corpus(
                files, output, name, tree=tree, log=lambda m: console(stderr=True).print(m),
                progress=lambda done, total: step("extract", done, total),
            )
    except ExtractionError as exc:
        console(stderr=True).print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    console().print(
        f"wrote {summary.path}: {summary.baskets - summary.pages} baskets, {summary.pages} "
        f"RNTuple pages, {summary.raw_bytes:,} raw bytes "
        f"from {len(summary.files)} file(s), checksum {summary.checksum}",
        highlight=False,
    )


@app.command("repage")
def repage(
    corpus: Path = typer.Argument(..., help="Corpus with RNTuple pages (*.bbc)."),
    output: Path = typer.Option(..., "-o", "--output", help="Corpus file to write (*.bbc)."),
    page_size: int = typer.Option(..., help="Maximum uncompressed bytes per page."),
    unsplit: bool = typer.Option(False, help="Encode split columns without split/delta/zigzag."),
    name: str | None = typer.Option(None, help="Dataset name; default: the output file's stem."),
) -> None:
    """Re-page every RNTuple column at another page size (with the column's real encoding)."""
    from basketbench.measure.rootio.repage import RepageError, repage_corpus

    try:
        summary = repage_corpus(corpus, output, page_size,
                                "unsplit" if unsplit else "as-written", name)
    except (RepageError, CorpusFormatError) as exc:
        console(stderr=True).print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    console().print(
        f"wrote {summary.path}: {summary.pages_in} pages re-paged into {summary.pages_out} "
        f"({summary.copied_unchanged} copied unchanged), checksum {summary.checksum}",
        highlight=False,
    )


@app.command("info")
def info(
    corpus: Path = typer.Argument(..., help="Corpus file (*.bbc)."),
    verify: bool = typer.Option(False, help="Also check every raw payload against its XXH64."),
) -> None:
    """Summarise a corpus: files, settings, baskets, sizes, ROOT's own ratio."""
    try:
        parsed = read_corpus(corpus, verify_checksums=verify)
    except CorpusFormatError as exc:
        console(stderr=True).print(f"[red]error:[/red] {exc}", highlight=False)
        raise typer.Exit(2) from exc
    console().print(corpus_table(parsed))
    pages = sum(1 for b in parsed.baskets if b.kind == "page")
    console().print(
        f"{len(parsed.baskets) - pages} baskets, {pages} RNTuple pages, "
        f"{parsed.raw_bytes:,} raw bytes, "
        f"checksum {parsed.checksum()}",
        highlight=False,
    )
