"""What the recap page's templates draw, computed from the minutes, the transcript and the
series ledger: the topic timeline to scale, the talk-time chart, the transcript's lines with
their anchors, the series' meetings with their counts, and the ledger's filtered items.

Plain data for Jinja2 (which escapes every text it prints); no HTML is built here. Times are
strings on each meeting's own clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, tzinfo
from typing import Literal
from urllib.parse import quote

from mithub.api.ui_labels import Language, duration_text
from mithub.clock import local_date, local_time, stamp
from mithub.context.models import PastExcerpt, PastTopic, Utterance
from mithub.minutes.models import Minutes, MinutesParticipant
from mithub.record.ledger import SeriesLedger, change_id
from mithub.record.models import ActionItem, Decision, DecisionChange
from mithub.store.records import MeetingOverview

COLORS = 6  # topic bar colours, `c0`..`c5` in ui.css
ActionState = Literal["open", "due"]


def meeting_url(meeting_id: str, seq: int | None = None) -> str:
    """The meeting page, at a transcript line (`#t-<seq>`) when given."""
    url = f"/ui/meetings/{quote(meeting_id, safe='')}"
    return f"{url}#t-{seq}" if seq is not None else url


# ---------------------------------------------------------------------- a meeting


@dataclass(frozen=True)
class TopicBar:
    """A topic on the timeline: where it starts (`x`) and how long it runs (`width`), both in
    percent of the meeting's length."""

    number: int
    title: str
    summary: str
    start: str
    end: str
    x: float
    width: float
    first_seq: int
    last_seq: int
    speakers: list[str]
    color: int


def timeline(minutes: Minutes) -> list[TopicBar]:
    if not minutes.topics:
        return []
    first = min(minutes.started_at, minutes.topics[0].start)
    last = max(minutes.ended_at or minutes.topics[-1].end, max(t.end for t in minutes.topics))
    span = max((last - first).total_seconds(), 1.0)
    bars = []
    for number, topic in enumerate(minutes.topics, start=1):
        x = 100 * (topic.start - first).total_seconds() / span
        width = max(100 * (topic.end - topic.start).total_seconds() / span, 0.5)
        bars.append(TopicBar(number=number, title=topic.title, summary=topic.summary,
                             start=f"{minutes.local(topic.start):%H:%M}", end=f"{minutes.local(topic.end):%H:%M}",
                             x=round(min(x, 99.5), 2), width=round(min(width, 100 - min(x, 99.5)), 2),
                             first_seq=topic.first_seq, last_seq=topic.last_seq, speakers=topic.speakers,
                             color=(number - 1) % COLORS))
    return bars


@dataclass(frozen=True)
class TalkBar:
    name: str
    label: str
    y: int
    width: float
    value: str
    share: int


@dataclass(frozen=True)
class TalkChart:
    """An inline-SVG bar chart (viewBox units): a row per speaker, most talk first."""

    bars: list[TalkBar]
    width: int
    height: int
    label_width: int
    bar_max: int
    row: int


def talk_chart(participants: Sequence[MinutesParticipant], language: Language) -> TalkChart:
    row, label_width, bar_max = 30, 96, 210
    most = max((p.talk_seconds for p in participants), default=0.0) or 1.0
    total = sum(p.talk_seconds for p in participants) or 1.0
    bars = [TalkBar(name=p.name, label=p.name if len(p.name) <= 12 else p.name[:11] + "…", y=i * row,
                    width=round(bar_max * p.talk_seconds / most, 1), value=duration_text(p.talk_seconds, language),
                    share=round(100 * p.talk_seconds / total))
            for i, p in enumerate(participants)]
    return TalkChart(bars=bars, width=label_width + bar_max + 110, height=max(len(bars), 1) * row,
                     label_width=label_width, bar_max=bar_max, row=row)


@dataclass(frozen=True, slots=True)
class Line:
    """A transcript line; `topic` is set on the first line of a topic (its heading goes before)."""

    seq: int
    time: str
    speaker: str
    text: str
    cited: bool
    topic: TopicBar | None


def transcript(turns: Sequence[Utterance], bars: Sequence[TopicBar], cited: set[int], zone: tzinfo) -> list[Line]:
    """The lines, times as HH:MM:SS on the meeting's clock (`local_time`: what `on_meeting_clock`
    does to a model, for one field, at a tenth of the cost over 2,000 turns)."""
    starts = {bar.first_seq: bar for bar in bars}
    return [Line(u.id, f"{local_time(u.absolute_timestamp, zone):%H:%M:%S}", u.speaker_name, u.text, u.id in cited,
                 starts.get(u.id)) for u in turns]


def cited_seqs(minutes: Minutes) -> set[int]:
    return {item.seq for group in (minutes.decisions, minutes.action_items, minutes.open_questions)
            for item in group}


# ---------------------------------------------------------------------- the series list


@dataclass(frozen=True)
class MeetingRow:
    id: str
    title: str
    when: str
    turns: int
    decisions: int
    open_actions: int
    url: str


@dataclass(frozen=True)
class SeriesRow:
    id: str
    meetings: list[MeetingRow]
    latest: datetime | None  # its newest meeting's start: the series with the newest meeting first


def action_state(action: ActionItem, today: date) -> ActionState:
    """`due` once its due date (on its meeting's calendar) is today or past; `open` before,
    and when no date was set."""
    return "due" if action.due_date is not None and action.due_date <= today else "open"


def series_row(series_id: str, meetings: Sequence[MeetingOverview], ledger: SeriesLedger,
               now: datetime) -> SeriesRow:
    """The series' meetings, newest first, each with its decisions and its open action items."""
    decisions = Counter(d.meeting_id for d in ledger.decisions)
    zones = {m.id: m.zone for m in meetings}
    open_actions = Counter(a.meeting_id for a in ledger.actions if a.meeting_id in zones
                           and action_state(a, local_date(now, zones[a.meeting_id])) == "open")
    rows = [MeetingRow(id=m.id, title=m.title or m.id, when=stamp(m.started_at), turns=m.utterance_count,
                       decisions=decisions[m.id], open_actions=open_actions[m.id], url=meeting_url(m.id))
            for m in sorted(meetings, key=lambda m: (m.started_at, m.id), reverse=True)]
    return SeriesRow(id=series_id, meetings=rows, latest=max((m.started_at for m in meetings), default=None))


# ---------------------------------------------------------------------- the ledger


@dataclass(frozen=True)
class Quote:
    """A quoted line of a meeting, with where it was said and the link to it."""

    text: str
    speaker: str
    when: str
    meeting: str
    url: str


@dataclass(frozen=True)
class LedgerDecision:
    decision: Decision
    quote: Quote
    change: DecisionChange | None
    change_quote: Quote | None
    new_value: str | None = None  # the value the changing line settled, when the record kept it


@dataclass(frozen=True)
class LedgerAction:
    action: ActionItem
    quote: Quote
    state: ActionState


@dataclass(frozen=True)
class LedgerView:
    decisions: list[LedgerDecision]
    actions: list[LedgerAction]
    owners: list[str]
    total_actions: int


class _Quoter:
    """Quotes lines on their own meeting's clock, named by the meeting's title."""

    def __init__(self, meetings: Sequence[MeetingOverview]) -> None:
        self._meetings = {m.id: m for m in meetings}

    def __call__(self, meeting_id: str, seq: int, text: str, speaker: str, time: datetime) -> Quote:
        meeting = self._meetings.get(meeting_id)
        when = stamp(local_time(time, meeting.zone)) if meeting else stamp(time)
        return Quote(text=text, speaker=speaker, when=when, meeting=(meeting.title if meeting else None) or meeting_id,
                     url=meeting_url(meeting_id, seq))

    def today(self, meeting_id: str, now: datetime) -> date:
        meeting = self._meetings.get(meeting_id)
        return local_date(now, meeting.zone if meeting else "UTC")


def ledger_view(ledger: SeriesLedger, meetings: Sequence[MeetingOverview], now: datetime, *,
                owner: str | None = None, state: ActionState | None = None) -> LedgerView:
    """Decisions (each change with both quotes) and the action items kept by the filters: one
    owner, and open or due as of `now` on each item's meeting's calendar."""
    quote = _Quoter(meetings)
    changes = {change_id(c): c for c in ledger.changes}
    values = {(d.meeting_id, d.seq): d.value for d in ledger.decisions}
    decisions = []
    for d in sorted(ledger.decisions, key=lambda d: (d.time, d.seq)):
        change = changes.get(d.changed_by) if d.changed_by else None
        decisions.append(LedgerDecision(
            decision=d, quote=quote(d.meeting_id, d.seq, d.quote, d.speaker, d.time), change=change,
            change_quote=quote(change.meeting_id, change.seq, change.quote, change.speaker, change.time)
            if change else None, new_value=values.get((change.meeting_id, change.seq)) if change else None))
    actions = []
    for a in sorted(ledger.actions, key=lambda a: (a.time, a.seq)):
        found = action_state(a, quote.today(a.meeting_id, now))
        if (owner and a.owner != owner) or (state and found != state):
            continue
        actions.append(LedgerAction(action=a, quote=quote(a.meeting_id, a.seq, a.quote, a.speaker, a.time),
                                    state=found))
    owners = sorted({a.owner for a in ledger.actions})
    return LedgerView(decisions=decisions, actions=actions, owners=owners, total_actions=len(ledger.actions))


# ---------------------------------------------------------------------- search


@dataclass(frozen=True)
class FoundTopic:
    title: str
    summary: str
    meeting: str
    url: str


@dataclass(frozen=True)
class FoundExcerpt:
    """Consecutive lines of one meeting, each citing its own line."""

    meeting: str
    score: float
    lines: list[Quote]


@dataclass(frozen=True)
class SearchView:
    topics: list[FoundTopic]
    excerpts: list[FoundExcerpt]


def search_view(topics: Sequence[PastTopic], excerpts: Sequence[PastExcerpt],
                meetings: Sequence[MeetingOverview]) -> SearchView:
    """The memory's finds with each line's speaker, time (its meeting's clock) and link."""
    quote = _Quoter(meetings)
    found_topics = [FoundTopic(title=t.segment.name, summary=t.segment.summary,
                               meeting=t.meeting.title or t.meeting.label,
                               url=meeting_url(t.meeting.meeting_id, t.segment.start_utterance_id))
                    for t in topics]
    found = []
    for e in excerpts:
        said = e.said if len(e.said) == len(e.utterances) else [u.text for u in e.utterances]
        lines = [quote(e.meeting.meeting_id, u.id, text, u.speaker_name, u.absolute_timestamp)
                 for u, text in zip(e.utterances, said, strict=True)]
        found.append(FoundExcerpt(meeting=lines[0].meeting if lines else e.meeting.label, score=e.score,
                                  lines=lines))
    return SearchView(topics=found_topics, excerpts=found)
