"""What the demo says: its `[demo]` progress lines and the error that stops it."""

from __future__ import annotations

import typer


class DemoError(Exception):
    """A reason to stop, with what to do about it."""


def say(message: str) -> None:
    typer.echo(f"[demo] {message}")
