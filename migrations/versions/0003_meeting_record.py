"""The meeting record: what each meeting settled (decisions, action items, pending items)
and the lines that changed a past decision of the series.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _utc() -> sa.types.TypeEngine:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "meeting_records",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("series_id", sa.String(length=200), nullable=False),
        sa.Column("started_at", _utc(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("decisions", _json(), nullable=False),
        sa.Column("action_items", _json(), nullable=False),
        sa.Column("pending_items", _json(), nullable=False),
        sa.Column("extracted_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(["meeting_id"], ["meetings.id"],
                                name=op.f("fk_meeting_records_meeting_id_meetings"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("meeting_id", name=op.f("pk_meeting_records")),
    )
    op.create_index("ix_meeting_records_series_id", "meeting_records", ["series_id"])
    op.create_table(
        "decision_changes",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("series_id", sa.String(length=200), nullable=False),
        sa.Column("decision_id", sa.String(length=300), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("speaker", sa.String(length=200), nullable=False),
        sa.Column("time", _utc(), nullable=False),
        sa.Column("quote", sa.Text(), nullable=False),
        sa.Column("past", _json(), nullable=False),
        sa.Column("detected_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(["meeting_id"], ["meetings.id"],
                                name=op.f("fk_decision_changes_meeting_id_meetings"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("meeting_id", "seq", name=op.f("pk_decision_changes")),
    )
    op.create_index("ix_decision_changes_series_id", "decision_changes", ["series_id"])


def downgrade() -> None:
    op.drop_index("ix_decision_changes_series_id", table_name="decision_changes")
    op.drop_table("decision_changes")
    op.drop_index("ix_meeting_records_series_id", table_name="meeting_records")
    op.drop_table("meeting_records")
