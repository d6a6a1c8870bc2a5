"""results' references to documents, datasets and configurations on PostgreSQL: checked
once per statement by triggers (migration 0010), with what the foreign keys gave:
unknown ids refused, parents locked against deletion, deletes cascading, ids fixed."""

from __future__ import annotations

from types import SimpleNamespace

import psycopg
import pytest
from basketbench.models import Dataset, Result, ResultDocument
from bb_factories import document, sha
from sqlalchemy import func, select


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://")


def _count(session, model, *where) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(model).where(*where))


COLUMNS = ("document_id", "dataset_id", "configuration_id", "commit_id", "machine_id",
           "roundtrip_ok")


@pytest.fixture
def stored(client, auth, session) -> SimpleNamespace:
    """The columns of one stored result (plain values: the tests delete rows)."""
    r = client.post("/api/v1/results", json=document(datasets=("nanoaod", "physlite")),
                    headers=auth)
    assert r.status_code == 201, r.text
    row = session.scalar(select(Result).order_by(Result.id).limit(1))
    assert row is not None
    return SimpleNamespace(id=row.id, **{c: getattr(row, c) for c in COLUMNS})


@pytest.mark.parametrize("column", ["document_id", "dataset_id", "configuration_id"])
def test_an_unknown_id_is_refused_and_nothing_is_written(stored, clean_db, session, column):
    before = _count(session, Result)
    values = {c: getattr(stored, c) for c in COLUMNS}
    with psycopg.connect(_plain(clean_db)) as conn:
        with (pytest.raises(psycopg.errors.ForeignKeyViolation, match=f"{column} = 999999"),
              conn.cursor() as cur,
              cur.copy(f"COPY results ({', '.join(COLUMNS)}) FROM STDIN") as copy):
            copy.write_row(tuple(values[c] for c in COLUMNS))  # a good row first
            copy.write_row(tuple({**values, column: 999_999}[c] for c in COLUMNS))
        conn.rollback()
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            conn.execute(f"UPDATE results SET {column} = 999999 WHERE id = %s", (stored.id,))
    assert _count(session, Result) == before


def test_a_referenced_id_cannot_change(stored, clean_db):
    with (psycopg.connect(_plain(clean_db)) as conn,
          pytest.raises(psycopg.errors.ForeignKeyViolation, match="cannot change")):
        conn.execute("UPDATE datasets SET id = id + 1000 WHERE id = %s", (stored.dataset_id,))


def test_deleting_a_parent_deletes_its_results(stored, clean_db, session):
    total = _count(session, Result)
    in_dataset = _count(session, Result, Result.dataset_id == stored.dataset_id)
    with psycopg.connect(_plain(clean_db)) as conn:
        conn.execute("DELETE FROM datasets WHERE id = %s", (stored.dataset_id,))
    assert 0 < in_dataset < total
    assert _count(session, Result) == total - in_dataset
    left = _count(session, Result, Result.configuration_id == stored.configuration_id)
    assert left > 0
    with psycopg.connect(_plain(clean_db)) as conn:
        conn.execute("DELETE FROM configurations WHERE id = %s", (stored.configuration_id,))
    assert _count(session, Result) == total - in_dataset - left
    # A commit takes its documents (foreign key) and their results (trigger) along.
    with psycopg.connect(_plain(clean_db)) as conn:
        conn.execute("DELETE FROM commits WHERE id = %s", (stored.commit_id,))
    assert _count(session, ResultDocument) == 0 and _count(session, Result) == 0


def test_a_parent_in_use_by_an_open_insert_cannot_be_deleted(stored, clean_db, session):
    values = {c: getattr(stored, c) for c in COLUMNS}
    url = _plain(clean_db)
    with psycopg.connect(url) as writer, psycopg.connect(url) as deleter:
        writer.execute(f"INSERT INTO results ({', '.join(COLUMNS)}) VALUES "
                       f"({', '.join(['%s'] * len(COLUMNS))})", tuple(values.values()))
        # The writer's transaction is open: its dataset is locked FOR KEY SHARE.
        deleter.execute("SET lock_timeout = '200ms'")
        with pytest.raises(psycopg.errors.LockNotAvailable):
            deleter.execute("DELETE FROM datasets WHERE id = %s", (stored.dataset_id,))
        deleter.rollback()
        writer.commit()
        deleter.execute("DELETE FROM datasets WHERE id = %s", (stored.dataset_id,))
        deleter.commit()
    assert _count(session, Result, Result.dataset_id == stored.dataset_id) == 0


def test_ingest_after_a_cached_dataset_was_deleted_stores_everything(stored, clean_db, client,
                                                                       auth, session):
    """Ingest caches dataset ids; a deleted dataset makes the cached id unknown: the COPY
    is refused, and ingest reads the ids again and stores the document."""
    with psycopg.connect(_plain(clean_db)) as conn:
        conn.execute("DELETE FROM datasets WHERE name = 'nanoaod'")
    r = client.post("/api/v1/results", json=document(commit=sha(7), datasets=("nanoaod",)),
                    headers=auth)
    assert r.status_code == 201, r.text
    assert r.json()["results"] == 5
    new = session.scalar(select(Dataset).where(Dataset.name == "nanoaod"))
    assert new is not None and new.id != stored.dataset_id
    assert _count(session, Result, Result.dataset_id == new.id) == 5
