"""builds: each document's build columns stored once, referred to by
result_documents.build_id (issue 34: a history read its machine's documents' strings, ~1.3 MB
of them per request, to list one or two builds)

The existing documents get their builds here. The build columns stay on result_documents
(compare, change records and /results read them there).

Revision ID: 0043
Revises: 0042
Create Date: 2026-11-28 04:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from basketbench.results.provenance import build_key

revision: str = "0043"
down_revision: str | None = "0042"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ("tool", "backend", "root_commit", "build_profile", "build_profile_version",
           "harness_hash")
INCLUDE = ["codec_set_id", "tool", "backend", "root_commit", "build_profile",
           "build_profile_version", "harness_hash", "busy", "result_count"]


def upgrade() -> None:
    builds = op.create_table(
        "builds",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=True),
        sa.Column("backend", sa.String(length=20), nullable=True),
        sa.Column("root_commit", sa.String(length=64), nullable=True),
        sa.Column("build_profile", sa.String(length=100), nullable=True),
        sa.Column("build_profile_version", sa.String(length=50), nullable=True),
        sa.Column("harness_hash", sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_builds")),
        sa.UniqueConstraint("key", name=op.f("uq_builds_key")),
    )
    with op.batch_alter_table("result_documents") as batch:
        batch.add_column(sa.Column("build_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_result_documents_build_id_builds"), "builds",
                                 ["build_id"], ["id"], ondelete="RESTRICT")
        batch.drop_index("ix_result_documents_machine_commit")
        batch.create_index("ix_result_documents_machine_commit",
                           ["machine_id", "commit_id", "id"],
                           postgresql_include=[*INCLUDE, "build_id"])
    _fill(builds)


def _fill(builds: sa.Table) -> None:
    """One builds row per distinct combination of the documents' build columns, and each
    document pointed at its own (a few statements per combination: there are few)."""
    bind = op.get_bind()
    documents = sa.table("result_documents", sa.column("build_id"),
                         *(sa.column(c) for c in COLUMNS))
    combos = bind.execute(sa.select(*(documents.c[c] for c in COLUMNS)).distinct()).all()
    for combo in combos:
        values = dict(zip(COLUMNS, combo, strict=True))
        build_id = bind.execute(builds.insert().values(key=build_key(*combo), **values)
                                .returning(builds.c.id)).scalar_one()
        bind.execute(documents.update()
                     .where(*(documents.c[c].is_not_distinct_from(v) for c, v in values.items()))
                     .values(build_id=build_id))


def downgrade() -> None:
    with op.batch_alter_table("result_documents") as batch:
        batch.drop_index("ix_result_documents_machine_commit")
        batch.create_index("ix_result_documents_machine_commit",
                           ["machine_id", "commit_id", "id"], postgresql_include=INCLUDE)
        batch.drop_constraint(op.f("fk_result_documents_build_id_builds"), type_="foreignkey")
        batch.drop_column("build_id")
    op.drop_table("builds")
