"""detection outbox (detection_queue): documents whose commit is still to be screened

Written with the document, taken by the machine's next detection pass: detection no
longer waits for a lock holding a database connection, and survives an API restart.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 02:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "detection_queue",
        sa.Column("id", sa.Integer()),
        sa.Column("document_id", sa.Integer(), sa.ForeignKey(
            "result_documents.id", ondelete="CASCADE",
            name="fk_detection_queue_document_id_result_documents"), nullable=False),
        sa.Column("machine_id", sa.Integer(), sa.ForeignKey(
            "machines.id", ondelete="CASCADE", name="fk_detection_queue_machine_id_machines"),
            nullable=False),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_detection_queue_commit_id_commits"),
            nullable=False),
        sa.Column("run_id", sa.Integer()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True)),
        sa.Column("tries", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text()),
        sa.PrimaryKeyConstraint("id", name="pk_detection_queue"),
        sa.UniqueConstraint("document_id", name="uq_detection_queue_document_id"),
    )
    op.create_index("ix_detection_queue_machine", "detection_queue", ["machine_id", "due_at"])


def downgrade() -> None:
    op.drop_index("ix_detection_queue_machine", table_name="detection_queue")
    op.drop_table("detection_queue")
