"""changes (detection records) and notification deliveries (issue 11)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23 05:41:40.710044
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('changes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('commit_id', sa.Integer(), nullable=False),
    sa.Column('parent_commit_id', sa.Integer(), nullable=True),
    sa.Column('machine_id', sa.Integer(), nullable=False),
    sa.Column('dataset_id', sa.Integer(), nullable=False),
    sa.Column('configuration_id', sa.Integer(), nullable=False),
    sa.Column('metric', sa.String(length=30), nullable=False),
    sa.Column('codec_set_id', sa.Integer(), nullable=True),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('test', sa.String(length=20), nullable=False),
    sa.Column('direction', sa.String(length=12), nullable=False),
    sa.Column('base_value', sa.Float(), nullable=True),
    sa.Column('head_value', sa.Float(), nullable=True),
    sa.Column('delta_pct', sa.Float(), nullable=False),
    sa.Column('ci_low_pct', sa.Float(), nullable=True),
    sa.Column('ci_high_pct', sa.Float(), nullable=True),
    sa.Column('p_value', sa.Float(), nullable=True),
    sa.Column('q_value', sa.Float(), nullable=True),
    sa.Column('min_effect_pct', sa.Float(), nullable=True),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('status', sa.String(length=14), nullable=False),
    sa.Column('status_by', sa.String(length=200), nullable=True),
    sa.Column('status_reason', sa.Text(), nullable=True),
    sa.Column('status_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('evidence', sa.JSON(), nullable=False),
    sa.Column('confirmation', sa.JSON(), nullable=False),
    sa.Column('bisection', sa.JSON(), nullable=False),
    sa.Column('detected_run_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('confirmed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('notified_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['codec_set_id'], ['codec_sets.id'], name=op.f('fk_changes_codec_set_id_codec_sets'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['commit_id'], ['commits.id'], name=op.f('fk_changes_commit_id_commits'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['configuration_id'], ['configurations.id'], name=op.f('fk_changes_configuration_id_configurations'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['dataset_id'], ['datasets.id'], name=op.f('fk_changes_dataset_id_datasets'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['machine_id'], ['machines.id'], name=op.f('fk_changes_machine_id_machines'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['parent_commit_id'], ['commits.id'], name=op.f('fk_changes_parent_commit_id_commits'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_changes')),
    sa.UniqueConstraint('machine_id', 'dataset_id', 'configuration_id', 'metric', 'commit_id', 'codec_set_id', name='uq_changes_series_commit')
    )
    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.create_index('ix_changes_commit_machine', ['commit_id', 'machine_id'], unique=False)
        batch_op.create_index('ix_changes_series', ['machine_id', 'dataset_id', 'configuration_id', 'metric'], unique=False)
        batch_op.create_index('ix_changes_state_status', ['state', 'status'], unique=False)

    op.create_table('notification_deliveries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('commit_id', sa.Integer(), nullable=False),
    sa.Column('machine_id', sa.Integer(), nullable=True),
    sa.Column('channel', sa.String(length=30), nullable=False),
    sa.Column('target', sa.String(length=1000), nullable=False),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('response_code', sa.Integer(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('change_ids', sa.JSON(), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['commit_id'], ['commits.id'], name=op.f('fk_notification_deliveries_commit_id_commits'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['machine_id'], ['machines.id'], name=op.f('fk_notification_deliveries_machine_id_machines'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notification_deliveries'))
    )
    with op.batch_alter_table('notification_deliveries', schema=None) as batch_op:
        batch_op.create_index('ix_notification_deliveries_commit', ['commit_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('notification_deliveries', schema=None) as batch_op:
        batch_op.drop_index('ix_notification_deliveries_commit')

    op.drop_table('notification_deliveries')
    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.drop_index('ix_changes_state_status')
        batch_op.drop_index('ix_changes_series')
        batch_op.drop_index('ix_changes_commit_machine')

    op.drop_table('changes')
