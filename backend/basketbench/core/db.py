"""Engine and session factory; works on PostgreSQL (psycopg 3) and SQLite."""

from __future__ import annotations

from typing import Any

import orjson
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

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
        kwargs["pool_pre_ping"] = True
    engine = create_engine(url, **kwargs)
    if url.startswith("sqlite"):
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    # WAL lets the API read while an embedded worker writes.
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.close()


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False, future=True)
