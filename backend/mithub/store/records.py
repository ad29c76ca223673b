"""Store records that cross the API/CLI boundary (meetings, agent calls) and the ports for
the parts of the store besides the ContextManager's own (`MeetingRepository`)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import AwareDatetime, BaseModel, Field

from mithub.clock import MeetingClock, utc_now
from mithub.context.models import AgentCallType, Participant

AgentCallSource = Literal["chat", "wake_phrase", "rpc", "http", "cli"]
AgentCallStatus = Literal["pending", "answered", "failed"]


class MeetingInfo(MeetingClock):
    """A meeting's identity: one session of a room, in a series, with its dates."""

    id: str
    series_id: str
    title: str | None = None
    started_at: AwareDatetime
    ended_at: AwareDatetime | None = None


class MeetingOverview(MeetingClock):
    """One line of `mithub meetings list`."""

    id: str
    series_id: str
    title: str | None = None
    created_at: AwareDatetime
    started_at: AwareDatetime
    ended_at: AwareDatetime | None = None
    utterance_count: int = 0
    last_utterance_at: AwareDatetime | None = None
    topic_count: int = 0
    current_topic: str | None = None
    lease_owner: str | None = None
    lease_expires_at: AwareDatetime | None = None


class SeriesOverview(BaseModel):
    """A series (a team's recurring meeting) and its meetings, oldest first."""

    id: str
    meetings: list[MeetingOverview]


class AgentCallRecord(BaseModel):
    """One agent call during a meeting: the request, then its answer (or failure)."""

    id: str = Field(default_factory=lambda: uuid.uuid4().hex)
    meeting_id: str
    call_type: AgentCallType
    source: AgentCallSource = "http"
    query: str
    requested_by: str | None = Field(None, description="speaker id of who asked, if known")
    at_seq: int = Field(0, ge=0, description="last utterance of the meeting when asked")
    status: AgentCallStatus = "pending"
    mode: str | None = Field(None, description="what produced the answer: llm, cache, template...")
    answer: str | None = None
    citations: list[dict[str, Any]] = Field(default_factory=list)
    details: dict[str, Any] = Field(default_factory=dict, description="timings, token counts")
    error: str | None = None
    latency_ms: float | None = None
    created_at: AwareDatetime = Field(default_factory=utc_now)
    completed_at: AwareDatetime | None = None


@runtime_checkable
class MeetingCatalog(Protocol):
    """Meetings, participants and agent calls. Not fenced by the writer lease: the API
    process records agent calls for meetings another worker transcribes."""

    async def ensure_meeting(
        self, meeting_id: str, *, title: str | None = None, series_id: str | None = None,
        started_at: datetime | None = None, timezone: str | None = None, reopen: bool = False,
    ) -> None: ...

    async def list_meetings(self, series_id: str | None = None) -> list[MeetingOverview]: ...

    async def upsert_participant(self, meeting_id: str, participant: Participant) -> None: ...

    async def list_participants(self, meeting_id: str) -> list[Participant]: ...

    async def record_agent_call(self, call: AgentCallRecord) -> None:
        """Insert or replace (by id): record it when asked, again when answered."""
        ...

    async def list_agent_calls(self, meeting_id: str) -> Sequence[AgentCallRecord]: ...
