"""worker_tags: the hardware tags some worker serves, for run creation and expiry

Runs were created for every registered machine's tag, including tags only an ingested
document named: nothing ever took those runs. Existing machines that sent a heartbeat
(a worker's) seed the table.

Revision ID: 0013
Revises: 0010
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "worker_tags",
        sa.Column("tag", sa.String(100)),
        sa.Column("operator", sa.Boolean(), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expired_runs", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_expired_at", sa.DateTime(timezone=True)),
        sa.PrimaryKeyConstraint("tag", name="pk_worker_tags"),
    )
    op.execute(
        "INSERT INTO worker_tags (tag, operator, last_seen_at, created_at, expired_runs) "
        "SELECT tag, false, max(last_heartbeat), CURRENT_TIMESTAMP, 0 FROM machines "
        "WHERE last_heartbeat IS NOT NULL GROUP BY tag")


def downgrade() -> None:
    op.drop_table("worker_tags")
