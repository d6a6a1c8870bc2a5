"""api_tokens.scope and .tags, runs.claimed_by_token_id: tokens that can do only their job (issue 38)

Existing tokens become "admin", except the embedded runner's ("embedded-runner", made by
`basketbench serve` for its in-process worker) and the compose stack's shared worker token,
which become "machine": before this revision every token could do everything, and nothing
tells a person's token from a script's, so keeping them all-powerful is the only choice
that breaks no deployment; docs/deployment.md says how to re-issue them with narrower scopes.

Revision ID: 0023
Revises: 0032
Create Date: 2026-11-27 08:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0032"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MACHINE_TOKEN_NAMES = ("embedded-runner", "workers (BASKETBENCH_WORKER_TOKEN)")


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("scope", sa.String(20), nullable=False,
                                   server_default="admin"))
        batch.add_column(sa.Column("tags", sa.JSON()))
    tokens = sa.table("api_tokens", sa.column("name", sa.String), sa.column("scope", sa.String))
    op.execute(tokens.update().where(tokens.c.name.in_(MACHINE_TOKEN_NAMES))
               .values(scope="machine"))
    with op.batch_alter_table("api_tokens") as batch:
        batch.alter_column("scope", server_default=None)
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("claimed_by_token_id", sa.Integer(), sa.ForeignKey(
            "api_tokens.id", ondelete="SET NULL", name="fk_runs_claimed_by_token_id_api_tokens")))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("claimed_by_token_id")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("tags")
        batch.drop_column("scope")
