"""screen_points: what detection's screen reads of each document, packed, written with the
document (issue 34: a pass read ~100 000 rows of ``results`` per document)

No backfill here: a pass that finds a document of its window without a row writes it from
``results`` (changes/detection/points.py, ``rebuild``), so an upgraded database fills the
rows of its machines' recent windows on their first passes.

Revision ID: 0042
Revises: 0023
Create Date: 2026-11-27 11:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0042"
down_revision: str | None = "0040"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "screen_points",
        sa.Column("document_id", sa.Integer(),
                  sa.ForeignKey("result_documents.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("commit_id", sa.Integer(), nullable=False),
        sa.Column("format", sa.SmallInteger(), nullable=False),
        sa.Column("packed", sa.LargeBinary(), nullable=False),
    )
    op.create_index("ix_screen_points_machine_commit", "screen_points",
                    ["machine_id", "commit_id"])


def downgrade() -> None:
    op.drop_index("ix_screen_points_machine_commit", table_name="screen_points")
    op.drop_table("screen_points")
