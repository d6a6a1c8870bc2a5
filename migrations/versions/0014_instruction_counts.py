"""results: instruction counts beside the speeds; result_documents: the machine's load

Counted runs (`basketbench run --instructions`, suites with `instructions = true`) carry, per
result and operation, the instructions of one counted pass, the same per uncompressed MB and the
estimated cycles per MB (measure/rzbench/counting.py). Every document records the machine's load around
its run and whether it was busy (measure/rzbench/noise.py): a busy run's speeds are not tested.

Revision ID: 0014
Revises: 0010
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNT_COLUMNS = (
    ("c_instructions", sa.BigInteger()),
    ("c_instructions_per_mb", sa.Float()),
    ("c_cycles_per_mb", sa.Float()),
    ("d_instructions", sa.BigInteger()),
    ("d_instructions_per_mb", sa.Float()),
    ("d_cycles_per_mb", sa.Float()),
)


def upgrade() -> None:
    # Nullable columns without defaults: a catalog-only change on PostgreSQL, no table rewrite.
    with op.batch_alter_table("results") as batch:
        for name, type_ in COUNT_COLUMNS:
            batch.add_column(sa.Column(name, type_, nullable=True))
    with op.batch_alter_table("result_documents") as batch:
        batch.add_column(sa.Column("load", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("busy", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.drop_column("busy")
        batch.drop_column("load")
    with op.batch_alter_table("results") as batch:
        for name, _type in reversed(COUNT_COLUMNS):
            batch.drop_column(name)
