"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-20 23:13:39.908385
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_api_tokens_token_hash")),
    )
    op.create_table(
        "configurations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("setting", sa.Integer(), nullable=False),
        sa.Column("algorithm", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.Column("codec", sa.String(length=20), nullable=False),
        sa.Column("preconditioner", sa.String(length=20), nullable=False),
        sa.Column("dictionary_size", sa.Integer(), nullable=False),
        sa.Column("basket_size", sa.Integer(), nullable=False),
        sa.Column("mode", sa.String(length=20), nullable=False),
        sa.Column("threads", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_configurations")),
        sa.UniqueConstraint(
            "setting",
            "codec",
            "preconditioner",
            "dictionary_size",
            "basket_size",
            "mode",
            "threads",
            name="uq_configurations_identity",
        ),
    )
    with op.batch_alter_table("configurations", schema=None) as batch_op:
        batch_op.create_index("ix_configurations_setting", ["setting"], unique=False)

    op.create_table(
        "datasets",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("source", sa.String(length=1000), nullable=True),
        sa.Column("bytes", sa.BigInteger(), nullable=True),
        sa.Column("baskets", sa.Integer(), nullable=True),
        sa.Column("checksum", sa.String(length=100), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_datasets")),
        sa.UniqueConstraint("name", name=op.f("uq_datasets_name")),
    )
    op.create_table(
        "machines",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("tag", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("fingerprint", sa.JSON(), nullable=False),
        sa.Column("fingerprint_hash", sa.String(length=64), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_heartbeat", sa.DateTime(timezone=True), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_machines")),
        sa.UniqueConstraint(
            "name", "fingerprint_hash", name=op.f("uq_machines_name_fingerprint_hash")
        ),
        sa.UniqueConstraint("name", "version", name=op.f("uq_machines_name_version")),
    )
    with op.batch_alter_table("machines", schema=None) as batch_op:
        batch_op.create_index("ix_machines_tag", ["tag"], unique=False)

    op.create_table(
        "repositories",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("url", sa.String(length=500), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_repositories")),
        sa.UniqueConstraint("name", name=op.f("uq_repositories_name")),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("delivery_id", sa.String(length=100), nullable=False),
        sa.Column("event", sa.String(length=50), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("run_ids", sa.JSON(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_webhook_deliveries")),
        sa.UniqueConstraint("delivery_id", name=op.f("uq_webhook_deliveries_delivery_id")),
    )
    op.create_table(
        "commits",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("repository_id", sa.Integer(), nullable=False),
        sa.Column("sha", sa.String(length=64), nullable=False),
        sa.Column("parents", sa.JSON(), nullable=False),
        sa.Column("author", sa.String(length=200), nullable=True),
        sa.Column("author_email", sa.String(length=200), nullable=True),
        sa.Column("date", sa.DateTime(timezone=True), nullable=True),
        sa.Column("message", sa.Text(), nullable=True),
        sa.Column("branch", sa.String(length=200), nullable=True),
        sa.Column("order", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["repository_id"],
            ["repositories.id"],
            name=op.f("fk_commits_repository_id_repositories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_commits")),
        sa.UniqueConstraint("repository_id", "sha", name=op.f("uq_commits_repository_id_sha")),
    )
    with op.batch_alter_table("commits", schema=None) as batch_op:
        batch_op.create_index(
            "ix_commits_repository_order", ["repository_id", "order"], unique=False
        )
        batch_op.create_index("ix_commits_sha", ["sha"], unique=False)

    op.create_table(
        "runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("commit_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=True),
        sa.Column("tag", sa.String(length=100), nullable=False),
        sa.Column("suite", sa.String(length=100), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("stage", sa.String(length=50), nullable=True),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("trigger", sa.String(length=50), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("timings", sa.JSON(), nullable=False),
        sa.Column("log_tail", sa.Text(), nullable=True),
        sa.Column("build_cache_hit", sa.Boolean(), nullable=True),
        sa.Column("result_count", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["commit_id"],
            ["commits.id"],
            name=op.f("fk_runs_commit_id_commits"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["machine_id"],
            ["machines.id"],
            name=op.f("fk_runs_machine_id_machines"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.create_index("ix_runs_commit_id", ["commit_id"], unique=False)
        batch_op.create_index("ix_runs_status_created", ["status", "created_at"], unique=False)
        batch_op.create_index("ix_runs_tag", ["tag"], unique=False)

    op.create_table(
        "result_documents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("commit_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("tool", sa.String(length=100), nullable=True),
        sa.Column("backend", sa.String(length=20), nullable=True),
        sa.Column("root_commit", sa.String(length=64), nullable=True),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("result_count", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["commit_id"],
            ["commits.id"],
            name=op.f("fk_result_documents_commit_id_commits"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["machine_id"],
            ["machines.id"],
            name=op.f("fk_result_documents_machine_id_machines"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["runs.id"],
            name=op.f("fk_result_documents_run_id_runs"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_result_documents")),
        sa.UniqueConstraint("sha256", name=op.f("uq_result_documents_sha256")),
    )
    op.create_table(
        "results",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("run_id", sa.Integer(), nullable=True),
        sa.Column("commit_id", sa.Integer(), nullable=False),
        sa.Column("machine_id", sa.Integer(), nullable=False),
        sa.Column("dataset_id", sa.Integer(), nullable=False),
        sa.Column("configuration_id", sa.Integer(), nullable=False),
        sa.Column("uncompressed_bytes", sa.BigInteger(), nullable=True),
        sa.Column("compressed_bytes", sa.BigInteger(), nullable=True),
        sa.Column("ratio", sa.Float(), nullable=True),
        sa.Column("roundtrip_ok", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("dictionary_train_ms", sa.Float(), nullable=True),
        sa.Column("c_median", sa.Float(), nullable=True),
        sa.Column("c_min", sa.Float(), nullable=True),
        sa.Column("c_max", sa.Float(), nullable=True),
        sa.Column("c_mean", sa.Float(), nullable=True),
        sa.Column("c_stddev", sa.Float(), nullable=True),
        sa.Column("c_cv", sa.Float(), nullable=True),
        sa.Column("c_n", sa.Integer(), nullable=True),
        sa.Column("c_samples", sa.JSON(), nullable=True),
        sa.Column("d_median", sa.Float(), nullable=True),
        sa.Column("d_min", sa.Float(), nullable=True),
        sa.Column("d_max", sa.Float(), nullable=True),
        sa.Column("d_mean", sa.Float(), nullable=True),
        sa.Column("d_stddev", sa.Float(), nullable=True),
        sa.Column("d_cv", sa.Float(), nullable=True),
        sa.Column("d_n", sa.Integer(), nullable=True),
        sa.Column("d_samples", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["commit_id"],
            ["commits.id"],
            name=op.f("fk_results_commit_id_commits"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["configuration_id"],
            ["configurations.id"],
            name=op.f("fk_results_configuration_id_configurations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["dataset_id"],
            ["datasets.id"],
            name=op.f("fk_results_dataset_id_datasets"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["document_id"],
            ["result_documents.id"],
            name=op.f("fk_results_document_id_result_documents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["machine_id"],
            ["machines.id"],
            name=op.f("fk_results_machine_id_machines"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["run_id"], ["runs.id"], name=op.f("fk_results_run_id_runs"), ondelete="SET NULL"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_results")),
    )
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.create_index(
            "ix_results_commit_machine",
            ["commit_id", "machine_id", "dataset_id", "configuration_id"],
            unique=False,
        )
        batch_op.create_index("ix_results_document_id", ["document_id"], unique=False)
        batch_op.create_index("ix_results_run_id", ["run_id"], unique=False)
        batch_op.create_index(
            "ix_results_series",
            ["machine_id", "dataset_id", "configuration_id", "commit_id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("results", schema=None) as batch_op:
        batch_op.drop_index("ix_results_series")
        batch_op.drop_index("ix_results_run_id")
        batch_op.drop_index("ix_results_document_id")
        batch_op.drop_index("ix_results_commit_machine")

    op.drop_table("results")
    op.drop_table("result_documents")
    with op.batch_alter_table("runs", schema=None) as batch_op:
        batch_op.drop_index("ix_runs_tag")
        batch_op.drop_index("ix_runs_status_created")
        batch_op.drop_index("ix_runs_commit_id")

    op.drop_table("runs")
    with op.batch_alter_table("commits", schema=None) as batch_op:
        batch_op.drop_index("ix_commits_sha")
        batch_op.drop_index("ix_commits_repository_order")

    op.drop_table("commits")
    op.drop_table("webhook_deliveries")
    op.drop_table("repositories")
    with op.batch_alter_table("machines", schema=None) as batch_op:
        batch_op.drop_index("ix_machines_tag")

    op.drop_table("machines")
    op.drop_table("datasets")
    with op.batch_alter_table("configurations", schema=None) as batch_op:
        batch_op.drop_index("ix_configurations_setting")

    op.drop_table("configurations")
    op.drop_table("api_tokens")
