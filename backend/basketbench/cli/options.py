"""Options shared by the commands: comma lists of integers, names and ROOT settings,
checked the same way everywhere, and the one way a command fails with a message.

`run` and `run --io` raise UsageError (exit 2, their message on stderr); `advise` checks
its options as typer parameters (typer.BadParameter, exit 2 with the option named)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import typer

from basketbench.measure.advise.settings import is_advise_setting
from basketbench.measure.rzbench.runner import PRECONDITIONERS
from basketbench.measure.rzbench.tables import console
from basketbench.measure.whole_files import replace_text


class UsageError(ValueError):
    pass


def split_list(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def int_list(value: str, what: str, minimum: int = 0) -> list[int]:
    try:
        numbers = [int(part) for part in split_list(value)]
    except ValueError as exc:
        raise UsageError(f"--{what}: expected comma-separated integers, got {value!r}") from exc
    if not numbers or any(n < minimum for n in numbers):
        raise UsageError(f"--{what}: expected integers >= {minimum}, got {value!r}")
    return numbers


def choice_list(value: str, what: str, allowed: tuple[str, ...]) -> list[str]:
    names = split_list(value)
    unknown = [n for n in names if n not in allowed]
    if not names or unknown:
        raise UsageError(
            f"--{what}: unknown {unknown or value!r}; choose from {', '.join(allowed)}"
        )
    return names


def setting_list(value: str) -> list[int]:
    settings = int_list(value, "settings")
    for s in settings:
        algorithm, level = divmod(s, 100)
        if not 0 <= algorithm <= 5 or not 0 <= level <= 9:
            raise UsageError(
                f"--settings: {s} is not algorithm*100+level (algorithm 0..5, level 0..9)"
            )
    return settings


def fail(message: str, code: int) -> typer.Exit:
    console(stderr=True).print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code)


def advise_setting_list(text: str, option: str) -> list[int]:
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError as exc:
        raise typer.BadParameter(
            f"{text!r} is not a comma list of integers", param_hint=option
        ) from exc
    if not values or not all(is_advise_setting(v) for v in values):
        raise typer.BadParameter(
            f"{text!r}: settings are algorithm*100+level with algorithm 1, 2, 4 or 5 "
            "and level 0..9",
            param_hint=option,
        )
    return values


def preconditioner_list(text: str, option: str) -> list[str]:
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in PRECONDITIONERS]
    if not values or bad:
        raise typer.BadParameter(
            f"{text!r}: choose from {', '.join(PRECONDITIONERS)}", param_hint=option
        )
    return values


def write_json(path: Path, doc: dict[str, Any]) -> None:
    """A document written whole (a temporary file renamed): a reader never sees half."""
    replace_text(path, json.dumps(doc, indent=2) + "\n")


def fail_on_roundtrips(results: Iterable[dict[str, Any]],
                       name: Callable[[dict[str, Any]], str]) -> None:
    """Exit 1 naming (up to five of) the results whose round trip failed, after the table."""
    failed = [r for r in results if not r["roundtrip_ok"]]
    if failed:
        details = "; ".join(f"{name(r)}: {r.get('error') or 'round trip'}" for r in failed[:5])
        raise fail(f"{len(failed)} result(s) failed: {details}", 1)
