"""branch_sizes: exact compressed bytes per branch and setting (issue 21)

Revision ID: 0012
Revises: 0010
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "branch_sizes",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite")),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_branch_sizes_commit_id_commits"),
            nullable=False),
        sa.Column("dataset_id", sa.Integer(), sa.ForeignKey(
            "datasets.id", ondelete="CASCADE", name="fk_branch_sizes_dataset_id_datasets"),
            nullable=False),
        sa.Column("codecs", sa.String(100), nullable=False),
        sa.Column("file", sa.String(1000), nullable=False),
        sa.Column("tree", sa.String(1000), nullable=False),
        sa.Column("branch", sa.String(1000), nullable=False),
        sa.Column("type_class", sa.String(20)),
        sa.Column("baskets", sa.Integer(), nullable=False),
        sa.Column("raw_bytes", sa.BigInteger(), nullable=False),
        sa.Column("setting", sa.Integer(), nullable=False),
        sa.Column("preconditioner", sa.String(20), nullable=False),
        sa.Column("compressed_bytes", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_branch_sizes"),
    )
    op.create_index("ix_branch_sizes_dataset_commit", "branch_sizes",
                    ["dataset_id", "commit_id", "codecs"])


def downgrade() -> None:
    op.drop_index("ix_branch_sizes_dataset_commit", table_name="branch_sizes")
    op.drop_table("branch_sizes")
