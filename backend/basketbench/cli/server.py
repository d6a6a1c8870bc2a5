"""`basketbench serve`, `basketbench token ...`, `basketbench db ...`."""

from __future__ import annotations

import contextlib
import logging
from enum import StrEnum

import typer
from fastapi import FastAPI

from basketbench.core.config import get_settings

token_app = typer.Typer(no_args_is_help=True)
db_app = typer.Typer(no_args_is_help=True)


def serve(
    host: str = typer.Option("127.0.0.1", help="Interface to bind (0.0.0.0 for all)."),
    port: int = typer.Option(8000, help="TCP port."),
    migrate: bool = typer.Option(True, help="Run `db upgrade` before serving."),
    workers: int | None = typer.Option(
        None, min=1, help="uvicorn worker processes (PostgreSQL only) [default: "
        "BASKETBENCH_API_WORKERS, 1]."),
) -> None:
    import uvicorn

    from basketbench.core import migrate as migrations

    settings = get_settings()
    logging.basicConfig(level=settings.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if migrate:
        migrations.upgrade(settings)
    if settings.embedded and settings.dispatch == "auto":
        _prepare_embedded_runner(host, port)
    where = settings.database_url and settings.sqlalchemy_url.split("@")[-1]
    typer.echo(f"basketbench: database {where or settings.sqlalchemy_url}; "
               f"{'embedded runs' if settings.embedded else 'broker ' + str(settings.broker_url)}"
               f"; http://{host}:{port}/")
    workers = workers or settings.api_workers
    if workers > 1 and settings.database_url is None:
        workers = 1  # one SQLite writer
    factory = ("basketbench.cli.server:create_embedded_app" if settings.embedded
               else "basketbench.app:create_app")
    uvicorn.run(factory, factory=True, host=host, port=port,
                workers=workers, log_level=settings.log_level.lower(), proxy_headers=True)


def create_embedded_app() -> FastAPI:
    """The API with the workers' inline runner: runs execute in this process (embedded
    mode). The CLI composes the two; the web side itself never imports the workers."""
    from basketbench_workers.embedded import run_inline

    from basketbench.app import create_app

    return create_app(inline_runner=run_inline)


EMBEDDED_TOKEN_NAME = "embedded-runner"


def _prepare_embedded_runner(host: str, port: int) -> None:
    """In embedded mode runs execute in this process (basketbench_workers.embedded) and
    talk to this API over HTTP: point them here and give them a token, unless the caller
    (e.g. `basketbench demo`) already did. The previous embedded token is revoked."""
    import os

    local = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    os.environ.setdefault("BASKETBENCH_API_URL", f"http://{local}:{port}")
    if os.environ.get("BASKETBENCH_API_TOKEN"):
        return
    from basketbench.core.errors import NotFound
    from basketbench.core.tokens import create_token, revoke_token

    with _session() as session:
        with contextlib.suppress(NotFound):
            revoke_token(session, EMBEDDED_TOKEN_NAME)
        # The in-process worker does a machine's job: register, claim, report, upload.
        _, plain = create_token(session, EMBEDDED_TOKEN_NAME, scope="machine")
    os.environ["BASKETBENCH_API_TOKEN"] = plain


def _session():  # type: ignore[no-untyped-def]
    from basketbench.core import migrate as migrations
    from basketbench.core.db import make_engine, make_sessionmaker

    settings = get_settings()
    migrations.upgrade(settings)
    return make_sessionmaker(make_engine(settings))()


class Scope(StrEnum):
    machine = "machine"
    user = "user"
    admin = "admin"


@token_app.command("create", help="Create a token; it is printed once, alone on the last line. "
                   "Scopes: machine (a worker: register, heartbeat, claim and report runs, "
                   "upload results and advice), user (trigger runs, change statuses, advise), "
                   "admin (everything, and worker tags).")
def token_create(
    scope: Scope = typer.Option(..., help="What the token may do (docs/API.md lists each "
                                "write endpoint's scope)."),
    name: str = typer.Option("default", help="What the token is for."),
    tag: list[str] = typer.Option(
        [], "--tag", help="Machine tokens: serve only runs of this hardware tag (repeat for "
        "several) [default: any tag]."),
) -> None:
    from basketbench.core.errors import Invalid
    from basketbench.core.tokens import create_token

    with _session() as session:
        try:
            token, plain = create_token(session, name, scope.value, tag or None)
        except Invalid as exc:
            typer.echo(f"error: {exc.message}", err=True)
            raise typer.Exit(2) from exc
        limits = f", tags {', '.join(token.tags)}" if token.tags else ""
        typer.echo(f"created {scope.value} token #{token.id} ({name}{limits}); store it now, "
                   "it is not kept:", err=True)
    typer.echo(plain)


@token_app.command("list", help="List tokens (never their value).")
def token_list() -> None:
    from basketbench.core.tokens import list_tokens

    with _session() as session:
        for t in list_tokens(session):
            state = f"revoked {t.revoked_at:%Y-%m-%d}" if t.revoked_at else "active"
            used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
            tags = ",".join(t.tags) if t.tags else "-"
            typer.echo(f"{t.id}\t{t.name}\t{t.scope}\ttags {tags}\t{state}\t"
                       f"created {t.created_at:%Y-%m-%d}\tlast used {used}")


@token_app.command("revoke", help="Revoke a token by id or name.")
def token_revoke(ident: str = typer.Argument(..., help="token id or name")) -> None:
    from basketbench.core.errors import NotFound
    from basketbench.core.tokens import revoke_token

    with _session() as session:
        try:
            token = revoke_token(session, ident)
        except NotFound as exc:
            typer.echo(f"error: {exc.message}", err=True)
            raise typer.Exit(1) from exc
        typer.echo(f"revoked token #{token.id} ({token.name})")


@db_app.command("upgrade", help="Migrate the database to a revision (default: head).")
def db_upgrade(revision: str = typer.Argument("head")) -> None:
    from basketbench.core import migrate as migrations

    migrations.upgrade(get_settings(), revision)
    typer.echo(f"database at {migrations.current(get_settings())}")


@db_app.command("downgrade", help="Migrate down (default: one revision; 'base' = empty).")
def db_downgrade(revision: str = typer.Argument("-1")) -> None:
    from basketbench.core import migrate as migrations

    migrations.downgrade(get_settings(), revision)
    typer.echo(f"database at {migrations.current(get_settings())}")


@db_app.command("current", help="Print the current revision.")
def db_current() -> None:
    from basketbench.core import migrate as migrations

    typer.echo(str(migrations.current(get_settings())))
