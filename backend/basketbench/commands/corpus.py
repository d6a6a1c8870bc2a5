"""`basketbench corpus ...` (placeholder, filled in by the harness-python work)."""

import typer

app = typer.Typer(no_args_is_help=True)
