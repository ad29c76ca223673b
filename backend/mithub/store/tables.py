"""SQLAlchemy 2 models of the meeting store. The schema itself is created and changed only by
the Alembic migrations in `migrations/`; a test keeps these models and the migrations equal.

Types work on PostgreSQL and SQLite alike: JSON is JSONB on PostgreSQL, timestamps are
`timestamptz` on PostgreSQL and UTC text on SQLite (read back as UTC-aware either way).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Deterministic constraint names, so migrations can refer to them on both databases.
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

JsonValue = JSON().with_variant(JSONB(), "postgresql")


def _meeting_fk() -> ForeignKey:
    return ForeignKey("meetings.id", ondelete="CASCADE")


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on both databases. SQLite keeps no zone, so values are
    stored as UTC wall time and given `timezone.utc` back on read; naive input is refused
    rather than guessed."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("the store only accepts timezone-aware datetimes (use UTC)")
        return value.astimezone(timezone.utc)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)
    type_annotation_map = {datetime: UTCDateTime(), dict[str, Any]: JsonValue, list[Any]: JsonValue}


class MeetingRow(Base):
    """One session of a room. `series_id` groups the sessions of one team (the room name,
    unless the room's metadata names a series); `ended_at` is set when it is finalized, and
    only then does it become part of the organisation's memory."""

    __tablename__ = "meetings"

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    series_id: Mapped[str] = mapped_column(String(200), index=True)
    title: Mapped[str | None] = mapped_column(String(500))
    created_at: Mapped[datetime]
    started_at: Mapped[datetime | None]
    ended_at: Mapped[datetime | None]
    timezone: Mapped[str] = mapped_column(
        String(64), comment="the meeting's own zone (IANA name, +HH:MM or UTC): what its times, "
        "dates and due dates are shown and resolved in; instants stay UTC")


class ParticipantRow(Base):
    __tablename__ = "participants"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    user_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[str | None] = mapped_column(String(40))
    joined_at: Mapped[datetime | None]
    left_at: Mapped[datetime | None]


class UtteranceRow(Base):
    __tablename__ = "utterances"
    __table_args__ = (
        Index("ix_utterances_meeting_speaker_seq", "meeting_id", "speaker_id", "seq"),
    )

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    speaker_id: Mapped[str] = mapped_column(String(200))
    speaker_name: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    start_ms: Mapped[int] = mapped_column(BigInteger)
    end_ms: Mapped[int] = mapped_column(BigInteger)
    confidence: Mapped[float] = mapped_column(Float)
    absolute_timestamp: Mapped[datetime]
    topic: Mapped[str | None] = mapped_column(String(500), comment="topic label at ingest time")
    topic_id: Mapped[str | None] = mapped_column(String(300))
    stored_at: Mapped[datetime]


class TopicSegmentRow(Base):
    __tablename__ = "topic_segments"
    __table_args__ = (Index("ix_topic_segments_meeting_start", "meeting_id", "start_seq"),)

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    segment_id: Mapped[str] = mapped_column(String(300), primary_key=True)
    name: Mapped[str] = mapped_column(String(500))
    summary: Mapped[str] = mapped_column(Text)
    start_seq: Mapped[int] = mapped_column(BigInteger)
    end_seq: Mapped[int] = mapped_column(BigInteger)
    key_points: Mapped[list[Any]]
    keywords: Mapped[list[Any]]
    key_decisions: Mapped[list[Any]]
    pending_items: Mapped[list[Any]]
    action_items: Mapped[list[Any]]
    participants: Mapped[list[Any]]
    summary_mode: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime | None]


class ManagerStateRow(Base):
    """The last saved ManagerState of a meeting (one row, replaced on every L1 update)."""

    __tablename__ = "manager_states"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    format_version: Mapped[int] = mapped_column(Integer)
    last_seq: Mapped[int] = mapped_column(BigInteger)
    current_topic: Mapped[str] = mapped_column(String(500))
    current_topic_id: Mapped[str] = mapped_column(String(300))
    topic_index: Mapped[int] = mapped_column(Integer)
    topic_start_seq: Mapped[int] = mapped_column(BigInteger)
    topic_buffer_start_seq: Mapped[int] = mapped_column(BigInteger)
    last_summarized_seq: Mapped[int] = mapped_column(BigInteger)
    turn_count_since_l1: Mapped[int] = mapped_column(Integer)
    last_l1_update: Mapped[datetime]
    l1_update_count: Mapped[int] = mapped_column(Integer)
    detector_state: Mapped[dict[str, Any]]
    speaker_state: Mapped[dict[str, Any]] = mapped_column(
        comment="speaker statistics, interactions"
    )
    saved_at: Mapped[datetime]


class AgentCallRow(Base):
    __tablename__ = "agent_calls"
    __table_args__ = (Index("ix_agent_calls_meeting_created", "meeting_id", "created_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk())
    call_type: Mapped[str] = mapped_column(String(40))
    source: Mapped[str] = mapped_column(String(40))
    query: Mapped[str] = mapped_column(Text)
    requested_by: Mapped[str | None] = mapped_column(String(200))
    at_seq: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(20))
    mode: Mapped[str | None] = mapped_column(String(40), comment="what produced the answer")
    answer: Mapped[str | None] = mapped_column(Text)
    citations: Mapped[list[Any]]
    details: Mapped[dict[str, Any]]
    error: Mapped[str | None] = mapped_column(Text)
    latency_ms: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime]
    completed_at: Mapped[datetime | None]


class MeetingLeaseRow(Base):
    """One writer per meeting: the owner renews `expires_at`; anyone may take an expired lease."""

    __tablename__ = "meeting_leases"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200))
    acquired_at: Mapped[datetime]
    heartbeat_at: Mapped[datetime]
    expires_at: Mapped[datetime]


class EmbeddingCacheRow(Base):
    """Vectors a meeting's embedder computed (float32 numpy bytes, never pickle), so a restore
    does not embed the detector's history window again. `seq` is the meeting's last stored
    utterance when the vector was saved; a restore loads only the recent ones."""

    __tablename__ = "embedding_cache"
    __table_args__ = (Index("ix_embedding_cache_meeting_seq", "meeting_id", "seq"),)

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    model_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    text_hash: Mapped[bytes] = mapped_column(LargeBinary(16), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger)
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class MeetingRecordRow(Base):
    """What a meeting settled (decisions, action items, pending items), extracted when it
    ended: one row per meeting, replaced if it ends again."""

    __tablename__ = "meeting_records"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    series_id: Mapped[str] = mapped_column(String(200), index=True)
    started_at: Mapped[datetime]
    timezone: Mapped[str] = mapped_column(String(64), comment="the meeting's zone when extracted")
    last_seq: Mapped[int] = mapped_column(BigInteger)
    decisions: Mapped[list[Any]]
    action_items: Mapped[list[Any]]
    pending_items: Mapped[list[Any]]
    extracted_at: Mapped[datetime]


class DecisionChangeRow(Base):
    """A line that changed or contradicted an active decision of the series, as detected live."""

    __tablename__ = "decision_changes"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    series_id: Mapped[str] = mapped_column(String(200), index=True)
    decision_id: Mapped[str] = mapped_column(String(300))
    kind: Mapped[str] = mapped_column(String(20))
    speaker: Mapped[str] = mapped_column(String(200))
    time: Mapped[datetime]
    quote: Mapped[str] = mapped_column(Text)
    past: Mapped[dict[str, Any]]
    detected_at: Mapped[datetime]


class MeetingMinutesRow(Base):
    """A meeting's minutes, composed from its record when it ended: one row per meeting,
    replaced when they are composed again."""

    __tablename__ = "meeting_minutes"

    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), primary_key=True)
    composed_at: Mapped[datetime]
    language: Mapped[str] = mapped_column(String(8))
    mode: Mapped[str] = mapped_column(String(20))
    body: Mapped[dict[str, Any]] = mapped_column(comment="the minutes as JSON (mithub.minutes.models.Minutes)")
    markdown: Mapped[str] = mapped_column(Text)


# ---------------------------------------------------------------- minutes delivery (issue 20)


class MinutesDeliveryRow(Base):
    """One delivery of a meeting's minutes to the webhook (minutes/delivery.py): stored before
    the first attempt, so a receiver that is down or a restart loses nothing. `body` is the
    exact bytes POSTed (and signed), as UTF-8 text; `attempt_log` lists every attempt."""

    __tablename__ = "minutes_deliveries"
    __table_args__ = (Index("ix_minutes_deliveries_status_next", "status", "next_attempt_at"),)

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    meeting_id: Mapped[str] = mapped_column(String(200), _meeting_fk(), index=True)
    url: Mapped[str] = mapped_column(Text, comment="may hold a token: log its host only")
    format: Mapped[str] = mapped_column(String(20))
    body: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), comment="pending, delivered or failed")
    attempts: Mapped[int] = mapped_column(Integer)
    attempt_log: Mapped[list[Any]] = mapped_column(
        comment="one object per attempt: at, outcome, status_code, error, seconds")
    next_attempt_at: Mapped[datetime]
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    delivered_at: Mapped[datetime | None]
