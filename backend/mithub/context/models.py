"""Meeting memory data models (seed 002 §10.2.2). All datetimes are timezone-aware UTC."""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator


def _as_utc(value: datetime) -> datetime:
    return value.astimezone(timezone.utc)


class NewUtterance(BaseModel):
    """A final transcript as it arrives from STT or a replay file, before it gets its `seq`."""

    speaker_id: str = Field(min_length=1, max_length=200)
    speaker_name: str = Field(min_length=1, max_length=200)
    text: str = Field(min_length=1)
    start_ms: int = Field(0, ge=0)
    end_ms: int = Field(0, ge=0)
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    absolute_timestamp: AwareDatetime

    _utc = field_validator("absolute_timestamp")(_as_utc)

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("utterance text is blank")
        return value


class Utterance(BaseModel):
    """A stored utterance (L0). `id` is its per-meeting sequence number, starting at 1."""

    model_config = ConfigDict(frozen=True)

    id: int = Field(ge=1)
    speaker_id: str
    speaker_name: str
    text: str
    start_ms: int = 0
    end_ms: int = 0
    confidence: float = 1.0
    absolute_timestamp: AwareDatetime
    topic: str | None = None
    topic_id: str | None = None

    _utc = field_validator("absolute_timestamp")(_as_utc)

    @property
    def seq(self) -> int:
        return self.id


class TopicSegment(BaseModel):
    """One topic of the meeting (L1): a single segment however long the topic runs,
    its summary updated recursively."""

    id: str
    name: str
    summary: str
    start_utterance_id: int
    end_utterance_id: int
    key_points: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    key_decisions: list[str] = Field(default_factory=list)
    pending_items: list[str] = Field(default_factory=list)
    action_items: list[str] = Field(default_factory=list)
    participants: list[str] = Field(default_factory=list)
    summary_mode: Literal["llm", "extractive"] = "extractive"
    version: int = 1
    updated_at: AwareDatetime | None = None


class Participant(BaseModel):
    user_id: str
    name: str
    role: str | None = None
    joined_at: AwareDatetime | None = None
    left_at: AwareDatetime | None = None


AgentCallType = Literal["IMMEDIATE_RESPONSE", "SUMMARY", "ACTION_EXTRACTION", "SEARCH"]
AGENT_CALL_TYPES: tuple[AgentCallType, ...] = (
    "IMMEDIATE_RESPONSE",
    "SUMMARY",
    "ACTION_EXTRACTION",
    "SEARCH",
)

L1UpdateReason = Literal["topic_change", "turn_limit", "time_limit", "token_limit", "final"]


class TranscriptExcerpt(BaseModel):
    """Consecutive turns of this meeting, quoted whole or condensed (found by transcript
    search); `tokens` is what its lines cost in the prompt, separator included."""

    utterances: list[Utterance]
    score: float = 0.0
    tokens: int = 0
    said: list[str] = Field(default_factory=list, description="each turn's words as said (the "
                            "utterances may be condensed for the prompt); for citations")


class PastMeetingRef(BaseModel):
    """Which finished meeting a past item comes from, as its citations name it."""

    meeting_id: str
    series_id: str
    title: str | None = None
    started_at: AwareDatetime
    label: str = Field(description="how the prompt and replies name it, e.g. '5월 4일 회의'")


class PastExcerpt(BaseModel):
    """Consecutive turns of a finished meeting of the series (or of the organisation), found
    by the memory search; `utterances` keep their own meeting's seq."""

    meeting: PastMeetingRef
    utterances: list[Utterance]
    score: float = 0.0
    tokens: int = 0
    said: list[str] = Field(default_factory=list, description="each turn's words as said")


class PastTopic(BaseModel):
    """A topic segment of a finished meeting: name, summary, decisions, action items."""

    meeting: PastMeetingRef
    segment: TopicSegment
    score: float = 0.0
    tokens: int = 0


class LedgerChange(BaseModel):
    """A past decision quoted in a call's evidence that a later meeting changed (the series
    ledger): its old value, when and to what it changed, and where the value that holds now
    was said (the end of the chain of changes)."""

    meeting_id: str
    seq: int
    value: str
    changed_on: date
    changed_to: str
    current_meeting_id: str
    current_seq: int


class DocumentPassage(BaseModel):
    """A passage from the organisation's documents or a past meeting (hybrid retrieval)."""

    id: str
    text: str
    source: str = Field(description="citation label: path > headers, or meeting, speaker, time")
    title: str | None = None
    path: str | None = None
    score: float = 0.0


class AgentContext(BaseModel):
    """What an agent call gets injected (seed 002 §4.3), plus the evidence found for the query
    (transcript excerpts, documents) and what it costs in tokens."""

    meeting_id: str
    current_time: AwareDatetime
    call_type: AgentCallType

    recent_utterances: list[Utterance] | None = None
    current_topic: str | None = None

    topic_segments: list[TopicSegment] | None = None
    pending_items: list[str] | None = None

    participants: list[Participant] = Field(default_factory=list)
    speaker_roles: dict[str, str] = Field(default_factory=dict)

    user_query: str | None = None
    transcript_excerpts: list[TranscriptExcerpt] = Field(default_factory=list)
    past_topics: list[PastTopic] = Field(default_factory=list)
    past_excerpts: list[PastExcerpt] = Field(default_factory=list)
    documents: list[DocumentPassage] = Field(default_factory=list)
    decision_changes: list[LedgerChange] = Field(default_factory=list, description="changed decisions "
                                                 "the evidence quotes; their current turns lead it")
    token_count: int = 0
    token_budget: int = 0
