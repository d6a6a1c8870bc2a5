"""The `basketbench demo` command: its options, and exit code 1 with the reason when the
demo stops (steps.py runs it)."""

from __future__ import annotations

from pathlib import Path

import typer

from basketbench_devtools.demo.console import DemoError
from basketbench_devtools.demo.steps import DemoOptions, run_demo


def demo(
    host: str = typer.Option("127.0.0.1", help="Address the dashboard listens on."),
    port: int = typer.Option(8000, help="Port of the dashboard and API."),
    home: Path = typer.Option(
        Path(".basketbench"), envvar="BASKETBENCH_DEMO_HOME",
        help="Folder for the SQLite database, corpora, build cache and logs.",
    ),
    serve: bool = typer.Option(True, "--serve/--no-serve",
                               help="Keep serving after the run (--no-serve: print and exit)."),
    rerun: bool = typer.Option(False, "--rerun", help="Measure again even if this commit was."),
    quick: bool = typer.Option(False, "--quick",
                               help="A smaller suite (3 settings on HZZ, its RNTuple when a "
                               "release converted it, 2 synthetic sets) and no releases "
                               "(BASKETBENCH_DEMO_RELEASES=1 adds them): about a minute of "
                               "measuring."),
    timeout: float = typer.Option(3600.0, help="Seconds to wait for the run."),
    commit: str = typer.Option("HEAD", help="Commit of this checkout to measure."),
) -> None:
    options = DemoOptions(host=host, port=port, home=home, serve=serve, rerun=rerun,
                          quick=quick, timeout=timeout, commit=commit)
    try:
        run_demo(options)
    except DemoError as exc:
        typer.echo(f"[demo] error: {exc}", err=True)
        raise typer.Exit(1) from None
