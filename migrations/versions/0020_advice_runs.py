"""advice_runs: `basketbench advise` on a file of a worker's data root, run by a worker (issue 21)

Revision ID: 0020
Revises: 0014
Create Date: 2026-11-26 02:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "advice_runs",
        sa.Column("run_id", sa.Integer(), sa.ForeignKey(
            "runs.id", ondelete="CASCADE", name="fk_advice_runs_run_id_runs"), nullable=False),
        sa.Column("path", sa.String(1000), nullable=False),
        sa.Column("document", sa.JSON()),
        sa.PrimaryKeyConstraint("run_id", name="pk_advice_runs"),
    )


def downgrade() -> None:
    op.drop_table("advice_runs")
