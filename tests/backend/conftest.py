"""Backend fixtures: one migrated PostgreSQL database per test session (tables emptied
before every test), a FastAPI TestClient on it, a token, and document factories."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from basketbench.app import create_app
from basketbench.core import migrate
from basketbench.core.config import Settings
from basketbench.core.tokens import create_token
from basketbench.models import Base
from bb_factories import make_settings
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text


@pytest.fixture(scope="session")
def backend_db_url(make_session_pg_database: Callable[[], str]) -> str:
    url = make_session_pg_database()
    migrate.upgrade(make_settings(url))
    return url


@pytest.fixture
def clean_db(backend_db_url: str) -> str:
    engine = create_engine(backend_db_url)
    tables = ", ".join(t.name for t in Base.metadata.sorted_tables)
    with engine.begin() as conn:
        conn.execute(text(f"TRUNCATE {tables} RESTART IDENTITY CASCADE"))
    engine.dispose()
    return backend_db_url


@pytest.fixture
def settings(clean_db: str) -> Settings:
    return make_settings(clean_db)


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as c:
        yield c


@pytest.fixture
def session(client: TestClient) -> Iterator[Any]:
    with client.app.state.sessionmaker() as s:  # type: ignore[attr-defined]
        yield s


@pytest.fixture
def token(session: Any) -> str:
    _, plain = create_token(session, "tests")
    return plain


@pytest.fixture
def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
