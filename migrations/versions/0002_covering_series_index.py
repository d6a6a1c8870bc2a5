"""covering index for history (index-only scans on PostgreSQL)

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-20 23:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ["machine_id", "dataset_id", "configuration_id", "commit_id"]
INCLUDE = ["ratio", "compressed_bytes", "c_median", "c_min", "c_max", "c_stddev", "c_n",
           "d_median", "d_min", "d_max", "d_stddev", "d_n", "run_id"]


def upgrade() -> None:
    with op.batch_alter_table("results") as batch_op:
        batch_op.drop_index("ix_results_series")
        batch_op.create_index("ix_results_series", COLUMNS, postgresql_include=INCLUDE)


def downgrade() -> None:
    with op.batch_alter_table("results") as batch_op:
        batch_op.drop_index("ix_results_series")
        batch_op.create_index("ix_results_series", COLUMNS)
