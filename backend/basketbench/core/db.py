"""Engine and session factory; works on PostgreSQL (psycopg 3) and SQLite."""

from __future__ import annotations

import weakref
from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from basketbench.core.config import Settings


def make_engine(settings: Settings) -> Engine:
    url = settings.sqlalchemy_url
    # orjson parses the JSON sample arrays several times faster than the stdlib.
    kwargs: dict[str, Any] = {"future": True, "json_deserializer": orjson.loads,
                              "json_serializer": _dumps}
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            from pathlib import Path

            Path(path).parent.mkdir(parents=True, exist_ok=True)
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_size"] = settings.db_pool_size
        kwargs["max_overflow"] = settings.db_max_overflow
        # A request never queues long for a connection: 503 rather than a hang.
        kwargs["pool_timeout"] = settings.db_pool_timeout
        kwargs["connect_args"] = postgres_connect_args(settings)
        kwargs["pool_pre_ping"] = settings.db_statement_timeout <= 0
    engine = create_engine(url, **kwargs)
    if not url.startswith("sqlite"):
        # Short side transactions (services/commits.py) open their own connection: taking
        # a second one from the pool while the request holds one could deadlock the pool.
        _aside[engine] = create_engine(url, poolclass=NullPool,
                                       connect_args=kwargs["connect_args"])
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    event.listen(engine, "connect", _psycopg_json)
    if settings.db_statement_timeout > 0:
        # Pings every checkout (replaces pool_pre_ping) and cuts connections whose server
        # does not answer: see core/dbguard.py.
        from basketbench.core.dbguard import StatementGuard

        StatementGuard(settings.db_statement_timeout + 2.0).install(engine)
    return engine


_aside: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def aside_engine(engine: Engine) -> Engine | None:
    """An unpooled engine on the same PostgreSQL database, for short side transactions."""
    return _aside.get(engine)


def postgres_connect_args(settings: Settings) -> dict[str, Any]:
    """libpq options: bounded connect, server-side statement limit, TCP keepalives so a
    vanished server is noticed on idle pooled connections too."""
    args: dict[str, Any] = {
        "connect_timeout": max(2, int(settings.db_connect_timeout)),
        "keepalives": 1, "keepalives_idle": 30, "keepalives_interval": 10,
        "keepalives_count": 3,
    }
    if settings.db_statement_timeout > 0:
        args["options"] = f"-c statement_timeout={int(settings.db_statement_timeout * 1000)}"
    return args


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _psycopg_json(dbapi_conn: Any, _record: Any) -> None:
    """orjson for the JSON columns of ingest's binary COPY (services/ingest.py), set once
    per connection: psycopg's set_json_dumps makes new dumper classes at every call, and
    called per ingest they piled up until class creation took 71 % of the API's CPU
    (seeding 10 000 documents never finished)."""
    from psycopg.types.json import set_json_dumps

    set_json_dumps(orjson.dumps, getattr(dbapi_conn, "driver_connection", dbapi_conn))


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets the API read while an embedded worker writes.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, future=True)
