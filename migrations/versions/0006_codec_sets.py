"""codec sets: codec library versions as part of every result's series

- codec_sets (name, root_version, libraries, series_key); result_documents.codec_set_id
  and results.codec_set_id (a copy, in the covering series index); runs.codecs (the set a
  trigger asked for);
- existing documents become set "host" with their machine's fingerprint libraries;
- machines.fingerprint_hash is recomputed without the codec library versions (a machine
  measures several codec sets without becoming a new machine version). Two versions of a
  machine that differed only in libraries keep their old hashes (both stay as they were).

The two hash rules are copied from basketbench.results.codec_sets.codec_set_key and
basketbench.catalog.machines.fingerprint_hash as they are at this revision.

Revision ID: 0006
Revises: 0003
Create Date: 2026-11-23 06:15:00
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = ["machine_id", "dataset_id", "configuration_id", "commit_id"]
OLD_INCLUDE = ["ratio", "compressed_bytes", "c_median", "c_min", "c_max", "c_stddev", "c_n",
               "d_median", "d_min", "d_max", "d_stddev", "d_n", "run_id"]
VOLATILE = {"hostname", "fingerprint_hash", "host_name", "date", "load_avg", "executable",
            "libraries"}


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode()


def _set_key(name: str, root_version: str | None, libraries: dict[str, Any]) -> str:
    return hashlib.sha256(_canonical([name, root_version, libraries])).hexdigest()


def _machine_hash(fingerprint: dict[str, Any]) -> str:
    stable = {k: v for k, v in fingerprint.items() if k not in VOLATILE}
    return hashlib.sha256(_canonical(stable)).hexdigest()[:32]


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else (value or {})


def upgrade() -> None:
    codec_sets = op.create_table(
        "codec_sets",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("root_version", sa.String(50), nullable=True),
        sa.Column("libraries", sa.JSON(), nullable=False),
        sa.Column("series_key", sa.String(100), nullable=False),
        sa.UniqueConstraint("key", name="uq_codec_sets_key"),
    )
    op.create_index("ix_codec_sets_series_key", "codec_sets", ["series_key"])
    with op.batch_alter_table("result_documents") as batch_op:
        batch_op.add_column(sa.Column("codec_set_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key("fk_result_documents_codec_set_id_codec_sets",
                                    "codec_sets", ["codec_set_id"], ["id"], ondelete="RESTRICT")
    with op.batch_alter_table("results") as batch_op:
        batch_op.add_column(sa.Column("codec_set_id", sa.Integer(), nullable=True))
        batch_op.drop_index("ix_results_series")
        batch_op.create_index("ix_results_series", COLUMNS,
                              postgresql_include=[*OLD_INCLUDE, "codec_set_id"])
    with op.batch_alter_table("runs") as batch_op:
        batch_op.add_column(sa.Column("codecs", sa.String(100), nullable=True))

    bind = op.get_bind()
    machines = bind.execute(sa.text("SELECT id, name, fingerprint, fingerprint_hash "
                                    "FROM machines ORDER BY id")).all()
    taken = {(m.name, m.fingerprint_hash) for m in machines}
    for m in machines:
        fingerprint = _json(m.fingerprint)
        libraries = {str(k): str(v) for k, v in (fingerprint.get("libraries") or {}).items()}
        key = _set_key("host", None, libraries)
        set_id = bind.execute(sa.select(codec_sets.c.id).where(codec_sets.c.key == key)).scalar()
        if set_id is None:
            set_id = bind.execute(codec_sets.insert().values(
                key=key, name="host", root_version=None, libraries=libraries,
                series_key=key[:100]).returning(codec_sets.c.id)).scalar()
        for table in ("result_documents", "results"):
            bind.execute(sa.text(f"UPDATE {table} SET codec_set_id = :s WHERE machine_id = :m"),
                         {"s": set_id, "m": m.id})
        new_hash = _machine_hash(fingerprint)
        if new_hash != m.fingerprint_hash and (m.name, new_hash) not in taken:
            taken.add((m.name, new_hash))
            bind.execute(sa.text("UPDATE machines SET fingerprint_hash = :h WHERE id = :i"),
                         {"h": new_hash, "i": m.id})


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch_op:
        batch_op.drop_column("codecs")
    with op.batch_alter_table("results") as batch_op:
        batch_op.drop_index("ix_results_series")
        batch_op.create_index("ix_results_series", COLUMNS, postgresql_include=OLD_INCLUDE)
        batch_op.drop_column("codec_set_id")
    with op.batch_alter_table("result_documents") as batch_op:
        batch_op.drop_constraint("fk_result_documents_codec_set_id_codec_sets",
                                 type_="foreignkey")
        batch_op.drop_column("codec_set_id")
    op.drop_index("ix_codec_sets_series_key", table_name="codec_sets")
    op.drop_table("codec_sets")
