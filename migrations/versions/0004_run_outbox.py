"""run outbox (run_dispatches), runs.generation and runs.heartbeat_at

The outbox row is written with the run, so a broker outage never loses a run; the
generation makes a requeued run's stale Celery message harmless; the heartbeat lets a
reaper requeue the run of a worker that was killed.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 05:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch_op:
        batch_op.add_column(sa.Column("generation", sa.Integer(), nullable=False,
                                      server_default="0"))
        batch_op.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True)))
    op.create_table(
        "run_dispatches",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey(
            "runs.id", ondelete="CASCADE", name="fk_run_dispatches_run_id_runs"),
            nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("tag", sa.String(100), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True)),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text()),
        sa.PrimaryKeyConstraint("id", name="pk_run_dispatches"),
        sa.UniqueConstraint("run_id", "generation",
                            name="uq_run_dispatches_run_id_generation"),
    )
    op.create_index("ix_run_dispatches_pending", "run_dispatches", ["sent_at", "due_at"])
    # Runs queued before this migration never had an outbox row: give them one, so the
    # dispatcher sends them (a run that was already sent is claimed once either way).
    op.execute(
        "INSERT INTO run_dispatches (run_id, generation, tag, created_at, due_at, tries) "
        "SELECT id, 0, tag, created_at, created_at, 0 FROM runs WHERE status = 'queued'")


def downgrade() -> None:
    op.drop_index("ix_run_dispatches_pending", table_name="run_dispatches")
    op.drop_table("run_dispatches")
    with op.batch_alter_table("runs") as batch_op:
        batch_op.drop_column("heartbeat_at")
        batch_op.drop_column("generation")
