"""`basketbench replay`: ROOT's released compression sources (cppyy-cling sdists, the
`root` wheels) as a git history through the real pipeline; writes the changes detection
found (devtools/basketbench_devtools/replay, docs/replay.md)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from basketbench_devtools.demo.console import DemoError
from basketbench_devtools.replay.pipeline import ReplayOptions, run_replay
from basketbench_devtools.replay.sources import SourceError


def replay(
    quick: bool = typer.Option(False, "--quick", help=(
        "A handful of releases around the known events (6.14/00, 6.14/02, 6.18/00, the "
        "6.38/00 and 6.40/00 wheels): minutes once cached. Default: every release.")),
    json_out: Path | None = typer.Option(None, "--json", help=(
        "Write the replay document (changes, releases, measured) to this file.")),
    host: str = typer.Option("127.0.0.1", help="Address of the replay's API."),
    port: int = typer.Option(8137, help="Port of the replay's API."),
    home: Path | None = typer.Option(None, envvar="BASKETBENCH_REPLAY_HOME", help=(
        "Folder for the replay's database, worker and logs (default: the cache's "
        "replay/home).")),
    timeout: float = typer.Option(3600.0, help="Seconds to wait for each run."),
) -> None:
    if json_out is not None and not json_out.parent.is_dir():
        typer.echo(f"[replay] error: --json: folder {json_out.parent} does not exist", err=True)
        raise typer.Exit(2)
    options = ReplayOptions(quick=quick, json_out=json_out, host=host, port=port, home=home,
                            timeout=timeout)
    try:
        document = run_replay(options)
    except (DemoError, SourceError) as exc:
        typer.echo(f"[replay] error: {exc}", err=True)
        raise typer.Exit(1) from None
    typer.echo(json.dumps({"changes": document["changes"]}, indent=2))
