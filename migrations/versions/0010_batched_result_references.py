"""results: reference checks once per COPY, not once per row (PostgreSQL)

A foreign key checks every inserted row on its own: three lookups and three row locks
per result, ~10 of the ~21 ms PostgreSQL spends on one 864-result COPY. Statement
triggers with a transition table do the same work once per statement and distinct id:
every referenced document, dataset and configuration must exist, and is locked FOR KEY
SHARE to the end of the transaction, as a foreign key locks it, so no concurrent delete
can leave a result without its parent. Deleting a parent deletes its results (the
foreign keys' ON DELETE CASCADE); changing a referenced id is refused (NO ACTION).

SQLite keeps the foreign keys: its checks are cheap and it has no statement triggers.
The models keep them too (models/result.py, TRIGGER_CHECKED).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (constraint, column of results, referenced table)
REFERENCES = [
    ("fk_results_document_id_result_documents", "document_id", "result_documents"),
    ("fk_results_dataset_id_datasets", "dataset_id", "datasets"),
    ("fk_results_configuration_id_configurations", "configuration_id", "configurations"),
]


def _check(column: str, table: str) -> str:
    """Every distinct id of ``column`` in the statement's rows names a row of ``table``;
    those rows are locked as a foreign key would lock them."""
    return f"""
  IF (SELECT count(DISTINCT {column}) FROM new_rows) <> (SELECT count(*) FROM (
        SELECT 1 FROM {table} WHERE id IN (SELECT {column} FROM new_rows) FOR KEY SHARE) k)
  THEN
    RAISE EXCEPTION 'results.{column} = % is not in {table}',
      (SELECT min(n.{column}) FROM new_rows n
        WHERE NOT EXISTS (SELECT 1 FROM {table} p WHERE p.id = n.{column}))
      USING ERRCODE = 'foreign_key_violation', TABLE = 'results', COLUMN = '{column}';
  END IF;"""


def _postgresql() -> bool:
    return op.get_bind().dialect.name == "postgresql"


def upgrade() -> None:
    if not _postgresql():
        return
    for name, _column, _table in REFERENCES:
        op.drop_constraint(name, "results", type_="foreignkey")
    checks = "".join(_check(column, table) for _name, column, table in REFERENCES)
    op.execute(f"""
CREATE FUNCTION results_references_exist() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN{checks}
  RETURN NULL;
END $$""")
    for event in ("INSERT", "UPDATE"):
        op.execute(f"""
CREATE TRIGGER results_references_{event.lower()} AFTER {event} ON results
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION results_references_exist()""")
    # TG_ARGV[0]: the column of results that refers to the deleted rows.
    op.execute("""
CREATE FUNCTION results_delete_with_parent() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DELETE FROM results WHERE %I IN (SELECT id FROM old_rows)', TG_ARGV[0]);
  RETURN NULL;
END $$""")
    op.execute("""
CREATE FUNCTION results_parent_id_fixed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the id of % rows is referenced by results and cannot change',
    TG_TABLE_NAME USING ERRCODE = 'foreign_key_violation';
END $$""")
    for _name, column, table in REFERENCES:
        op.execute(f"""
CREATE TRIGGER results_delete_with_{table} AFTER DELETE ON {table}
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT
  EXECUTE FUNCTION results_delete_with_parent('{column}')""")
        op.execute(f"""
CREATE TRIGGER results_{table}_id_fixed BEFORE UPDATE OF id ON {table}
  FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id)
  EXECUTE FUNCTION results_parent_id_fixed()""")


def downgrade() -> None:
    if not _postgresql():
        return
    for _name, _column, table in REFERENCES:
        op.execute(f"DROP TRIGGER results_delete_with_{table} ON {table}")
        op.execute(f"DROP TRIGGER results_{table}_id_fixed ON {table}")
    for event in ("insert", "update"):
        op.execute(f"DROP TRIGGER results_references_{event} ON results")
    for function in ("results_references_exist", "results_delete_with_parent",
                     "results_parent_id_fixed"):
        op.execute(f"DROP FUNCTION {function}()")
    for name, column, table in REFERENCES:
        op.create_foreign_key(name, "results", table, [column], ["id"], ondelete="CASCADE")
