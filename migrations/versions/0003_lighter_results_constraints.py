"""results: drop the foreign keys that repeat the document's; index commits.order

results.commit_id / machine_id / run_id are copies of the same columns of
result_documents (which keeps its foreign keys); results.document_id cascades. The
three extra row-level checks cost ~37 % of PostgreSQL's CPU on ingest (docs/perf).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21 00:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DROPPED = [
    ("fk_results_commit_id_commits", "commits", "commit_id", "CASCADE"),
    ("fk_results_machine_id_machines", "machines", "machine_id", "CASCADE"),
    ("fk_results_run_id_runs", "runs", "run_id", "SET NULL"),
]


def upgrade() -> None:
    with op.batch_alter_table("results") as batch_op:
        for name, _table, _column, _ondelete in DROPPED:
            batch_op.drop_constraint(name, type_="foreignkey")
    op.create_index("ix_commits_order", "commits", ["order"])


def downgrade() -> None:
    op.drop_index("ix_commits_order", table_name="commits")
    with op.batch_alter_table("results") as batch_op:
        for name, table, column, ondelete in DROPPED:
            batch_op.create_foreign_key(name, table, [column], ["id"], ondelete=ondelete)
