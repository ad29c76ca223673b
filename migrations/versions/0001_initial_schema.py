"""Initial schema: meetings, participants, utterances, topic segments, manager state,
agent calls, writer leases and the per-meeting embedding cache.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _json() -> sa.types.TypeEngine:
    return sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql")


def _utc() -> sa.types.TypeEngine:
    return sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "meetings",
        sa.Column("id", sa.String(length=200), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("ended_at", _utc(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_meetings")),
    )
    op.create_table(
        "agent_calls",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("call_type", sa.String(length=40), nullable=False),
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("query", sa.Text(), nullable=False),
        sa.Column("requested_by", sa.String(length=200), nullable=True),
        sa.Column("at_seq", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("mode", sa.String(length=40), nullable=True, comment="what produced the answer"),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("citations", _json(), nullable=False),
        sa.Column("details", _json(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("created_at", _utc(), nullable=False),
        sa.Column("completed_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_agent_calls_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_calls")),
    )
    with op.batch_alter_table("agent_calls", schema=None) as batch_op:
        batch_op.create_index(
            "ix_agent_calls_meeting_created", ["meeting_id", "created_at"], unique=False
        )

    op.create_table(
        "manager_states",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("format_version", sa.Integer(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("current_topic", sa.String(length=500), nullable=False),
        sa.Column("current_topic_id", sa.String(length=300), nullable=False),
        sa.Column("topic_index", sa.Integer(), nullable=False),
        sa.Column("topic_start_seq", sa.BigInteger(), nullable=False),
        sa.Column("topic_buffer_start_seq", sa.BigInteger(), nullable=False),
        sa.Column("last_summarized_seq", sa.BigInteger(), nullable=False),
        sa.Column("turn_count_since_l1", sa.Integer(), nullable=False),
        sa.Column("last_l1_update", _utc(), nullable=False),
        sa.Column("l1_update_count", sa.Integer(), nullable=False),
        sa.Column("detector_state", _json(), nullable=False),
        sa.Column(
            "speaker_state", _json(), nullable=False, comment="speaker statistics, interactions"
        ),
        sa.Column("saved_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_manager_states_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("meeting_id", name=op.f("pk_manager_states")),
    )
    op.create_table(
        "meeting_leases",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("owner", sa.String(length=200), nullable=False),
        sa.Column("acquired_at", _utc(), nullable=False),
        sa.Column("heartbeat_at", _utc(), nullable=False),
        sa.Column("expires_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_meeting_leases_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("meeting_id", name=op.f("pk_meeting_leases")),
    )
    op.create_table(
        "participants",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("user_id", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("role", sa.String(length=40), nullable=True),
        sa.Column("joined_at", _utc(), nullable=True),
        sa.Column("left_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_participants_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("meeting_id", "user_id", name=op.f("pk_participants")),
    )
    op.create_table(
        "topic_segments",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("segment_id", sa.String(length=300), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("start_seq", sa.BigInteger(), nullable=False),
        sa.Column("end_seq", sa.BigInteger(), nullable=False),
        sa.Column("key_points", _json(), nullable=False),
        sa.Column("keywords", _json(), nullable=False),
        sa.Column("key_decisions", _json(), nullable=False),
        sa.Column("pending_items", _json(), nullable=False),
        sa.Column("action_items", _json(), nullable=False),
        sa.Column("participants", _json(), nullable=False),
        sa.Column("summary_mode", sa.String(length=20), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", _utc(), nullable=True),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_topic_segments_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("meeting_id", "segment_id", name=op.f("pk_topic_segments")),
    )
    with op.batch_alter_table("topic_segments", schema=None) as batch_op:
        batch_op.create_index(
            "ix_topic_segments_meeting_start", ["meeting_id", "start_seq"], unique=False
        )

    op.create_table(
        "utterances",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("speaker_id", sa.String(length=200), nullable=False),
        sa.Column("speaker_name", sa.String(length=200), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("start_ms", sa.BigInteger(), nullable=False),
        sa.Column("end_ms", sa.BigInteger(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("absolute_timestamp", _utc(), nullable=False),
        sa.Column(
            "topic", sa.String(length=500), nullable=True, comment="topic label at ingest time"
        ),
        sa.Column("topic_id", sa.String(length=300), nullable=True),
        sa.Column("stored_at", _utc(), nullable=False),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_utterances_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("meeting_id", "seq", name=op.f("pk_utterances")),
    )
    with op.batch_alter_table("utterances", schema=None) as batch_op:
        batch_op.create_index(
            "ix_utterances_meeting_speaker_seq", ["meeting_id", "speaker_id", "seq"], unique=False
        )

    op.create_table(
        "embedding_cache",
        sa.Column("meeting_id", sa.String(length=200), nullable=False),
        sa.Column("model_id", sa.String(length=200), nullable=False),
        sa.Column("text_hash", sa.LargeBinary(length=16), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["meeting_id"],
            ["meetings.id"],
            name=op.f("fk_embedding_cache_meeting_id_meetings"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint(
            "meeting_id", "model_id", "text_hash", name=op.f("pk_embedding_cache")
        ),
    )
    with op.batch_alter_table("embedding_cache", schema=None) as batch_op:
        batch_op.create_index("ix_embedding_cache_meeting_seq", ["meeting_id", "seq"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("embedding_cache", schema=None) as batch_op:
        batch_op.drop_index("ix_embedding_cache_meeting_seq")

    op.drop_table("embedding_cache")
    with op.batch_alter_table("utterances", schema=None) as batch_op:
        batch_op.drop_index("ix_utterances_meeting_speaker_seq")

    op.drop_table("utterances")
    with op.batch_alter_table("topic_segments", schema=None) as batch_op:
        batch_op.drop_index("ix_topic_segments_meeting_start")

    op.drop_table("topic_segments")
    op.drop_table("participants")
    op.drop_table("meeting_leases")
    op.drop_table("manager_states")
    with op.batch_alter_table("agent_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_calls_meeting_created")

    op.drop_table("agent_calls")
    op.drop_table("meetings")
