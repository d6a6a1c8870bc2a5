"""docker/api-entrypoint.sh for real: migrate a fresh PostgreSQL database, register the
workers' token from the environment (once), then exec the container's command."""

from __future__ import annotations

import os
import secrets
import subprocess
from pathlib import Path

import pytest
from basketbench.core.security import hash_token
from sqlalchemy import create_engine, text

from .support import REPO, VENV_BIN


@pytest.fixture
def database(pg_url: str) -> str:
    """A fresh, empty PostgreSQL database (tests/conftest.py), as the container sees it."""
    return pg_url


@pytest.fixture
def image_bin(tmp_path: Path) -> Path:
    """The image's /usr/local/bin: the bootstrap script under its installed name."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "basketbench-bootstrap-token").symlink_to(REPO / "docker" / "bootstrap_token.py")
    return bin_dir


def entrypoint(database: str, image_bin: Path, token: str, *command: str
               ) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env |= {
        "PATH": f"{image_bin}:{VENV_BIN}:{os.environ['PATH']}",
        "BASKETBENCH_DATABASE_URL": database,
        "BASKETBENCH_WORKER_TOKEN": token,
    }
    return subprocess.run(
        ["sh", str(REPO / "docker" / "api-entrypoint.sh"), *command],
        env=env, capture_output=True, text=True, timeout=180, check=False,
    )


def _token_rows(database: str) -> list[tuple[str, str]]:
    engine = create_engine(database)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT scope, token_hash FROM api_tokens")).all()
    engine.dispose()
    return [(r[0], r[1]) for r in rows]


@pytest.mark.integration
def test_migrates_registers_the_token_once_and_execs(database: str, image_bin: Path) -> None:
    token = secrets.token_hex(32)
    first = entrypoint(database, image_bin, token, "echo", "serving")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip().splitlines()[-1] == "serving"  # the command ran, last
    assert "worker token registered" in first.stdout
    rows = _token_rows(database)
    assert [h for _, h in rows] == [hash_token(token)]  # only the hash is stored
    assert [s for s, _ in rows] == ["machine"]  # workers run commits' code: a machine's job

    again = entrypoint(database, image_bin, token, "echo", "serving")
    assert again.returncode == 0, again.stderr
    assert "already registered" in again.stdout
    assert len(_token_rows(database)) == 1

    # the registered token authenticates with the backend's own check
    from basketbench.core.config import Settings
    from basketbench.core.db import make_engine, make_sessionmaker
    from basketbench.core.tokens import authenticate

    engine = make_engine(Settings(database_url=database))
    with make_sessionmaker(engine)() as session:
        assert authenticate(session, token) is not None
        assert authenticate(session, token + "x") is None
    engine.dispose()


@pytest.mark.integration
def test_a_weak_token_stops_the_container(database: str, image_bin: Path) -> None:
    done = entrypoint(database, image_bin, "short", "echo", "serving")
    assert done.returncode == 2
    assert "openssl rand -hex 32" in done.stderr
    assert "serving" not in done.stdout
    assert _token_rows(database) == []


def test_an_unreachable_database_stops_after_retries(image_bin: Path, tmp_path: Path) -> None:
    env_db = "postgresql+psycopg://postgres@127.0.0.1:1/none"  # nothing listens on port 1
    script = (REPO / "docker" / "api-entrypoint.sh").read_text()
    # Same script with a short retry budget, so the test does not wait a minute.
    quick = tmp_path / "entrypoint.sh"
    quick.write_text(script.replace('-ge 30 ]', '-ge 2 ]').replace("sleep 2", "sleep 0.1"))
    assert quick.read_text() != script
    env = {k: v for k, v in os.environ.items() if not k.startswith("BASKETBENCH_")}
    env |= {"PATH": f"{image_bin}:{VENV_BIN}:{os.environ['PATH']}",
            "BASKETBENCH_DATABASE_URL": env_db}
    done = subprocess.run(["sh", str(quick), "echo", "serving"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1
    assert "database migration failed after 2 attempts" in done.stderr
    assert "serving" not in done.stdout
