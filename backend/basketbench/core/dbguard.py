"""A client-side deadline for PostgreSQL statements.

``statement_timeout`` is enforced by the server, so it cannot help when the server (or
the network in between) stops answering: psycopg would wait for the reply forever. The
guard notes when each statement (and each pool ping) starts on a connection, and a
watchdog thread shuts down the socket of any connection still waiting past the deadline.
psycopg then raises OperationalError, SQLAlchemy invalidates the connection, and the
request answers 503 instead of hanging. The next checkout opens a fresh connection, so
the API recovers by itself when the database is back.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, event, exc

log = logging.getLogger(__name__)


# How often the watchdog looks: a late connection is cut at most this long after its
# deadline (part of the 503 budget, core/db.py unavailable_within).
TICK = 0.1
# Every guarded connection now waiting for the server, process-wide (one watchdog thread):
# id(dbapi connection) -> (connection, monotonic deadline).
_busy: dict[int, tuple[Any, float]] = {}
_lock = threading.Lock()
_watchdog: threading.Thread | None = None
cut_count = 0
_guards: weakref.WeakKeyDictionary[Engine, StatementGuard] = weakref.WeakKeyDictionary()


class StatementGuard:
    def __init__(self, deadline: float, ping_deadline: float | None = None) -> None:
        self.deadline = deadline
        # The checkout ping is one trivial round trip: waiting a statement's deadline for
        # it made every read of a silent database take 17-20 s.
        self.ping_deadline = min(deadline, ping_deadline or deadline)

    def install(self, engine: Engine) -> None:
        _guards[engine] = self
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)
        event.listen(engine, "handle_error", self._error)
        event.listen(engine, "checkin", self._checkin)
        event.listen(engine.pool, "checkout", self._ping)
        _start_watchdog()

    def begin(self, dbapi_conn: Any, deadline: float | None = None) -> None:
        until = time.monotonic() + (self.deadline if deadline is None else deadline)
        with _lock:
            _busy[id(dbapi_conn)] = (dbapi_conn, until)

    def end(self, dbapi_conn: Any) -> None:
        with _lock:
            _busy.pop(id(dbapi_conn), None)

    def _before(self, conn: Any, _cursor: Any, *_args: Any) -> None:
        self.begin(conn.connection.dbapi_connection)

    def _after(self, conn: Any, _cursor: Any, *_args: Any) -> None:
        self.end(conn.connection.dbapi_connection)

    def _error(self, context: Any) -> None:
        fairy = getattr(context.connection, "connection", None) if context.connection else None
        dbapi = getattr(fairy, "dbapi_connection", None)
        if dbapi is not None:
            self.end(dbapi)

    def _checkin(self, dbapi_conn: Any, _record: Any) -> None:
        if dbapi_conn is not None:
            self.end(dbapi_conn)

    def _ping(self, dbapi_conn: Any, _record: Any, _proxy: Any) -> None:
        """Pessimistic ping on checkout, under the deadline (pool_pre_ping has no hook):
        a dead connection is replaced by a fresh one (DisconnectionError retries)."""
        self.begin(dbapi_conn, self.ping_deadline)
        # In autocommit, so the ping opens no transaction: one round trip, not two
        # (BEGIN, then SELECT 1), and a session that reads in autocommit
        # (web/deps.run_read) can still switch the connection to it afterwards.
        driver = getattr(dbapi_conn, "driver_connection", dbapi_conn)
        restore = getattr(driver, "autocommit", None) is False
        try:
            if restore:
                driver.autocommit = True
            cur = dbapi_conn.cursor()
            try:
                cur.execute("SELECT 1")
            finally:
                cur.close()
            if restore:  # (a connection whose ping failed is replaced, not restored)
                driver.autocommit = False
        except Exception as error:
            raise exc.DisconnectionError(str(error)) from error
        finally:
            self.end(dbapi_conn)


@contextmanager
def watched(engine: Engine, dbapi_conn: Any) -> Iterator[None]:
    """The statement deadline around work done on the driver connection directly (ingest's
    COPY), which SQLAlchemy's cursor events do not see."""
    guard = _guards.get(engine)
    if guard is None:
        yield
        return
    guard.begin(dbapi_conn)
    try:
        yield
    finally:
        guard.end(dbapi_conn)


def _start_watchdog() -> None:
    global _watchdog
    with _lock:
        if _watchdog is None or not _watchdog.is_alive():
            _watchdog = threading.Thread(target=_watch, name="basketbench-dbguard", daemon=True)
            _watchdog.start()


def _watch() -> None:
    while True:
        time.sleep(TICK)
        now = time.monotonic()
        with _lock:
            late = [(k, c) for k, (c, until) in _busy.items() if now > until]
            for key, _ in late:
                _busy.pop(key, None)
        for _, conn in late:
            _cut(conn)


def _cut(dbapi_conn: Any) -> None:
    global cut_count
    try:
        fd = dbapi_conn.pgconn.socket
        dup = socket.socket(fileno=os.dup(fd))
    except Exception:  # already closed
        return
    try:
        dup.shutdown(socket.SHUT_RDWR)
        cut_count += 1
        log.warning("database did not answer in time: connection cut")
    except OSError:
        pass
    finally:
        dup.close()
