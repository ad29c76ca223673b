"""Delivery of the minutes by webhook (issue 20): one row per delivery, stored before the first
attempt and updated after each one, so a receiver that is down or a process restart never loses
the minutes. Every attempt is kept in `attempt_log` (a JSON list on the row: at most
MINUTES_WEBHOOK_MAX_ATTEMPTS small entries, always read with their delivery, and recorded in the
same UPDATE as the delivery's new state).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _utc() -> sa.types.TypeEngine:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "minutes_deliveries",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("url", sa.Text(), nullable=False, comment="may hold a token: log its host only"),
        sa.Column("format", sa.String(length=20), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False, comment="pending, delivered or failed"),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("attempt_log", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                  nullable=False, comment="one object per attempt: at, outcome, status_code, error, seconds"),
        sa.Column("next_attempt_at", _utc(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("delivered_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(["meeting_id"], ["meetings.id"],
                                name=op.f("fk_minutes_deliveries_meeting_id_meetings"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_minutes_deliveries")),
    )
    op.create_index("ix_minutes_deliveries_meeting_id", "minutes_deliveries", ["meeting_id"])
    op.create_index("ix_minutes_deliveries_status_next", "minutes_deliveries", ["status", "next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_minutes_deliveries_status_next", table_name="minutes_deliveries")
    op.drop_index("ix_minutes_deliveries_meeting_id", table_name="minutes_deliveries")
    op.drop_table("minutes_deliveries")
