"""Action items of one meeting, LLM-free: who will do what, by when, and the lines that say so.

Which lines settle an item and for whom comes from the commitment-turn model
(`record.action_model`, fitted on annotated meetings by `record.training`): every (line,
person) pair -- the speaker as a volunteer, a participant named as the doer, the next or the
previous speaker as the one asked, a team -- gets a probability from the line's mood
(morpheme tags, English modality), the answer in the next turns, the speaker's role and the
position in the meeting. The strongest pair of an owner within a few lines is the item; the
other lines of that owner nearby, and their yes, are its support. Items at or above the
model's threshold are shown; weaker ones down to its floor are kept as candidates.

The due date comes from the item's own words first, then its other lines, read in the
meeting's date context (`record.due_dates`); "출시 2주 전까지"/"before the first open house"
take the date the meeting (or the series' earlier meetings) gave that event
(`record.event_dates`), and no date when none did.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

import numpy as np
import structlog

from mithub.context.models import Utterance
from mithub.errors import ModelLoadError
from mithub.record import commitments as cue
from mithub.record.action_features import Candidate, TurnReading, promises_own_work
from mithub.record.action_model import ActionModel, ScoredPair, load_action_model, score_meeting
from mithub.record.dates import DateMention, resolve_date_expressions
from mithub.record.due_dates import MeetingDates, starts_from
from mithub.record.models import ActionItem
from mithub.text.tokens import keyword_candidates

logger = structlog.get_logger(__name__)

QUOTE_CHARS = 200

_DATED = ("date", "day", "weekday", "relative_day", "week", "month_end")
# A deadline said as one: 까지/전에 (until, before), 안에/내로/중으로 (within), by, until, before.
_DEADLINE_MARK = re.compile(r"까지|전에|안에|내로|중으로|\bby\b|\buntil\b|\bbefore\b|\bno later than\b", re.IGNORECASE)
_DEADLINE_BEFORE = re.compile(r"\b(?:by|until|before|till|no later than)\s+(?:the\s+)?$", re.IGNORECASE)
_DECISION = re.compile(r"(?:으로|로)\s*(?:하겠습니다|하죠|가죠|갑니다|가겠습니다)|확정|결정")
# Task wording: the opening yes/filler and the addressee go, and so does a second clause after
# the request ("…만들어 주시고요, 발주는 6월 28일까지 나가는 걸로 하죠").
_LEAD = re.compile(
    r"^(?:\W*(?:네|넵|예|좋아요|좋습니다|그럼|음|아|어|sure|yes|yeah|yep|okay|ok|and|so|great|um|uh)\b[,.]?\s*"
    r"|[가-힣]{2,4}\s*(?:님|씨)\s*,\s*|[A-Z][a-z]+,\s+)+",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"(?:주시고요?|주세요|할게요|드릴게요|겠습니다)(?=[,.]\s)")
_TRAIL = re.compile(r"[,\s]*(?:\band\b|그리고)?[,\s]*$", re.IGNORECASE)


@dataclass
class _Item:
    owner: str
    line: int
    kind: str  # "commit" (the speaker's own) | "request" (someone else's)
    segment: str
    confidence: float
    candidate: bool
    lines: list[int] = field(default_factory=list)
    dues: list[tuple[int, str]] = field(default_factory=list)  # (line, text to search for a due)
    # The owner's part of each supporting line: a request naming two people ("수민 님이 …, 서준 님은
    # … 검토해 주세요") words each one's task from their own clause, not the longer other one.
    wordings: list[str] = field(default_factory=list)
    # Lines of the exchange that hand work to other people: their dues are theirs.
    others: set[int] = field(default_factory=set)


def extract_action_items(
    meeting_id: str, utterances: Sequence[Utterance], meeting_date: date, model: ActionModel | None = None,
    *, earlier: Sequence[tuple[date, Sequence[Utterance]]] = (),
) -> list[ActionItem]:
    """Action items (shown ones and candidates, `candidate` says which) in the order they were
    settled; `meeting_date` is the meeting's local start date, against which due dates resolve.
    `earlier` (local date, turns): the series' meetings before this one, oldest first, where an
    event a deadline hangs on may have been dated ("오픈 전날까지"). Raises ModelLoadError when the
    shipped weights are missing or damaged."""
    turns = list(utterances)
    if not turns:
        return []
    model = model or load_action_model()
    pairs, readings, cands, probs = score_meeting(turns, meeting_date, model)
    items = [_item(p, turns, readings, cands, probs, model.rule.window, model.rule.candidate_floor) for p in pairs]
    dates = MeetingDates(turns, meeting_date, earlier)
    per_line = [item.line for item in items]
    return [
        _to_action_item(meeting_id, item, turns, dates, per_line.count(item.line) > 1)
        for item in items
    ]


def action_lines(utterances: Sequence[Utterance]) -> list[str]:
    """The shown action items of a stretch of a meeting (a topic's turns), as the topic timeline
    lists them ("owner: task (due as said)"): the same model, owners and tasks as the record, so
    a person who is only copied owns nothing here either. Without weights: none (logged)."""
    turns = list(utterances)
    if not turns:
        return []
    try:
        items = extract_action_items("", turns, turns[0].absolute_timestamp.date())
    except ModelLoadError as exc:
        logger.warning("action_items_unavailable", error=str(exc))
        return []
    return [f"{a.owner}: {a.task}" + (f" ({a.due_text})" if a.due_text else "") for a in items if not a.candidate]


def action_item_at(meeting_id: str, utterances: Sequence[Utterance], seq: int, owner: str, meeting_date: date,
                   confidence: float = 1.0) -> ActionItem:
    """The item settled on line `seq` for `owner` (found by the model, or named by an LLM): its
    task phrase, its support lines and its due date, as the LLM-free path words and dates them."""
    turns = list(utterances)
    line = next(i for i, t in enumerate(turns) if t.id == seq)
    from mithub.record.action_features import read_turn

    names = list(dict.fromkeys(t.speaker_name for t in turns))
    readings = [read_turn(t, names, meeting_date) for t in turns[max(0, line - 1): line + 3]]
    offset = max(0, line - 1)
    padded: list[TurnReading | None] = [None] * offset + list(readings)
    pair = ScoredPair(line, owner, "", confidence, False)
    item = _item(pair, turns, padded, [], np.zeros(0), 0, 1.0)  # type: ignore[arg-type]
    return _to_action_item(meeting_id, item, turns, MeetingDates(turns, meeting_date), False)


def _item(pair: ScoredPair, turns: list[Utterance], readings: list[TurnReading], cands: Sequence[Candidate],
          probs: np.ndarray, window: int, floor: float) -> _Item:
    """The item around its strongest line: the owner's other likely lines nearby (a request
    and its yes, a restatement with the date) and the owner's own answer just after."""
    line, owner = pair.line, pair.owner
    commit = turns[line].speaker_name == owner
    names = [t.speaker_name for t in turns]
    segment = _segment(turns[line].text, owner, commit, readings[line], names)
    item = _Item(owner, line, "commit" if commit else "request", segment, pair.confidence, pair.candidate,
                 [line], [(line, segment)])
    support = {c.line for c, p in zip(cands, probs, strict=True)
               if c.owner == owner and c.line != line and abs(c.line - line) <= window and p >= floor}
    if not commit:  # the owner's yes right after ("Sure, end of day tomorrow.")
        support |= {k for k in range(line + 1, min(len(turns), line + 3))
                    if turns[k].speaker_name == owner and (readings[k].accepts or readings[k].affirmative)}
    for k in sorted(support):
        item.lines.append(k)
        # A third person promising their own work beside it ("배너는 제가 월요일까지 뽑아 올게요")
        # says their own due, not this item's.
        if not _third_party_promise(turns, readings, k, line, owner):
            item.dues.append((k, turns[k].text))
        item.wordings.append(_segment(turns[k].text, owner, turns[k].speaker_name == owner, readings[k], names))
    item.others = {k for k in range(line + 1, max(item.lines)) if k not in item.lines and readings[k] is not None
                   and readings[k].doers and owner not in readings[k].doers}
    return item


def _third_party_promise(turns: list[Utterance], readings: list[TurnReading], k: int, line: int, owner: str) -> bool:
    return turns[k].speaker_name not in (owner, turns[line].speaker_name) and promises_own_work(readings[k])


def _segment(text: str, owner: str, commit: bool, reading: TurnReading, names: list[str]) -> str:
    """The words about this owner's work: their part of a sentence naming them ("서준 님, …
    해 주세요"), else the sentence of the line that promises (for the speaker) or asks."""
    sentences = cue.split_sentences(text) or [text]
    for sentence in sentences:
        mentions = cue.doer_mentions(sentence, list(dict.fromkeys(names)), "")
        for i, m in enumerate(mentions):
            if m.name == owner and not commit:
                start = 0 if i == 0 else m.start
                end = mentions[i + 1].start if i + 1 < len(mentions) else len(sentence)
                clause = _CLAUSE_END.search(sentence, start, end)
                return sentence[start: clause.end() if clause else end]
    wanted = ("ko_volitional", "ko_shall", "ko_plan", "en_first_future", "en_we_future") if commit else (
        "ko_request", "ko_propositive", "en_request", "en_you_modal")
    from mithub.record.action_features import en_mood, ko_mood
    from mithub.text.korean import morphemes
    from mithub.text.tokens import has_hangul

    # Of the sentences in the wanted mood, the one that says most ("네, 알겠습니다." is one too).
    moody = [s for s in sentences
             if any((ko_mood(morphemes(s)) if has_hangul(s) else en_mood(s)).get(k) for k in wanted)]
    return max(moody or sentences, key=lambda s: len(keyword_candidates(s)))


# --- due dates ------------------------------------------------------------------------------


def _due_sources(item: _Item, turns: list[Utterance], shared: bool) -> list[tuple[int, str]]:
    """Where the item's due date may be said, in order of trust: its own words and its other
    lines (an acceptance often names the date); the rest of its line unless someone else got
    work on it (decision sentences left out: "정식 출시는
    8월 26일로 하겠습니다" dates the launch, not the task); the lines of the exchange; the
    owner's own line just before (a date they proposed)."""
    sources = list(item.dues)
    if not shared:
        own = item.segment.strip()
        rest = " ".join(s for s in cue.split_sentences(turns[item.line].text)
                        if own not in s and not _DECISION.search(s))
        sources.append((item.line, rest))
    sources += [(k, turns[k].text) for k in range(item.line + 1, max(item.lines))
                if k not in item.lines and k not in item.others]
    previous = item.line - 1
    if previous >= 0 and turns[previous].speaker_name == item.owner:
        sources.append((previous, turns[previous].text))
    return sources


def _due(item: _Item, turns: list[Utterance], dates: MeetingDates, shared: bool) -> tuple[DateMention, int, str] | None:
    """The item's due expression, the line and text it was said in: one in the item's own words
    first, then one said as a deadline (까지, by, before), then the most trusted source; within
    a source a calendar date over an event or a schedule over a duration, then the first said."""
    best: tuple[tuple[int, int, int, int], DateMention, int, str] | None = None
    for order, (line, text) in enumerate(_due_sources(item, turns, shared)):
        for m in dates.mentions(text, line):
            if starts_from(text, m):
                continue
            tier = 0 if m.kind in _DATED else 1 if m.kind in ("event", "recurring") else 2
            marked = _DEADLINE_MARK.search(m.text) or _DEADLINE_BEFORE.search(text[: m.start])
            key = (0 if order == 0 else 1, 0 if marked else 1, order, tier, m.start)
            if best is None or key < best[0]:
                best = (key, m, line, text)
    return (best[1], best[2], best[3]) if best else None


# --- output ---------------------------------------------------------------------------------


def condense(text: str, limit: int = QUOTE_CHARS) -> str:
    """The words as said, cut at a word boundary with "…" when long (never mid-word)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,") + "…"


def _task(item: _Item, meeting_date: date) -> str:
    """A short phrase for the work: the item's own segment (a restatement if it says more),
    without the opening yes, the addressee, the due expression or a second clause."""
    segments = [item.segment] + [seg for seg in item.wordings if seg.strip()]
    best = max(segments, key=lambda seg: len(keyword_candidates(seg)) - (seg is not item.segment))
    task = _LEAD.sub("", best.strip())
    end = _CLAUSE_END.search(task)
    task = task[: end.end()] if end else task
    for m in reversed(resolve_date_expressions(task, meeting_date)):  # the due is its own field
        task = task[: m.start] + task[m.end:]
    task = _main_clause(_TRAIL.sub("", " ".join(task.split()).strip(" ,.")), item.kind == "commit")
    return condense(task or best.strip(), 100)


def _main_clause(text: str, commit: bool) -> str:
    """Of a sentence's comma-separated clauses ("자료는 다 모였고, 금요일까지 정리해서 드릴게요"),
    the one that carries the promise or the request (by its mood), else the whole text."""
    from mithub.record.action_features import en_mood, ko_mood
    from mithub.text.korean import morphemes
    from mithub.text.tokens import has_hangul

    clauses = [c.strip() for c in re.split(r"[,;]\s+", text) if c.strip()]
    if len(clauses) < 2:
        return text
    wanted = ("ko_volitional", "ko_shall", "ko_plan", "en_first_future", "en_we_future") if commit else (
        "ko_request", "ko_propositive", "en_request", "en_you_modal")
    moody = [c for c in clauses if any((ko_mood(morphemes(c)) if has_hangul(c) else en_mood(c)).get(k) for k in wanted)]
    return moody[-1] if len(moody) == 1 else text


def _to_action_item(meeting_id: str, item: _Item, turns: list[Utterance], dates: MeetingDates,
                    shared: bool) -> ActionItem:
    turn = turns[item.line]
    found = _due(item, turns, dates, shared)
    due = found[0] if found else None
    due_date = due.date if due else None
    if found is not None and found[0].kind == "event":
        due_date = dates.event_deadline(found[0], found[1], found[2])
    return ActionItem(
        meeting_id=meeting_id, seq=turn.id, owner=item.owner, task=_task(item, dates.meeting_date),
        due_text=due.text if due else None, due_date=due_date, quote=condense(turn.text),
        support_seqs=sorted(turns[k].id for k in item.lines if k != item.line),
        speaker=turn.speaker_name, time=turn.absolute_timestamp,
        confidence=round(item.confidence, 4), candidate=item.candidate,
    )
