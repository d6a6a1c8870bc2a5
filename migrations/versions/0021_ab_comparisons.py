"""ab_runs, ab_effects: interleaved A/B speed comparisons of two builds on one machine (issue 32)

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-27 07:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "ab_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey(
            "runs.id", ondelete="SET NULL", name="fk_ab_runs_run_id_runs")),
        sa.Column("machine_id", sa.Integer(), sa.ForeignKey(
            "machines.id", ondelete="CASCADE", name="fk_ab_runs_machine_id_machines"),
            nullable=False),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_ab_runs_commit_id_commits"),
            nullable=False),
        sa.Column("reference_kind", sa.String(20), nullable=False),
        sa.Column("reference_commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="SET NULL", name="fk_ab_runs_reference_commit_id_commits")),
        sa.Column("reference_label", sa.String(100)),
        sa.Column("origin", sa.String(20), nullable=False),
        sa.Column("codec_set_id", sa.Integer(), sa.ForeignKey(
            "codec_sets.id", ondelete="RESTRICT", name="fk_ab_runs_codec_set_id_codec_sets")),
        sa.Column("disturbed_fraction", sa.Float()),
        sa.Column("method", sa.JSON(), nullable=False),
        sa.Column("load", sa.JSON()),
        sa.Column("error", sa.Text()),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ab_runs"),
    )
    op.create_index("ix_ab_runs_machine_commit", "ab_runs", ["machine_id", "commit_id"])
    op.create_index("ix_ab_runs_run_id", "ab_runs", ["run_id"])
    op.create_table(
        "ab_effects",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("ab_run_id", sa.Integer(), sa.ForeignKey(
            "ab_runs.id", ondelete="CASCADE", name="fk_ab_effects_ab_run_id_ab_runs"),
            nullable=False),
        sa.Column("dataset_id", sa.Integer(), sa.ForeignKey(
            "datasets.id", ondelete="CASCADE", name="fk_ab_effects_dataset_id_datasets"),
            nullable=False),
        sa.Column("configuration_id", sa.Integer(), sa.ForeignKey(
            "configurations.id", ondelete="CASCADE",
            name="fk_ab_effects_configuration_id_configurations"), nullable=False),
        sa.Column("metric", sa.String(30), nullable=False),
        sa.Column("ratio", sa.Float()),
        sa.Column("ci_low", sa.Float()),
        sa.Column("ci_high", sa.Float()),
        sa.Column("pairs", sa.Integer(), nullable=False),
        sa.Column("disturbed_pairs", sa.Integer(), nullable=False),
        sa.Column("samples", sa.JSON()),
        sa.PrimaryKeyConstraint("id", name="pk_ab_effects"),
    )
    op.create_index("ix_ab_effects_run", "ab_effects",
                    ["ab_run_id", "dataset_id", "configuration_id", "metric"], unique=True)


def downgrade() -> None:
    op.drop_table("ab_effects")
    op.drop_table("ab_runs")
