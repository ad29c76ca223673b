"""The minutes of a meeting (issue 20): composed from its record when it ends, one row per
meeting, replaced when it is composed again. `body` is the minutes as JSON (what the API and
the webhook deliver), `markdown` the rendered text.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "meeting_minutes",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("composed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=False),
        sa.Column("mode", sa.String(length=20), nullable=False),
        sa.Column("body", sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
                  nullable=False, comment="the minutes as JSON (mithub.minutes.models.Minutes)"),
        sa.Column("markdown", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(["meeting_id"], ["meetings.id"],
                                name=op.f("fk_meeting_minutes_meeting_id_meetings"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("meeting_id", name=op.f("pk_meeting_minutes")),
    )


def downgrade() -> None:
    op.drop_table("meeting_minutes")
