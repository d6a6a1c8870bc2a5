"""Engine and session factory; works on PostgreSQL (psycopg 3) and SQLite."""

from __future__ import annotations

import math
import weakref
from typing import Any

import orjson
import psycopg
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from basketbench.core.config import Settings


def make_engine(settings: Settings) -> Engine:
    url = settings.sqlalchemy_url
    if url.startswith("sqlite"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            from pathlib import Path

            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **_common_kwargs(), connect_args={
            "check_same_thread": False, "timeout": 30})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    engine = _postgres_engine(settings, settings.db_pool_size, settings.db_max_overflow)
    # Short side transactions (catalog/commits.py) take their connections from a small
    # pool of their own: taking a second one from the main pool while the request holds
    # one could deadlock that pool. Pooled, not opened per call: a new connection costs
    # a PostgreSQL backend start (~10 ms of ingest for a new commit).
    aside = _aside[engine] = _postgres_engine(settings, ASIDE_POOL_SIZE, ASIDE_MAX_OVERFLOW)
    # Disposing the engine closes the side pool too (a database can then be dropped).
    event.listen(engine, "engine_disposed", lambda _conn: aside.dispose())
    return engine


ASIDE_POOL_SIZE = 2
ASIDE_MAX_OVERFLOW = 4


def _common_kwargs() -> dict[str, Any]:
    # orjson parses the JSON sample arrays several times faster than the stdlib.
    return {"future": True, "json_deserializer": orjson.loads, "json_serializer": _dumps}


def _postgres_engine(settings: Settings, pool_size: int, max_overflow: int) -> Engine:
    engine = create_engine(
        settings.sqlalchemy_url, **_common_kwargs(), pool_size=pool_size,
        max_overflow=max_overflow,
        # A request never queues long for a connection: 503 rather than a hang.
        pool_timeout=settings.db_pool_timeout,
        connect_args=postgres_connect_args(settings),
        pool_pre_ping=settings.db_statement_timeout <= 0)
    event.listen(engine, "connect", _psycopg_setup)
    if settings.db_statement_timeout > 0:
        # Pings every checkout (replaces pool_pre_ping) and cuts connections whose server
        # does not answer: see core/dbguard.py.
        from basketbench.core.dbguard import StatementGuard

        StatementGuard(settings.db_statement_timeout + 2.0,
                       settings.db_ping_timeout).install(engine)
    return engine


_aside: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()


def engine_of(session: Session) -> Engine:
    """The engine a session is bound to (per-engine caches key on it)."""
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def aside_engine(engine: Engine) -> Engine | None:
    """An unpooled engine on the same PostgreSQL database, for short side transactions."""
    return _aside.get(engine)


def unavailable_within(settings: Settings) -> float:
    """The longest a request waits on a PostgreSQL that accepts connections and never
    answers, before its 503: the checkout ping's deadline, at most one watchdog tick, then
    one new connection's connect timeout (SQLAlchemy replaces a connection whose ping
    failed, once). A cold pool costs the connect alone, a full pool db_pool_timeout. The
    defaults give 1.5 + 0.1 + 3 = 4.6 s (docs/configuration.md); without a statement
    timeout nothing bounds the wait."""
    if settings.db_statement_timeout <= 0:
        return math.inf
    from basketbench.core.dbguard import TICK

    ping = min(settings.db_statement_timeout + 2.0, settings.db_ping_timeout)
    connect = float(postgres_connect_args(settings)["connect_timeout"])
    return max(ping + TICK + connect, settings.db_pool_timeout)


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


class _BinaryResultsCursor(psycopg.Cursor[Any]):
    """Results in PostgreSQL's binary format unless a call asks otherwise: the server skips
    formatting every float as text and psycopg parsing it back (history's 2 000 rows:
    query 5.3 -> 3.9 ms, loading 3.3 -> 1.9 ms). Python values are the same."""

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None,
                binary: bool | None = None) -> Any:
        return super().execute(query, params, prepare=prepare,
                               binary=True if binary is None else binary)


def _psycopg_setup(dbapi_conn: Any, _record: Any) -> None:
    """Per new connection: binary results, and orjson for the JSON columns of ingest's
    binary COPY (results/ingest.py). Set once per connection: psycopg's set_json_dumps
    makes new dumper classes at every call, and called per ingest they piled up until
    class creation took 71 % of the API's CPU (seeding 10 000 documents never finished)."""
    from psycopg.types.json import set_json_dumps

    conn = getattr(dbapi_conn, "driver_connection", dbapi_conn)
    conn.cursor_factory = _BinaryResultsCursor
    set_json_dumps(orjson.dumps, conn)


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets the API read while an embedded worker writes.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, future=True)
