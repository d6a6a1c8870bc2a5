"""Operational records: webhook deliveries and API tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from basketbench.models.base import Base, Json, Timestamp, utcnow


class WebhookDelivery(Base):
    """``X-GitHub-Delivery`` ids already handled: a redelivery creates nothing twice."""

    __tablename__ = "webhook_deliveries"

    id: Mapped[int] = mapped_column(primary_key=True)
    delivery_id: Mapped[str] = mapped_column(String(100), unique=True)
    event: Mapped[str] = mapped_column(String(50))
    status: Mapped[str] = mapped_column(String(20))
    run_ids: Mapped[list[int]] = mapped_column(Json, default=list)
    detail: Mapped[str | None] = mapped_column(Text)
    received_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)


# What a token may do (issue 38). A worker's token runs next to commits' code, so it can do
# a machine's job and nothing else; people trigger and triage with user tokens; tokens and
# worker tags are an administrator's. "admin" implies "user" and "machine".
TOKEN_SCOPES = ("machine", "user", "admin")


class ApiToken(Base):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    scope: Mapped[str] = mapped_column(String(20), default="user")
    # A machine token limited to these hardware tags (claims runs of them only); None: any.
    tags: Mapped[list[str] | None] = mapped_column(Json)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(Timestamp, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(Timestamp)
    revoked_at: Mapped[datetime | None] = mapped_column(Timestamp)
