"""datasets: kind `synthetic` for a generator's data (source synthetic:...), not `ttree`

The harness reports synthetic datasets with kind "ttree" (their baskets are TTree-like
buffers); the dashboard listed them among real TTrees. Ingest now stores "synthetic"
(results/ingest.dataset_kind); this migration relabels the rows stored before.

Revision ID: 0028
Revises: 0025
Create Date: 2026-11-27 07:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0028"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute("UPDATE datasets SET kind = 'synthetic' WHERE source LIKE 'synthetic:%'")


def downgrade() -> None:
    op.execute("UPDATE datasets SET kind = 'ttree' WHERE kind = 'synthetic'")
