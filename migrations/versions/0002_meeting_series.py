"""Meetings in series: a meeting is one session of a room, and belongs to a series (the
room name, or what the room's metadata names). Adds `series_id` and `started_at`.

Existing meetings become series of their own (their id is the series) and start at their
first stored utterance, or when the row was created.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("meetings") as batch:
        batch.add_column(sa.Column("series_id", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("started_at", sa.DateTime(timezone=True), nullable=True))
    op.execute("UPDATE meetings SET series_id = id WHERE series_id IS NULL")
    op.execute(
        "UPDATE meetings SET started_at = COALESCE("
        "(SELECT MIN(u.absolute_timestamp) FROM utterances u WHERE u.meeting_id = meetings.id), "
        "created_at) WHERE started_at IS NULL"
    )
    with op.batch_alter_table("meetings") as batch:
        batch.alter_column("series_id", existing_type=sa.String(length=200), nullable=False)
        batch.create_index("ix_meetings_series_id", ["series_id"])


def downgrade() -> None:
    with op.batch_alter_table("meetings") as batch:
        batch.drop_index("ix_meetings_series_id")
        batch.drop_column("started_at")
        batch.drop_column("series_id")
