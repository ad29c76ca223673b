"""A meeting keeps its own time zone (an IANA name, +HH:MM or UTC): its times, dates and due
dates are shown and resolved in it, while every stored instant stays UTC. The meeting record
keeps the zone it was extracted in.

Existing meetings get MEETING_TIMEZONE (default UTC): before this revision every time was
shown in UTC unless that setting (then MEMORY_TIMEZONE) said otherwise.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from mithub.config import MeetingConfig

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MEETING_COMMENT = ("the meeting's own zone (IANA name, +HH:MM or UTC): what its times, dates and "
                   "due dates are shown and resolved in; instants stay UTC")
RECORD_COMMENT = "the meeting's zone when extracted"


def upgrade() -> None:
    # NOT NULL with a default in one ADD COLUMN: SQLite can do that in place, whereas making
    # the column NOT NULL afterwards would rebuild `meetings`, and dropping the old table
    # cascades (foreign_keys=ON) to every row that points at a meeting.
    zone = MeetingConfig().timezone
    op.add_column("meetings", sa.Column("timezone", sa.String(length=64), nullable=False,
                                        server_default=zone, comment=MEETING_COMMENT))
    op.add_column("meeting_records", sa.Column("timezone", sa.String(length=64), nullable=False,
                                               server_default=zone, comment=RECORD_COMMENT))
    op.execute("UPDATE meeting_records SET timezone = "
               "(SELECT m.timezone FROM meetings m WHERE m.id = meeting_records.meeting_id)")
    if op.get_context().dialect.name != "sqlite":  # SQLite keeps it: dropping it means a rebuild
        op.alter_column("meetings", "timezone", server_default=None, existing_type=sa.String(length=64),
                        existing_nullable=False, existing_comment=MEETING_COMMENT)
        op.alter_column("meeting_records", "timezone", server_default=None, existing_type=sa.String(length=64),
                        existing_nullable=False, existing_comment=RECORD_COMMENT)


def downgrade() -> None:
    op.drop_column("meeting_records", "timezone")
    op.drop_column("meetings", "timezone")
