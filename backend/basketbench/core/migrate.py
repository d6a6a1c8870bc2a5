"""Run Alembic migrations from code (serve, `basketbench db`, tests)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config

from basketbench.core.config import Settings

REPO_ROOT = Path(__file__).resolve().parents[3]


def alembic_config(settings: Settings) -> Config:
    ini = REPO_ROOT / "alembic.ini"
    cfg = Config(str(ini)) if ini.is_file() else Config()
    cfg.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    cfg.attributes["url"] = settings.sqlalchemy_url
    if settings.database_url is None:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
    return cfg


def upgrade(settings: Settings, revision: str = "head") -> None:
    command.upgrade(alembic_config(settings), revision)


def downgrade(settings: Settings, revision: str = "-1") -> None:
    command.downgrade(alembic_config(settings), revision)


def current(settings: Settings) -> str | None:
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine, pool

    engine = create_engine(settings.sqlalchemy_url, poolclass=pool.NullPool)
    with engine.connect() as conn:
        rev = MigrationContext.configure(conn).get_current_revision()
    engine.dispose()
    return rev
