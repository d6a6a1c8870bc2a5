"""Declarative base and column helpers shared by every model."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, BigInteger, DateTime, Integer, MetaData
from sqlalchemy.orm import DeclarativeBase

# Stable constraint names so Alembic migrations are identical on PostgreSQL and SQLite.
NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLite only autoincrements INTEGER PRIMARY KEY.
BigId = BigInteger().with_variant(Integer(), "sqlite")
Timestamp = DateTime(timezone=True)
Json = JSON()


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(t: datetime) -> datetime:
    """A stored timestamp as an aware UTC datetime: SQLite gives them back without a zone."""
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
