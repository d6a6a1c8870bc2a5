"""Issue 38: POST /changes/status with as many ids as the schema allows (100 000) works on
PostgreSQL and SQLite: no statement carries more bind parameters than a driver accepts
(psycopg 65 535, SQLite 32 766); the ids go in pieces, in one transaction."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.sqlutil import IN_CHUNK
from basketbench.core.tokens import create_token
from bb_factories import document, make_settings
from fastapi.testclient import TestClient
from sqlalchemy import event, text

MANY = 100_000  # BulkStatusIn's max_length
SQLITE_MAX_PARAMETERS = 32_766

COLUMNS = ("commit_id, machine_id, dataset_id, configuration_id, metric, kind, test, "
           "direction, delta_pct, state, status, evidence, confirmation, bisection, created_at")
ROW = ("r.commit_id, r.machine_id, r.dataset_id, r.configuration_id, 'compress_mbps', "
       "'speed', 'mwu', 'regression', -5.0, 'confirmed', 'open', '{}', '{}', '{}', "
       "CURRENT_TIMESTAMP")
PG_SEED = (f"INSERT INTO changes ({COLUMNS}) SELECT {ROW} FROM generate_series(1, {MANY}), "
           "(SELECT commit_id, machine_id, dataset_id, configuration_id FROM results "
           "LIMIT 1) r")
SQLITE_SEED = (f"INSERT INTO changes ({COLUMNS}) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
               f"SELECT i + 1 FROM n WHERE i < {MANY}) SELECT {ROW} FROM n, "
               "(SELECT commit_id, machine_id, dataset_id, configuration_id FROM results "
               "LIMIT 1) r")


@contextmanager
def largest_statement(engine: Any) -> Iterator[list[int]]:
    """The most bind parameters any statement had while inside."""
    most = [0]

    def count(_conn: Any, _cursor: Any, _stmt: str, params: Any, _ctx: Any,
              many: bool) -> None:
        sets = params if many else [params]
        for p in sets:
            most[0] = max(most[0], len(p) if p else 0)

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield most
    finally:
        event.remove(engine, "before_cursor_execute", count)


def bulk_status(client: TestClient, auth: dict[str, str], engine: Any, seed: str) -> None:
    assert client.post("/api/v1/results", json=document(), headers=auth).status_code == 201
    with engine.begin() as conn:
        conn.execute(text(seed))
        first, last = conn.execute(text("SELECT min(id), max(id) FROM changes")).one()
    assert last - first + 1 == MANY
    ids = list(range(first, last + 1))
    with largest_statement(engine) as most:
        r = client.post("/api/v1/changes/status", headers=auth, json={
            "change_ids": ids, "status": "ignored", "reason": "bulk"})
        assert r.status_code == 200, r.text[:500]
        assert r.json()["updated"] == MANY
        # one unknown id among 100 000: a 404 naming it, nothing changed
        r = client.post("/api/v1/changes/status", headers=auth, json={
            "change_ids": [*ids[1:], last + 1], "status": "open"})
        assert r.status_code == 404 and str(last + 1) in r.text
    assert 0 < most[0] <= IN_CHUNK + 10 < SQLITE_MAX_PARAMETERS
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM changes WHERE status = 'ignored' "
                                 "AND status_reason = 'bulk'")).scalar() == MANY


@pytest.mark.slow
def test_100000_ids_on_postgresql(client: TestClient, auth: dict[str, str]) -> None:
    bulk_status(client, auth, client.app.state.engine, PG_SEED)  # type: ignore[attr-defined]


@pytest.mark.slow
def test_100000_ids_on_sqlite(tmp_path: Path) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'bb.sqlite'}")
    migrate.upgrade(settings)
    app = create_app(settings)
    with TestClient(app) as client:
        with app.state.sessionmaker() as session:
            _, token = create_token(session, "t", "admin")
        bulk_status(client, {"Authorization": f"Bearer {token}"}, app.state.engine, SQLITE_SEED)
