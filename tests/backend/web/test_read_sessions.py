"""History reads in autocommit (web/deps.run_read): no BEGIN before its first statement and
no ROLLBACK after, and every pooled connection is transactional again for the sessions
that write."""

from __future__ import annotations

from typing import Any

from basketbench.web.deps import _in_session
from psycopg.pq import TransactionStatus
from sqlalchemy import text


def _state(session: Any) -> tuple[bool, TransactionStatus]:
    session.execute(text("SELECT 1"))
    dbapi = session.connection().connection.dbapi_connection
    return dbapi.autocommit, dbapi.info.transaction_status


def test_a_read_runs_in_autocommit_and_hands_back_a_transactional_connection(client):
    make = client.app.state.sessionmaker
    pooled = client.app.state.engine.pool.size() + 1
    for _ in range(pooled):
        assert _in_session(make, _state, (), True) == (True, TransactionStatus.IDLE)
    # Whichever connection the pool hands out next, a session that may write is in a
    # transaction after its first statement, as before.
    for _ in range(pooled):
        assert _in_session(make, _state, (), False) == (False, TransactionStatus.INTRANS)
