"""notification outbox: pending deliveries, their claims and every attempt

A delivery row is written ``pending`` with the changes that cause it; the API processes'
notification dispatchers claim it (a lease, bumped ``claims``), send it, and retry it with
back-off, so an API restart during the retries loses nothing.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 20:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("notification_deliveries") as batch_op:
        batch_op.add_column(sa.Column("due_at", sa.DateTime(timezone=True)))
        batch_op.add_column(sa.Column("lease_until", sa.DateTime(timezone=True)))
        batch_op.add_column(sa.Column("claims", sa.Integer(), nullable=False,
                                      server_default="0"))
        batch_op.add_column(sa.Column("sent_at", sa.DateTime(timezone=True)))
        batch_op.add_column(sa.Column("attempt_log", sa.JSON(), nullable=True))
        batch_op.create_index("ix_notification_deliveries_due", ["status", "due_at"])
    # Rows from before the outbox were sent (or given up) at once: their log is empty.
    op.execute("UPDATE notification_deliveries SET attempt_log = '[]'")
    op.execute("UPDATE notification_deliveries SET sent_at = created_at WHERE status = 'sent'")
    with op.batch_alter_table("notification_deliveries") as batch_op:
        batch_op.alter_column("attempt_log", existing_type=sa.JSON(), nullable=False)


def downgrade() -> None:
    # Pending deliveries cannot be kept by the old code, which sent at once: drop them.
    op.execute("DELETE FROM notification_deliveries WHERE status = 'pending'")
    with op.batch_alter_table("notification_deliveries") as batch_op:
        batch_op.drop_index("ix_notification_deliveries_due")
        batch_op.drop_column("attempt_log")
        batch_op.drop_column("sent_at")
        batch_op.drop_column("claims")
        batch_op.drop_column("lease_until")
        batch_op.drop_column("due_at")
