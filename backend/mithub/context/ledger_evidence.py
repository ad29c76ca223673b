"""The series ledger in a call's evidence: a quoted decision that a later meeting changed is
marked as such, and the turn that says what holds now is quoted and leads.

The anchor is Zep/Graphiti's invalidated facts: a fact a later episode contradicts is not
deleted, it gets the time it stopped holding and the fact that replaced it, and retrieval
puts the valid fact first. Here the ledger (record/ledger.py) is that history: a decision is
`changed` by a line of a later meeting; the evidence turn that settled it carries
"(changed on DATE to VALUE)", and the current value's turn is quoted.

A call sees the ledger as it stood when the meeting it is made in last spoke (`as_of`): a
call on a finished meeting builds the context its live calls built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, tzinfo
from typing import Protocol

from mithub.context.models import LedgerChange, PastExcerpt, TranscriptExcerpt, Utterance
from mithub.record.models import Decision, DecisionChange
from mithub.record.values import display_text, extract_values


class Ledger(Protocol):
    """The series ledger (`record.ledger.SeriesLedger`): decisions and the changes to them."""

    decisions: Sequence[Decision]
    changes: Sequence[DecisionChange]


def consult_ledger(
    ledger: Ledger | None, meeting_id: str, turns: Sequence[Utterance], shown_today: set[int],
    past: list[PastExcerpt], today: list[TranscriptExcerpt], *,
    past_turn: Callable[[str, int], PastExcerpt | None], turn_cost: Callable[[Utterance], int],
) -> tuple[list[PastExcerpt], list[TranscriptExcerpt], list[LedgerChange]]:
    """A call's evidence under the ledger as of the meeting's latest turn (`turns`, today's
    transcript): changed decisions among the past turns are marked, and their current values'
    turns put first (`past_turn` finds a past one, `turn_cost` prices one of today's)."""
    if ledger is None or not past or not ledger.changes:
        return past, today, []
    as_of = turns[-1].absolute_timestamp if turns else None
    changed = ledger_changes(ledger.decisions, ledger.changes, as_of=as_of, zone=past[0].meeting.started_at.tzinfo)
    past, found = mark_past(past, changed)
    if not found:
        return past, today, []
    by_seq = {u.id: u for u in turns}

    def today_turn(seq: int) -> TranscriptExcerpt | None:
        u = by_seq.get(seq)
        return None if u is None else TranscriptExcerpt(utterances=[u], said=[u.text], score=1.0, tokens=turn_cost(u))

    past, today = lead_with_current(found, meeting_id, past, today, shown_today,
                                    past_turn=past_turn, today_turn=today_turn)
    return past, today, found


def note(change: LedgerChange) -> str:
    """What an evidence turn of a changed decision carries, after its words."""
    return f" (changed on {change.changed_on.isoformat()} to {change.changed_to})"


def ledger_changes(decisions: Sequence[Decision], changes: Sequence[DecisionChange], *,
                   as_of: datetime | None, zone: tzinfo | None = None) -> dict[tuple[str, int], LedgerChange]:
    """Per turn that settled a since-changed decision (meeting id, seq): how it changed, and
    the end of its chain of changes (a value changed twice leads to the latest)."""
    at_turn = {(d.meeting_id, d.seq): d for d in decisions}
    change_of: dict[str, DecisionChange] = {}
    for change in sorted(changes, key=lambda c: c.time):
        if as_of is None or change.time <= as_of:
            change_of[change.decision_id] = change
    found: dict[tuple[str, int], LedgerChange] = {}
    for decision in decisions:
        change = change_of.get(decision.id)
        if change is None:
            continue
        successor = at_turn.get((change.meeting_id, change.seq))
        last, seen = change, {decision.id}
        while True:  # follow the chain to the value that holds now
            after = at_turn.get((last.meeting_id, last.seq))
            if after is None or after.id in seen or after.id not in change_of:
                break
            seen.add(after.id)
            last = change_of[after.id]
        when = change.time.astimezone(zone) if zone else change.time
        found[(decision.meeting_id, decision.seq)] = LedgerChange(
            meeting_id=decision.meeting_id, seq=decision.seq, value=decision.value, changed_on=when.date(),
            changed_to=successor.value if successor else _value_of(change),
            current_meeting_id=last.meeting_id, current_seq=last.seq)
    return found


def mark_past(excerpts: list[PastExcerpt], changed: dict[tuple[str, int], LedgerChange]
              ) -> tuple[list[PastExcerpt], list[LedgerChange]]:
    """The excerpts with each changed decision's turn annotated (in the prompt and in the
    words its citation quotes), and those changes in evidence order. Only past turns can
    be changed: a meeting's decisions join the ledger when it ends, and a call sees the
    ledger as of its own meeting."""
    marked, seen = [], []
    for excerpt in excerpts:
        turns, said = [], []
        for u, words in zip(excerpt.utterances, excerpt.said or [u.text for u in excerpt.utterances], strict=False):
            change = changed.get((excerpt.meeting.meeting_id, u.id))
            if change is not None:
                seen.append(change)
                u, words = u.model_copy(update={"text": u.text + note(change)}), words + note(change)
            turns.append(u)
            said.append(words)
        marked.append(excerpt.model_copy(update={"utterances": turns, "said": said}))
    return marked, seen


def _value_of(change: DecisionChange) -> str:
    """The values the changing line names (its decision may not be recorded yet: a meeting's
    record is made when it ends), else its words."""
    values = extract_values(change.quote)
    return ", ".join(dict.fromkeys(display_text(v) for v in values)) if values else change.quote


def lead_with_current(
    changes: Sequence[LedgerChange], meeting_id: str, past: list[PastExcerpt], today: list[TranscriptExcerpt],
    shown_today: set[int], *, past_turn: Callable[[str, int], PastExcerpt | None],
    today_turn: Callable[[int], TranscriptExcerpt | None],
) -> tuple[list[PastExcerpt], list[TranscriptExcerpt]]:
    """The evidence with the turn of each changed decision's current value first (quoted
    where it already is, else added): past turns lead the past excerpts, today's the
    transcript excerpts, unless the recent turns (`shown_today`) show it already."""
    for change in reversed(changes):  # the first change ends up first
        key = (change.current_meeting_id, change.current_seq)
        if change.current_meeting_id == meeting_id:
            if change.current_seq in shown_today:
                continue
            held = [e for e in today if any(u.id == change.current_seq for u in e.utterances)]
            found = held[0] if held else today_turn(change.current_seq)
            if found is not None:
                today = [found, *(e for e in today if e is not found)]
            continue
        held_past = [e for e in past if any((e.meeting.meeting_id, u.id) == key for u in e.utterances)]
        found_past = held_past[0] if held_past else past_turn(*key)
        if found_past is not None:
            past = [found_past, *(e for e in past if e is not found_past)]
    return past, today
