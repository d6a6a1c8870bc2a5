"""Alembic environment: metadata from basketbench.models, URL from basketbench settings
(or from ``config.attributes["url"]`` when basketbench.core.migrate runs it)."""

from __future__ import annotations

from typing import Any

from alembic import context
from basketbench.core.config import get_settings
from basketbench.models import Base
from basketbench.models.result import schema_object_compared
from sqlalchemy import create_engine, pool

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url")
    return str(url) if url else get_settings().sqlalchemy_url


def run_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        compare_type=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(_url(), poolclass=pool.NullPool)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


def _run(connection: Any) -> None:
    # render_as_batch: SQLite can only ALTER through table copies.
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        include_object=schema_object_compared(connection.dialect.name),
        compare_type=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
