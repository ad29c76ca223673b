"""The record of one meeting: its decisions, action items and pending items, extracted from
its turns LLM-free (`record.decisions`, `record.actions`, `record.pending`). Kept in the
store when the meeting ends; extracted again on demand while it runs."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Literal, Protocol

from pydantic import AwareDatetime, Field

from mithub.clock import MeetingClock, local_date, zone_name
from mithub.context.models import Utterance
from mithub.record.actions import extract_action_items
from mithub.record.decisions import extract_decisions
from mithub.record.models import ActionItem, Decision, PendingItem
from mithub.record.pending import extract_pending_items


class MeetingRecord(MeetingClock):
    meeting_id: str
    series_id: str
    started_at: AwareDatetime
    last_seq: int = 0
    decisions: list[Decision] = Field(default_factory=list)
    action_items: list[ActionItem] = Field(default_factory=list)
    pending_items: list[PendingItem] = Field(default_factory=list)
    mode: Literal["extractive", "llm", "mixed"] = Field(
        "extractive", description="who extracted it: the LLM-free rules, the LLM, or the LLM with "
        "the rules where it failed")


def extract_record(
    meeting_id: str, series_id: str, started_at: AwareDatetime, utterances: Sequence[Utterance],
    *, earlier: Sequence[tuple[date, Sequence[Utterance]]] = (),
) -> MeetingRecord:
    """What the meeting settled; due dates resolve against its local start date. `started_at`
    is on the meeting's own clock (as the store gives it back): its zone is the meeting's.
    `earlier` (local date, turns): the series' meetings before it, oldest first, where an event
    a deadline hangs on may have been dated ("점검 전날까지" after last week's "점검은 10일로")."""
    turns = list(utterances)
    zone = zone_name(started_at)
    decisions = extract_decisions(meeting_id, turns, started_at)
    settled = {d.seq for d in decisions if not d.candidate}
    return MeetingRecord(
        meeting_id=meeting_id, series_id=series_id, started_at=started_at, timezone=zone,
        last_seq=turns[-1].id if turns else 0,
        decisions=decisions,
        action_items=extract_action_items(meeting_id, turns, local_date(started_at, zone), earlier=earlier),
        # One record: a line that settles a decision is not also left open (issue 19 item 5).
        pending_items=[p for p in extract_pending_items(meeting_id, turns) if p.seq not in settled],
    )


EARLIER_MEETINGS = 4  # the series' latest finished meetings whose dated events a deadline may hang on


class EarlierSource(Protocol):
    """The store as `earlier_meetings` reads it (the SQL and in-memory repositories both are one)."""

    async def series_records(self, series_id: str) -> list[MeetingRecord]: ...

    async def get_utterances(self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
                             limit: int | None = None) -> list[Utterance]: ...


async def earlier_meetings(store: EarlierSource, series_id: str, meeting_id: str, started_at: datetime,
                           *, records: Sequence[MeetingRecord] | None = None) -> list[tuple[date, list[Utterance]]]:
    """(local date, turns) of the series' latest finished meetings before this one, oldest
    first, as `extract_record(earlier=)` takes them: "점검 전날까지" today takes the date last
    week's meeting gave 점검. The stored record, the running meeting's record and the running
    meeting's minutes all read them, so the three give an item the same due date. `records`:
    the series' records when the caller has read them already."""
    if records is None:
        records = await store.series_records(series_id)
    records = sorted((r for r in records if r.meeting_id != meeting_id and r.started_at < started_at),
                     key=lambda r: r.started_at)[-EARLIER_MEETINGS:]
    return [(local_date(r.started_at, r.timezone), await store.get_utterances(r.meeting_id)) for r in records]
