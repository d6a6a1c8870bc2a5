"""datasets: kind (ttree | rntuple | mixed) and the page size of a re-paged RNTuple dataset

The harness reports both per dataset (datasets[].kind, datasets[].page_size, optional); older
documents leave them null.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("datasets") as batch:
        batch.add_column(sa.Column("kind", sa.String(length=10), nullable=True))
        batch.add_column(sa.Column("page_size", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("datasets") as batch:
        batch.drop_column("page_size")
        batch.drop_column("kind")
