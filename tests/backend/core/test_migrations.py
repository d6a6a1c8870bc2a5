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


def test_documents_made_before_builds_refer_to_one_row_per_build(db_url):
    """Migration 0043: each distinct combination of the documents' build columns (missing
    ones too) becomes one builds row, and every document refers to its own."""
    settings = Settings(database_url=db_url)
    migrate.upgrade(settings, "0042")
    engine = create_engine(db_url)
    builds = [("rzbench 0.1.0", "root", "ab" * 20, "cmake-zip", "3", "0f" * 32),
              ("rzbench 0.1.0", "root", "ab" * 20, "cmake-zip", "3", "1e" * 32),
              (None, None, None, None, None, None)]
    documents = {1: builds[0], 2: builds[1], 3: builds[0], 4: builds[2], 5: builds[2]}
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO repositories (id, name, created_at) "
                              "VALUES (1, 'r', CURRENT_TIMESTAMP)"))
            conn.execute(text("INSERT INTO commits (id, repository_id, sha, parents, \"order\", "
                              "created_at) VALUES (1, 1, :sha, '[]', 0, CURRENT_TIMESTAMP)"),
                         {"sha": "c" * 40})
            conn.execute(text("INSERT INTO machines (id, name, tag, version, fingerprint, "
                              "fingerprint_hash, registered_at, active) VALUES (1, 'm', 't', 1, "
                              "'{}', 'h', CURRENT_TIMESTAMP, true)"))
            for doc_id, (tool, backend, root, profile, version, harness) in documents.items():
                conn.execute(text(
                    "INSERT INTO result_documents (id, sha256, kind, commit_id, machine_id, "
                    "result_count, parameters, received_at, tool, backend, root_commit, "
                    "build_profile, build_profile_version, harness_hash) VALUES (:id, :sha, "
                    "'harness', 1, 1, 0, '{}', CURRENT_TIMESTAMP, :tool, :backend, :root, "
                    ":profile, :version, :harness)"),
                    {"id": doc_id, "sha": f"{doc_id:064d}", "tool": tool, "backend": backend,
                     "root": root, "profile": profile, "version": version,
                     "harness": harness})
        migrate.upgrade(settings)
        with engine.connect() as conn:
            rows = {row[0]: row[1] for row in conn.execute(text(
                "SELECT id, build_id FROM result_documents"))}
            stored = {row[0]: tuple(row[1:]) for row in conn.execute(text(
                "SELECT id, tool, backend, root_commit, build_profile, build_profile_version, "
                "harness_hash FROM builds"))}
    finally:
        engine.dispose()
    assert len(stored) == 3
    assert {doc_id: stored[build_id] for doc_id, build_id in rows.items()} == documents
