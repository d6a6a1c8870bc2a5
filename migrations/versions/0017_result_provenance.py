"""result_documents: how the measuring harness was built (build profile, harness hash)

Every result names what measured it: its codec set (codec_set_id), ROOT release or commit
(codec_sets.root_version, root_commit), harness version (tool) and, from here on, the
build profile that compiled ROOT's compression layer and the content hash of the harness
sources rzbench was built from (the document's optional ``build`` block). NULL for
documents that do not carry one (older documents, local runs without a worker).

History points, compare sides and change records read those columns for a machine's
documents of given commits: an index on (machine_id, commit_id) keeps that a lookup.

Revision ID: 0017
Revises: 0010
Create Date: 2026-11-26 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.add_column(sa.Column("build_profile", sa.String(length=100), nullable=True))
        batch.add_column(sa.Column("build_profile_version", sa.String(length=50), nullable=True))
        batch.add_column(sa.Column("harness_hash", sa.String(length=64), nullable=True))
        batch.create_index("ix_result_documents_machine_commit", ["machine_id", "commit_id"])


def downgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.drop_index("ix_result_documents_machine_commit")
        batch.drop_column("harness_hash")
        batch.drop_column("build_profile_version")
        batch.drop_column("build_profile")
