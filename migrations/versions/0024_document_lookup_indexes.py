"""result_documents: the provenance index covers what history, compare and /machines read
(index-only scans); an index on run_id for the run listings (issue 34)

ix_result_documents_machine_commit (machine_id, commit_id) was not used for a history's
provenance: a machine's documents are a third of the table, so the planner read the table
whole and sorted it on every request. With ``id`` as a key column and the build columns,
codec set, busy flag and result count included, that read is an index-only scan already
in (commit, document) order.

Revision ID: 0024
Revises: 0021
Create Date: 2026-11-27 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0024"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INCLUDE = ["codec_set_id", "tool", "backend", "root_commit", "build_profile",
           "build_profile_version", "harness_hash", "busy", "result_count"]


def upgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.drop_index("ix_result_documents_machine_commit")
        batch.create_index("ix_result_documents_machine_commit",
                           ["machine_id", "commit_id", "id"], postgresql_include=INCLUDE)
        batch.create_index("ix_result_documents_run_id", ["run_id"])


def downgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.drop_index("ix_result_documents_run_id")
        batch.drop_index("ix_result_documents_machine_commit")
        batch.create_index("ix_result_documents_machine_commit", ["machine_id", "commit_id"])
