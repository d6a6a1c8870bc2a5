"""A seeded history shared by the guards of this folder: ``bench.seed``'s synthetic world,
small enough to seed in seconds, large enough that PostgreSQL's planner chooses as it does
at scale (the plans are checked on it after ANALYZE), and fixed (the world is a pure
function of its seed), so answer sizes and statement counts are reproducible."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from basketbench.app import create_app
from basketbench.arena.ingest import ingest as ingest_arena
from basketbench.models import Change, Commit, Machine, Repository
from bb_factories import arena_document, make_settings
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from bench.seed import seed
from bench.world import World

# 1 000 commits x 3 machines x 2 datasets x 12 configurations: 72 000 results and 3 000
# documents (the full benchmark: 2 000 x 3 x 8 x 108).
WORLD = World(commits=1000, machines=3, datasets=2, configurations=12, seed=7)


@pytest.fixture(scope="session")
def seeded_url(make_session_pg_database: Callable[[], str], pg_admin_url: str) -> str:
    """The seeded history the read guards share: never written to (a rolled-back write
    still leaves dead rows and clears the visibility map, and the plans would change)."""
    return _seeded(make_session_pg_database(), pg_admin_url)


@pytest.fixture(scope="module")
def writable_seeded_url(make_session_pg_database: Callable[[], str], pg_admin_url: str) -> str:
    """The same history in a database of its own, for a guard that writes (seconds)."""
    return _seeded(make_session_pg_database(), pg_admin_url)


def _seeded(url: str, pg_admin_url: str) -> str:
    seed(WORLD, url.rsplit("/", 1)[1], pg_admin_url, progress=False, create=False)
    engine = create_engine(url)
    with Session(engine) as session:
        # One recorded change, so /changes and /changes/{id} answer with a record.
        session.add(Change(commit_id=WORLD.commits, parent_commit_id=WORLD.commits - 1,
                           machine_id=1, dataset_id=1, configuration_id=1,
                           metric="compress_mbps", kind="speed", test="mann-whitney",
                           direction="regression", base_value=100.0, head_value=90.0,
                           delta_pct=-10.0, p_value=0.001, q_value=0.01, state="confirmed"))
        session.commit()
        # Three arena runs of HZZ on bench-haswell (the newest commits' builds as ROOT's
        # reference), so /arena and /arena/history answer with rows.
        machine = session.scalar(select(Machine.id).where(Machine.name == "bench-haswell"))
        repo = session.scalar(select(Repository.name))
        shas = session.scalars(select(Commit.sha).order_by(Commit.order.desc()).limit(3))
        for i, commit in enumerate(shas):
            ingest_arena(session, make_settings(url), {
                "machine_id": machine, "commit": commit, "repository": repo,
                "document": arena_document(seed=i)})
    engine.dispose()
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1),
                         autocommit=True) as conn:
        # As a serving database is: analysed, and the documents' pages all-visible (the
        # provenance reads are index-only scans; their cost depends on it).
        conn.execute("VACUUM ANALYZE result_documents")
        pages, visible = conn.execute("SELECT relpages, relallvisible FROM pg_class "
                                      "WHERE relname = 'result_documents'").fetchone()
        assert visible == pages, f"VACUUM left {pages - visible} of {pages} pages not " \
                                 "all-visible (a transaction open on this database?)"
    return url


@pytest.fixture(scope="session")
def seeded_psycopg(seeded_url: str) -> Iterator[psycopg.Connection[Any]]:
    """A plain connection to the seeded database (EXPLAIN, planted indexes)."""
    with psycopg.connect(seeded_url.replace("postgresql+psycopg://", "postgresql://", 1),
                         autocommit=True) as conn:
        yield conn


@pytest.fixture(scope="module")
def reads(seeded_url: str) -> Iterator[TestClient]:
    """The API on the seeded database with nothing running in the background (no
    dispatch, no detection sweeper), so every statement counted is the request's."""
    settings = make_settings(seeded_url, detection=False)
    with TestClient(create_app(settings)) as client:
        yield client
