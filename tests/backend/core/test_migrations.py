"""Alembic migrations up and down, on PostgreSQL and on SQLite, and in sync with the models."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from basketbench.core import migrate
from basketbench.core.config import Settings
from basketbench.models import Base
from basketbench.models.result import schema_object_compared
from sqlalchemy import create_engine, inspect, text

TABLES = {t.name for t in Base.metadata.sorted_tables}


def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            ctx = MigrationContext.configure(conn, opts={
                "compare_type": True,
                "include_object": schema_object_compared(conn.dialect.name)})
            return list(compare_metadata(ctx, Base.metadata))
    finally:
        engine.dispose()


@pytest.fixture(params=["postgresql", "sqlite"])
def db_url(request, pg_url, tmp_path) -> str:
    return pg_url if request.param == "postgresql" else f"sqlite:///{tmp_path / 'bb.sqlite'}"


def test_upgrade_downgrade_upgrade(db_url):
    settings = Settings(database_url=db_url)
    assert _tables(db_url) == set()
    migrate.upgrade(settings)
    assert _tables(db_url) == TABLES
    assert migrate.current(settings) is not None
    assert _diff(db_url) == [], "models and migrations differ: write a migration"
    if db_url.startswith("postgresql"):
        engine = create_engine(db_url)
        with engine.connect() as conn:
            indexdef = conn.execute(text(
                "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_results_series'")
            ).scalar_one()
        engine.dispose()
        assert "INCLUDE (ratio" in indexdef  # history reads the index only
    migrate.downgrade(settings, "base")
    assert _tables(db_url) == set()
    assert migrate.current(settings) is None
    migrate.upgrade(settings)
    assert _tables(db_url) == TABLES


def test_embedded_default_is_a_sqlite_file_under_the_data_dir(tmp_path):
    settings = Settings(database_url=None, data_dir=tmp_path / "data")
    assert settings.sqlalchemy_url == f"sqlite:///{tmp_path / 'data' / 'basketbench.sqlite'}"
    migrate.upgrade(settings)
    assert (tmp_path / "data" / "basketbench.sqlite").is_file()
    assert _tables(settings.sqlalchemy_url) == TABLES


def test_tokens_made_before_scopes_get_a_stated_one(db_url):
    """Migration 0023: the embedded runner's and the compose workers' tokens become machine
    tokens, every other token admin (it could do everything before)."""
    settings = Settings(database_url=db_url)
    migrate.upgrade(settings, "0021")
    engine = create_engine(db_url)
    names = ["embedded-runner", "workers (BASKETBENCH_WORKER_TOKEN)", "ci"]
    try:
        with engine.begin() as conn:
            for i, name in enumerate(names):
                conn.execute(text("INSERT INTO api_tokens (name, token_hash, created_at) "
                                  "VALUES (:n, :h, CURRENT_TIMESTAMP)"),
                             {"n": name, "h": f"{i:064d}"})
        migrate.upgrade(settings)
        with engine.connect() as conn:
            scopes = dict(conn.execute(text("SELECT name, scope FROM api_tokens")).all())
    finally:
        engine.dispose()
    assert scopes == {"embedded-runner": "machine",
                      "workers (BASKETBENCH_WORKER_TOKEN)": "machine", "ci": "admin"}
