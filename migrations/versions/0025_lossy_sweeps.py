"""lossy_sweeps, lossy_results: `basketbench lossy` per column, representation, bits and setting (issue 36)

Revision ID: 0025
Revises: 0021
Create Date: 2026-11-27 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0025"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lossy_sweeps",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_lossy_sweeps_commit_id_commits"),
            nullable=False),
        sa.Column("file", sa.String(300), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("codecs", sa.String(100), nullable=False),
        sa.Column("tool", sa.String(100)),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("columns", sa.Integer(), nullable=False),
        sa.Column("physics", sa.JSON(), nullable=False),
        sa.Column("notes", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_lossy_sweeps"),
        sa.UniqueConstraint("commit_id", "file_sha256", "codecs",
                            name="uq_lossy_sweeps_identity"),
    )
    op.create_index("ix_lossy_sweeps_file", "lossy_sweeps", ["file", "codecs"])
    op.create_table(
        "lossy_results",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("sweep_id", sa.Integer(), sa.ForeignKey(
            "lossy_sweeps.id", ondelete="CASCADE", name="fk_lossy_results_sweep_id_lossy_sweeps"),
            nullable=False),
        sa.Column("column", sa.String(300), nullable=False),
        sa.Column("representation", sa.String(10), nullable=False),
        sa.Column("bits", sa.Integer(), nullable=False),
        sa.Column("setting", sa.Integer(), nullable=False),
        sa.Column("compressed_bytes", sa.BigInteger(), nullable=False),
        sa.Column("uncompressed_bytes", sa.BigInteger(), nullable=False),
        sa.Column("max_abs_error", sa.Float(), nullable=False),
        sa.Column("max_rel_error", sa.Float(), nullable=False),
        sa.Column("rms_rel_error", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_lossy_results"),
    )
    op.create_index("ix_lossy_results_sweep", "lossy_results", ["sweep_id", "setting", "column"])
    op.create_index("ix_lossy_results_series", "lossy_results",
                    ["column", "representation", "bits", "setting"])


def downgrade() -> None:
    op.drop_table("lossy_results")
    op.drop_table("lossy_sweeps")
