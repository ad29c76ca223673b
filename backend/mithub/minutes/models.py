"""The minutes of one meeting (issue 20): what a person reads after it ends, composed from the
store's record (`minutes.compose`), stored with the meeting, rendered as Markdown or a chat
message (`minutes.render`) and delivered as JSON.

Every item cites the speaker, the time and the transcript line (`seq`) it comes from. Times
are on the meeting's own clock (the offset of its zone), and `date` and due dates are its
local calendar days; the text fields hold the raw words (escaping is the renderer's job).
"""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field

from mithub.clock import MeetingClock

MinutesLanguage = Literal["ko", "en"]
MinutesMode = Literal["extractive", "llm"]


class MinutesParticipant(BaseModel):
    name: str
    talk_seconds: float = Field(0.0, ge=0, description="the sum of the speaker's turns' durations")
    turns: int = Field(0, ge=0)


class MinutesTopic(BaseModel):
    """One topic of the meeting's timeline, with its summary."""

    title: str
    start: AwareDatetime
    end: AwareDatetime
    summary: str
    first_seq: int = Field(ge=1)
    last_seq: int = Field(ge=1)
    speakers: list[str] = Field(default_factory=list, description="who spoke in it, most turns first")


class PreviousDecision(BaseModel):
    """The earlier decision of the series a decision of this meeting changed."""

    value: str | None = None
    quote: str
    speaker: str
    meeting_id: str
    meeting_title: str | None = None
    date: dt.date = Field(description="the earlier meeting's local date")
    seq: int = Field(ge=1)


class MinutesDecision(BaseModel):
    text: str = Field(description="what was decided, as the record words it (subject: value)")
    value: str | None = None
    quote: str = Field("", description="the line that settled it, as said")
    speaker: str
    time: AwareDatetime
    seq: int = Field(ge=1)
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    changed_since_last: PreviousDecision | None = Field(
        None, description="set when this line changed an active decision of an earlier meeting of the series")


class MinutesActionItem(BaseModel):
    task: str
    owner: str
    due: dt.date | None = Field(None, description="the due date on the meeting's calendar")
    due_text: str | None = Field(None, description="the words that set it (\"다음 주 금요일\")")
    speaker: str
    time: AwareDatetime
    seq: int = Field(ge=1)
    confidence: float = Field(1.0, ge=0.0, le=1.0)


class MinutesQuestion(BaseModel):
    """A matter the meeting left open."""

    text: str
    speaker: str
    time: AwareDatetime
    seq: int = Field(ge=1)


class Minutes(MeetingClock):
    """The minutes; `mode` says whether an LLM polished the topic summaries' prose ("llm") or
    every word is the record's own ("extractive", also when the LLM failed)."""

    meeting_id: str
    series_id: str
    title: str
    date: dt.date = Field(description="the meeting's local date")
    started_at: AwareDatetime
    ended_at: AwareDatetime | None = None
    language: MinutesLanguage = "en"
    participants: list[MinutesParticipant] = Field(default_factory=list)
    topics: list[MinutesTopic] = Field(default_factory=list)
    decisions: list[MinutesDecision] = Field(default_factory=list)
    action_items: list[MinutesActionItem] = Field(default_factory=list)
    open_questions: list[MinutesQuestion] = Field(default_factory=list)
    mode: MinutesMode = "extractive"
    composed_at: AwareDatetime

    def changes(self) -> list[MinutesDecision]:
        """The decisions that changed an earlier meeting's decision."""
        return [d for d in self.decisions if d.changed_since_last is not None]
