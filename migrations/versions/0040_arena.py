"""arena_runs, arena_results: candidate codecs against ROOT's setting on a file's own buffers (codec arena)

Revision ID: 0040
Revises: 0023
Create Date: 2026-11-27 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0040"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ratio(prefix: str) -> list[sa.Column]:  # type: ignore[type-arg]
    return [sa.Column(f"{prefix}_ratio", sa.Float()), sa.Column(f"{prefix}_ci_low", sa.Float()),
            sa.Column(f"{prefix}_ci_high", sa.Float()), sa.Column(f"{prefix}_pairs", sa.Integer()),
            sa.Column(f"{prefix}_disturbed_pairs", sa.Integer())]


def upgrade() -> None:
    op.create_table(
        "arena_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), sa.ForeignKey(
            "machines.id", ondelete="CASCADE", name="fk_arena_runs_machine_id_machines"),
            nullable=False),
        sa.Column("commit_id", sa.Integer(), sa.ForeignKey(
            "commits.id", ondelete="CASCADE", name="fk_arena_runs_commit_id_commits")),
        sa.Column("run_id", sa.Integer(), sa.ForeignKey(
            "runs.id", ondelete="SET NULL", name="fk_arena_runs_run_id_runs")),
        sa.Column("file", sa.String(300), nullable=False),
        sa.Column("file_sha256", sa.String(64), nullable=False),
        sa.Column("format", sa.String(10), nullable=False),
        sa.Column("host", sa.JSON(), nullable=False),
        sa.Column("load", sa.JSON(), nullable=False),
        sa.Column("buffers", sa.Integer(), nullable=False),
        sa.Column("embedded_buffers", sa.Integer()),
        sa.Column("uncompressed_bytes", sa.BigInteger(), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("reference", sa.JSON()),
        sa.Column("method", sa.JSON(), nullable=False),
        sa.Column("shape_totals", sa.JSON(), nullable=False),
        sa.Column("document_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_arena_runs"),
    )
    op.create_index("ix_arena_runs_document", "arena_runs", ["machine_id", "document_sha256"],
                    unique=True)
    op.create_index("ix_arena_runs_file_machine", "arena_runs", ["file", "machine_id", "id"])
    op.create_index("ix_arena_runs_commit", "arena_runs", ["commit_id"])
    op.create_table(
        "arena_results",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("arena_run_id", sa.Integer(), sa.ForeignKey(
            "arena_runs.id", ondelete="CASCADE", name="fk_arena_results_arena_run_id_arena_runs"),
            nullable=False),
        sa.Column("view", sa.String(10), nullable=False),
        sa.Column("candidate", sa.String(100), nullable=False),
        sa.Column("family", sa.String(10), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("shape", sa.String(100)),
        sa.Column("reference_setting", sa.Integer(), nullable=False),
        sa.Column("root_setting", sa.Integer()),
        sa.Column("compressed_bytes", sa.BigInteger()),
        sa.Column("reference_bytes", sa.BigInteger()),
        sa.Column("size_change_pct", sa.Float()),
        sa.Column("identical_to_reference", sa.Boolean()),
        sa.Column("roundtrip_ok", sa.Boolean()),
        sa.Column("root_readable", sa.Boolean()),
        sa.Column("error", sa.Text()),
        *_ratio("compress"),
        *_ratio("decompress"),
        sa.Column("compress_instructions", sa.Float()),
        sa.Column("decompress_instructions", sa.Float()),
        sa.Column("reference_compress_instructions", sa.Float()),
        sa.Column("reference_decompress_instructions", sa.Float()),
        sa.PrimaryKeyConstraint("id", name="pk_arena_results"),
    )
    op.create_index("ix_arena_results_run", "arena_results",
                    ["arena_run_id", "view", "candidate", "level"])


def downgrade() -> None:
    op.drop_table("arena_results")
    op.drop_table("arena_runs")
