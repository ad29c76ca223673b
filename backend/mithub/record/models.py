"""What a meeting settled (DESIGN §5): decisions and changes to past decisions.

These models cross boundaries (store, API, CLI JSON), so they are pydantic; every
datetime is timezone-aware UTC.
"""

from __future__ import annotations

from datetime import date, datetime, timezone
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field, field_validator


def _as_utc(value: datetime) -> datetime:
    return value.astimezone(timezone.utc)


class Decision(BaseModel):
    """One decision settled in a meeting, citing the utterance that settled it."""

    id: str
    meeting_id: str
    seq: int = Field(ge=1)
    speaker: str
    time: AwareDatetime
    subject: str
    value: str
    quote: str
    said: str = Field("", description="the words the decision rests on, uncut (the quote is cut for display; an "
                      "adopted proposal is the agreement and the proposal): what the change check reads; empty in "
                      "records stored before it, which are read by their quote")
    discussed: list[str] = Field(default_factory=list, description="the key terms of the talk that led to it (the "
                                 "lines since the decision shown before it, at most 12, and the line after): what the "
                                 "change check reads as its subject when its own line is terse (\"Keyframe. Done.\"); "
                                 "empty in records stored before it")
    value_type: str = Field("choice", description="the kind of the settled value: amount, date, percent, count, "
                            "duration, time, number, person, name, or choice (an option named without a value)")
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="the settle model's probability")
    candidate: bool = Field(False, description="below the threshold users see: stored, shown only on request")
    status: Literal["active", "changed"] = "active"
    changed_by: str | None = None

    _utc = field_validator("time")(_as_utc)


class PastRef(BaseModel):
    """The past decision a change points at, as the notice quotes it."""

    meeting_id: str
    seq: int
    quote: str


class DecisionChange(BaseModel):
    """A line of a later meeting that changes or contradicts an active decision."""

    meeting_id: str
    seq: int = Field(ge=1)
    speaker: str
    time: AwareDatetime
    quote: str
    kind: Literal["explicit", "implicit"]
    decision_id: str
    past: PastRef
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="the change model's probability")
    candidate: bool = Field(False, description="below the threshold users see: stored, shown only on request")

    _utc = field_validator("time")(_as_utc)


class ActionItem(BaseModel):
    """A commitment made in a meeting: who does what, by when, citing where it was settled."""

    meeting_id: str
    seq: int = Field(ge=1)
    owner: str
    task: str
    due_text: str | None = None
    due_date: date | None = None
    quote: str
    support_seqs: list[int] = Field(default_factory=list)
    speaker: str
    time: AwareDatetime
    confidence: float = Field(1.0, ge=0.0, le=1.0, description="the commitment model's probability")
    candidate: bool = Field(False, description="below the threshold users see: stored, shown only on request")

    _utc = field_validator("time")(_as_utc)


class PendingItem(BaseModel):
    """A topic the meeting left open (보류, 미정, "let's park that")."""

    meeting_id: str
    seq: int = Field(ge=1)
    speaker: str
    time: AwareDatetime
    text: str
    quote: str

    _utc = field_validator("time")(_as_utc)
