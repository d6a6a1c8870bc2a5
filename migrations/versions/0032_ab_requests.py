"""ab_requests: a queued interleaved A/B of two commits on a worker of a tag (issue 32)

Revision ID: 0032
Revises: 0025
Create Date: 2026-11-27 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ab_requests",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey(
            "runs.id", ondelete="CASCADE", name="fk_ab_requests_run_id_runs"), nullable=False),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_ab_requests_commit_id_commits"),
            nullable=False),
        sa.Column("reference_commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE",
            name="fk_ab_requests_reference_commit_id_commits"), nullable=False),
        sa.Column("reference_kind", sa.String(20), nullable=False),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("machine_id", sa.Integer(), sa.ForeignKey(
            "machines.id", ondelete="SET NULL", name="fk_ab_requests_machine_id_machines")),
        sa.Column("requested_by", sa.String(200)),
        sa.PrimaryKeyConstraint("run_id", name="pk_ab_requests"),
    )
    op.create_index("ix_ab_requests_pair", "ab_requests", ["reference_commit_id", "commit_id"])


def downgrade() -> None:
    op.drop_table("ab_requests")
