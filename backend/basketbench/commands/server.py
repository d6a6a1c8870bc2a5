"""`basketbench serve`, `token`, `db` (placeholder, filled in by the backend work)."""

import typer

token_app = typer.Typer(no_args_is_help=True)
db_app = typer.Typer(no_args_is_help=True)


def serve() -> None:
    raise SystemExit("not implemented yet")
