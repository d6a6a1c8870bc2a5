"""changes: why a candidate ended unconfirmed, and the links of a revert

``state_reason``: why detection left a change ``unconfirmed`` (waited too long for its
reruns, no live worker on its tag, the tag's rerun budget spent) or rejected it without
reruns. ``reverts_id`` / ``reverted_by_id``: a change back to the level before an
earlier change of the same series, and that earlier change (plain ids, like
detected_run_id: a change is deleted only with its commit or machine).

Revision ID: 0016
Revises: 0010
Create Date: 2026-11-26 00:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("changes") as batch_op:
        batch_op.add_column(sa.Column("state_reason", sa.Text()))
        batch_op.add_column(sa.Column("reverts_id", sa.Integer()))
        batch_op.add_column(sa.Column("reverted_by_id", sa.Integer()))


def downgrade() -> None:
    with op.batch_alter_table("changes") as batch_op:
        batch_op.drop_column("reverted_by_id")
        batch_op.drop_column("reverts_id")
        batch_op.drop_column("state_reason")
