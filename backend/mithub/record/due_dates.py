"""The dates said in one meeting, each read in the meeting's context: a due date as a person means it.

`resolve_date_expressions` reads one expression against the meeting's date. A meeting says more:
a bare "19일" is in the month named last; "24일에 올리겠습니다" right after "24일 금요일에" is
that same Friday, and "목요일로 잡겠습니다" after "다음 주 목요일에" is next week's (a date repeated
in short is the date just said); "오픈 전날까지" is the day before the opening the meeting dated
(`record.event_dates`). `MeetingDates` holds that context for one meeting.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, timedelta
from functools import cached_property, lru_cache

from mithub.context.models import Utterance
from mithub.record.dates import KO_DEMONSTRATIVES, DateMention, repeated_date, resolve_date_expressions
from mithub.record.event_dates import EventDate, anchor_phrases, event_date, event_table

MONTH_HINT_LINES = 8  # a named month still dates a bare day number ("19일에는") this many lines on

# "오늘 정한 건": a date that modifies something already done is no deadline.
_NOT_A_DUE = re.compile(r"\s*[가-힣]*[한된온간던]\s*(?:건|거|것|내용|사항)")
# "5월 11일 이후로", "after March 1": the day something starts from, not a deadline.
_START_AFTER = re.compile(r"\s*이후")
_TIME_OF_DAY = re.compile(r"(?:점심|오전|오후|아침|저녁|밤|시|반)$")
_START_BEFORE = re.compile(r"\b(?:after|since|starting(?:\s+from)?|from)\s+(?:the\s+)?$", re.IGNORECASE)
_TOPIC = re.compile(r"(?<!에)(?<!까지)[은는]$")  # "5일은 …" is a topic; "월말까지는" still a deadline
_DEMONSTRATIVE = re.compile(r"^(?:그|이|저|that|this|these|those)\s", re.IGNORECASE)  # "그 회의 전까지": the one just said
_ELIDED_EVENT = re.compile(r"\b(?:before|earlier)$", re.IGNORECASE)
_MONTH = re.compile(r"(\d{1,2})\s*월(?!\s*요일)|\b(january|february|march|april|may|june|july|august|september"
                    r"|october|november|december)\b(?=\s+(?:the\s+)?\d|\s+[\w-]+(?:st|nd|rd|th)\b)", re.IGNORECASE)
_EN_MONTH_NUMBER = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}


def month_hints(turns: Sequence[Utterance], window: int = MONTH_HINT_LINES) -> list[int | None]:
    """For each line, the month named most recently in the lines just before it: a bare
    "19일" or "the 22nd" is in that month. Further back, the month is the meeting's."""
    named: list[int | None] = []
    for turn in turns:
        last = None
        for m in _MONTH.finditer(turn.text):
            last = int(m.group(1)) if m.group(1) else _EN_MONTH_NUMBER[m.group(2).lower()]
        named.append(last)
    hints: list[int | None] = []
    for line in range(len(turns)):
        recent = [n for n in named[max(0, line - window):line] if n is not None]
        hints.append(recent[-1] if recent else None)
    return hints


def starts_from(text: str, mention: DateMention) -> bool:
    """"5월 11일 이후로", "6월 1일부터", "after March 1": the day something starts from, which
    dates an event ("그 전까지") but is no deadline itself."""
    if mention.kind in ("event", "recurring"):
        return False  # "이번 주부터" is a schedule, its own kind
    after = _START_AFTER.match(text, mention.end) and not _TIME_OF_DAY.search(mention.text)  # "점심 이후": the hour
    return bool(after or _START_BEFORE.search(text[:mention.start]) or mention.text.endswith("부터"))


class MeetingDates:
    """The date context of one meeting's turns, against its local date; `earlier` (local date,
    turns) are the series' meetings before it, oldest first, where its events may be dated."""

    def __init__(self, turns: Sequence[Utterance], meeting_date: date,
                 earlier: Sequence[tuple[date, Sequence[Utterance]]] = ()) -> None:
        self.turns, self.meeting_date = list(turns), meeting_date
        self.months = month_hints(self.turns)
        self.earlier = [(list(past), day, month_hints(past)) for day, past in earlier]
        self._said = lru_cache(maxsize=None)(self._said_on)

    def _said_on(self, line: int) -> list[DateMention]:
        return [m for m in resolve_date_expressions(self.turns[line].text, self.meeting_date,
                                                    month_hint=self.months[line]) if m.date is not None]

    def _echo(self, m: DateMention, line: int) -> date | None:
        """The date a short one repeats in a reply: the fuller date of the line just before,
        by someone else, with the same day number (for "24일") or weekday (for "목요일")."""
        if line == 0 or self.turns[line - 1].speaker_name == self.turns[line].speaker_name:
            return None
        return repeated_date(m, self._said(line - 1))

    def mentions(self, text: str, line: int) -> list[DateMention]:
        """The date expressions of `text` (said on `line`) that can be a due date, each dated
        in the meeting's context."""
        found = []
        for m in resolve_date_expressions(text, self.meeting_date, month_hint=self.months[line]):
            if _NOT_A_DUE.match(text, m.end) or _TOPIC.search(m.text):
                continue
            echo = self._echo(m, line)
            found.append(m.model_copy(update={"date": echo}) if echo else m)
        return found

    @cached_property
    def events(self) -> list[EventDate]:
        """The meeting's event table, read once and only when a deadline hangs on an event."""
        return event_table(self.turns, self.meeting_date, self.months, self.earlier)

    def event_deadline(self, mention: DateMention, line: int, source: str) -> date | None:
        """The date of a deadline hung on an event ("그 전까지", "출시 2주 전까지", "before the first
        open house"), with its offset: a date said in the event's own words ("다음 주 화요일 회의
        전까지"); for a named event, its date in the event table (none there: no date); "three
        days before" takes the event named just before; a pronoun, "그 회의" not in the table or
        the next meeting takes a date of the last two lines."""
        turns = self.turns
        anchor = (mention.anchor or "").strip()
        offset = max(0, turns[line].text.find(source[:20]))
        said_before = turns[line].text[: offset + mention.start]
        pronoun = anchor in KO_DEMONSTRATIVES  # "그 전까지": the date just said, below
        own = [] if pronoun else [m for m in self.mentions(said_before[-12:] + " " + anchor, line) if m.date is not None]
        if own:
            return own[-1].date + timedelta(days=mention.offset_days)  # type: ignore[operator]
        if not anchor and _ELIDED_EVENT.search(mention.text):
            anchor = self._last_anchor(said_before, line) or ""
            if not anchor:
                return None
        phrases = anchor_phrases(anchor) if anchor else []  # "before it goes out": no noun, a pronoun
        if phrases:
            day = next((d for p in phrases if (d := event_date(p, self.events, self.meeting_date))), None)
            if day is not None or not _DEMONSTRATIVE.match(anchor):
                return day + timedelta(days=mention.offset_days) if day else None
        lines = [(line, said_before)] + [(k, turns[k].text) for k in range(line - 1, max(-1, line - 3), -1)]
        for index, text in lines:
            dated = [m for m in self.mentions(text, index) if m.date is not None]
            if dated:
                return dated[-1].date + timedelta(days=mention.offset_days)  # type: ignore[operator]
        return None

    def _last_anchor(self, said_before: str, line: int) -> str | None:
        """The event named last in this line or the three before ("before we go in the chamber")."""
        lines = [(line, said_before)] + [(k, self.turns[k].text) for k in range(line - 1, max(-1, line - 4), -1)]
        for index, text in lines:
            anchors = [m.anchor for m in self.mentions(text, index) if m.kind == "event" and m.anchor]
            if anchors:
                return anchors[-1]
        return None
