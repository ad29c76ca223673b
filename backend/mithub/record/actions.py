"""Action items of one meeting, LLM-free: who will do what, by when, and the lines that say so.

A line yields a candidate when it requests work of a named or answering participant ("서준 님,
… 해 주세요", "Liam, can you …"), assigns it ("Raj ships it by Wednesday", "성민 님이 하는 걸로
할게요") or commits the speaker ("제가 할게요", "I'll email them today"). Candidates of the
same person close together are one item when the later one accepts, restates or answers the
earlier (an acceptance after a request, "Nora owns the landing page" after "I'll take it").
The due date comes from the item's own words first, then its other lines, resolved against
the meeting's date; "그 전까지"/"before it goes out" take the date of the event they name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Literal

from mithub.context.models import Utterance
from mithub.record import commitments as cue
from mithub.record.dates import DateMention, resolve_date_expressions
from mithub.record.models import ActionItem
from mithub.text.korean import morphemes
from mithub.text.tokens import has_hangul, keyword_candidates

QUOTE_CHARS = 200


@dataclass(frozen=True)
class ActionWindows:
    """How far apart (in lines) the pieces of one item may be. Chosen by leave-one-series-out
    cross-validation on the decisions benchmark (`benchmarks/decisions_actions.py --cv`)."""

    accept: int = 4  # a promise answering a request to the same person
    restate: int = 4  # a restatement naming them ("Nora owns the landing page")
    month_hint: int = 8  # a named month still dates a bare day number ("19일에는")


DEFAULT_WINDOWS = ActionWindows()

_DATED = ("date", "day", "weekday", "relative_day", "week", "month_end")
_DEADLINE_MARK = re.compile(r"까지|전에|\bby\b|\buntil\b|\bbefore\b|\bno later than\b", re.IGNORECASE)
_DEADLINE_BEFORE = re.compile(r"\b(?:by|until|before|till|no later than)\s+(?:the\s+)?$", re.IGNORECASE)
# "오늘 정한 건": a date that modifies something already done is no deadline.
_NOT_A_DUE = re.compile(r"\s*[가-힣]*[한된온간던]\s*(?:건|거|것|내용|사항)")
_DECISION = re.compile(r"(?:으로|로)\s*(?:하겠습니다|하죠|가죠|갑니다|가겠습니다)|확정|결정")
_WHEN_QUESTION = re.compile(r"(?:언제|며칠|몇\s*시|\bwhen\b|\bhow\s+long\b|\bwhat\s+date\b|\bby\s+when\b)[^?]*\?",
                            re.IGNORECASE)
_HEDGED = re.compile(r"\bif\b|\bmaybe\b|\bprobably\b|\brealistic|\bcould\b|\bmight\b|수\s*있|것\s*같"
                     r"|[가-힣]면\s|[가-힣]면$|대요|래요|치면|야\s*(?:합니다|해요|돼|됩니다)|\?", re.IGNORECASE)
_DOES = re.compile(r"\bI(?:'ll|\s+will)\b|\bwe(?:'ll|\s+will)\b|\bby\b", re.IGNORECASE)
# Task wording: the opening yes/filler and the addressee go, and so does a second clause after
# the request ("…만들어 주시고요, 발주는 6월 28일까지 나가는 걸로 하죠").
_LEAD = re.compile(
    r"^(?:\W*(?:네|넵|예|좋아요|좋습니다|그럼|음|아|sure|yes|yeah|yep|okay|ok|and|so|great)\b[,.]?\s*"
    r"|[가-힣]{2,4}\s*(?:님|씨)\s*,\s*|[A-Z][a-z]+,\s+)+",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"(?:주시고요?|주세요|할게요|드릴게요|겠습니다)(?=[,.]\s)")
_TRAIL = re.compile(r"[,\s]*(?:\band\b|그리고)?[,\s]*$", re.IGNORECASE)
# "Marcus owns integration", "피드백 취합은 태준 님이 맡는 걸로": who owns it, said again.
_OWNERSHIP = re.compile(r"\bowns?\b|\bowner\b|맡는|맡기로|맡아|담당", re.IGNORECASE)
_PRONOUN_ANCHOR = re.compile(r"^(?:그|그때|이|it|that|this|then|they|we)\b|^(?:그|그때|이)$", re.IGNORECASE)
_MONTH = re.compile(r"(\d{1,2})\s*월(?!\s*요일)|\b(january|february|march|april|may|june|july|august|september"
                    r"|october|november|december)\b(?=\s+(?:the\s+)?\d|\s+[\w-]+(?:st|nd|rd|th)\b)", re.IGNORECASE)
_EN_MONTH_NUMBER = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}

Kind = Literal["request", "assign", "commit"]


@dataclass
class _Candidate:
    owner: str
    line: int
    kind: Kind
    segment: str
    inferred: bool = False


@dataclass
class _Item:
    owner: str
    line: int
    kind: Kind
    segment: str
    lines: list[int] = field(default_factory=list)
    dues: list[tuple[int, str]] = field(default_factory=list)  # (line, text to search for a due)


def extract_action_items(
    meeting_id: str, utterances: Sequence[Utterance], meeting_date: date,
    windows: ActionWindows = DEFAULT_WINDOWS,
) -> list[ActionItem]:
    """Action items in the order they were settled; `meeting_date` is the meeting's local
    start date, against which due dates resolve."""
    turns = list(utterances)
    names = list(dict.fromkeys(u.speaker_name for u in turns))
    items: list[_Item] = []
    for candidate in _candidates(turns, names):
        _attach_or_add(items, candidate, turns, windows)
    _add_acceptances(items, turns)
    hints = _month_hints(turns, windows.month_hint)
    per_line = [item.line for item in items]
    return [
        _to_action_item(meeting_id, item, turns, meeting_date, hints, per_line.count(item.line) > 1)
        for item in items
    ]


# --- candidates -----------------------------------------------------------------------------


def _candidates(turns: list[Utterance], names: list[str]) -> list[_Candidate]:
    found: list[_Candidate] = []
    for line, turn in enumerate(turns):
        previous = turns[line - 1].text if line > 0 else None
        from_line = [
            cand for sentence in cue.split_sentences(turn.text)
            for cand in _sentence_candidates(sentence, line, turns, names, previous)
        ]
        if not from_line and _answers_when(turns, line):
            from_line = [_Candidate(turn.speaker_name, line, "commit", turn.text)]
        found.extend(from_line)
    return found


def _answers_when(turns: list[Utterance], line: int) -> bool:
    """"공고는 언제 올라가요?" - "내일 오전에 올라가고요.": a date given to a when-question by
    someone else is that person's promise, unless it is an estimate ("realistic", "수 있어요"),
    a condition ("if", "-면") or someone else's word ("해 준대요")."""
    if line == 0 or turns[line - 1].speaker_name == turns[line].speaker_name:
        return False
    if not _WHEN_QUESTION.search(turns[line - 1].text):
        return False
    answer = turns[line].text
    if _HEDGED.search(answer) or not _DOES.search(answer) and not _korean_verb(answer):
        return False
    said_on = turns[line].absolute_timestamp.date()
    return any(m.kind in _DATED for m in resolve_date_expressions(answer, said_on))


def _korean_verb(text: str) -> bool:
    return has_hangul(text) and any(m.tag == "VV" for m in morphemes(text))


def _sentence_candidates(
    sentence: str, line: int, turns: list[Utterance], names: list[str], previous: str | None
) -> list[_Candidate]:
    speaker = turns[line].speaker_name
    mentions = cue.doer_mentions(sentence, names, speaker)
    requested = cue.is_request(sentence)
    named = [
        _Candidate(m.name, line, "request" if requested else "assign", _segment(sentence, mentions, i))
        for i, m in enumerate(mentions)
        if requested or cue.is_assignment(sentence, m)
    ]
    if named and not re.search(r"\bfrom\s+me\b", sentence, re.IGNORECASE):
        # "I'll draft the email, and Ben can send it": the speaker's own part comes first.
        before = sentence[: mentions[0].start]
        if before.strip() and cue.is_commit(before, previous):
            first = named[0]
            first.segment = first.segment[len(before):] if first.segment.startswith(before) else first.segment
            named.insert(0, _Candidate(cue.team_owner(before) or speaker, line, "commit", before))
        return named
    if cue.is_commit(sentence, previous):
        owners = [cue.team_owner(sentence) or speaker, *cue.partners(sentence, names, speaker)]
        if line > 0 and turns[line - 1].speaker_name != speaker:
            # "저랑 재석 님이 만들고 있어요" - "네, 다음 주 중에 초안 공유드릴게요": the partner
            # who just said they share the work shares the promise.
            before = turns[line - 1]
            if speaker in cue.partners(before.text, names, before.speaker_name):
                owners.append(before.speaker_name)
        return [_Candidate(owner, line, "commit", sentence) for owner in dict.fromkeys(owners)]
    if requested and not mentions and not cue.is_open_call(sentence):
        owner = _addressee(turns, line)
        if owner is not None:
            return [_Candidate(owner, line, "request", sentence, inferred=True)]
    nxt = turns[line + 1] if line + 1 < len(turns) else None
    accepted = (
        nxt is not None and nxt.speaker_name != speaker and cue.is_acceptance(nxt.text)
        and (not mentions or mentions[0].name == nxt.speaker_name)
    )
    if cue.is_instruction(sentence) and accepted and nxt is not None:
        return [_Candidate(nxt.speaker_name, line, "request", sentence, inferred=True)]
    return []


def _segment(sentence: str, mentions: list[cue.NameMention], index: int) -> str:
    """The part of the sentence about one named person: from their name to the next name
    (from the sentence start for the first one), up to the end of the request's clause."""
    start = 0 if index == 0 else mentions[index].start
    end = mentions[index + 1].start if index + 1 < len(mentions) else len(sentence)
    clause = _CLAUSE_END.search(sentence, start, end)  # "…검수해 주시고요, 배포는 월요일에 하죠"
    return sentence[start: clause.end() if clause else end]


def _addressee(turns: list[Utterance], line: int) -> str | None:
    """Who an unnamed request is for: the person who just offered it ("부탁드려요" after "제가
    할게요"), else the next speaker if they answer with a plain yes or a promise, else the
    person who spoke just before."""
    speaker = turns[line].speaker_name
    if line > 0 and turns[line - 1].speaker_name != speaker:
        before = turns[line - 2].text if line > 1 else None
        if any(cue.is_commit(s, before) for s in cue.split_sentences(turns[line - 1].text)):
            return turns[line - 1].speaker_name
    if line + 1 < len(turns):
        nxt = turns[line + 1]
        if nxt.speaker_name != speaker and cue.is_acceptance(nxt.text):
            return nxt.speaker_name
    for back in range(line - 1, max(-1, line - 3), -1):
        if turns[back].speaker_name != speaker:
            return turns[back].speaker_name
    return None


# --- grouping -------------------------------------------------------------------------------


def _attach_or_add(items: list[_Item], cand: _Candidate, turns: list[Utterance], windows: ActionWindows) -> None:
    target = _completed_item(items, cand, turns, windows)
    if target is None:
        items.append(_Item(cand.owner, cand.line, cand.kind, cand.segment, [cand.line], [(cand.line, cand.segment)]))
        return
    if cand.line not in target.lines:
        target.lines.append(cand.line)
    target.dues.append((cand.line, cand.segment))


def _completed_item(
    items: list[_Item], cand: _Candidate, turns: list[Utterance], windows: ActionWindows
) -> _Item | None:
    """The earlier item this candidate completes, if any: more words of the same person on
    the same line; a promise answering a request to them; an unnamed request right after
    their item ("저도 초대해 주세요"); a restatement naming them that shares the item's
    subject or date ("Nora owns the landing page" after "I'll take it")."""
    for item in reversed(items):
        if item.owner != cand.owner:
            continue
        gap = cand.line - max(item.lines)
        if cand.line == item.line:
            return item
        if cand.kind == "commit":
            answers = item.kind != "commit" and 0 < gap <= windows.accept
            return item if answers and cand.line - item.line <= windows.accept + 2 else None
        if cand.inferred:
            return item if 0 < gap <= 2 else None
        restates = _OWNERSHIP.search(cand.segment) or _same_subject(item, cand, turns)
        if 0 < gap <= windows.restate and restates:
            return item
        return None
    return None


def _same_subject(item: _Item, cand: _Candidate, turns: list[Utterance]) -> bool:
    """The candidate names something the item's lines named (not a person) or the same date
    ("22일 금요일까지는 하겠습니다" - "스냅샷 정리는 성민 님이 22일까지 하는 걸로 할게요")."""
    names = {form.lower() for u in turns for form in cue.name_forms(u.speaker_name)}
    said_words: set[str] = set()
    said_dates: set[date] = set()
    for k in item.lines:
        words, dates = _subject_of(turns[k].text, turns[k])
        said_words |= words
        said_dates |= dates
    words, dates = _subject_of(cand.segment, turns[cand.line])
    return bool((said_words & words) - names) or bool(said_dates & dates)


def _subject_of(text: str, turn: Utterance) -> tuple[set[str], set[date]]:
    """Key terms (dates cut out) and the days named, resolved loosely against the line's day:
    only for comparing two lines of the same meeting."""
    mentions = resolve_date_expressions(text, turn.absolute_timestamp.date())
    for m in reversed(mentions):
        text = text[: m.start] + " " + text[m.end:]
    days = {m.date for m in mentions if m.date is not None}
    return {w.lower() for w in keyword_candidates(text)}, days


def _add_acceptances(items: list[_Item], turns: list[Utterance]) -> None:
    """The owner's yes right after a request or assignment is part of the item (and may
    carry its date: "Sure, end of day tomorrow.", "네, 다음 주 월요일에요."). A yes after
    someone else's question in between answers that question."""
    for item in items:
        if item.kind == "commit":
            continue
        for line in range(item.line + 1, min(len(turns), item.line + 3)):
            turn = turns[line]
            if turn.speaker_name != item.owner and "?" in turn.text:
                break
            if turn.speaker_name == item.owner and cue.starts_affirmative(turn.text):
                if line not in item.lines:
                    item.lines.append(line)
                    item.dues.append((line, turn.text))
                break


# --- due dates ------------------------------------------------------------------------------


def _month_hints(turns: list[Utterance], window: int) -> list[int | None]:
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


def _mentions(text: str, line: int, meeting_date: date, hints: list[int | None]) -> list[DateMention]:
    return [
        m for m in resolve_date_expressions(text, meeting_date, month_hint=hints[line])
        if not _NOT_A_DUE.match(text, m.end) and not re.search(r"(?<!에)[은는]$", m.text)
    ]


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
    sources += [(k, turns[k].text) for k in range(item.line + 1, max(item.lines)) if k not in item.lines]
    previous = item.line - 1
    if previous >= 0 and turns[previous].speaker_name == item.owner:
        sources.append((previous, turns[previous].text))
    return sources


def _due(item: _Item, turns: list[Utterance], meeting_date: date, hints: list[int | None],
         shared: bool) -> tuple[DateMention, int, str] | None:
    """The item's due expression, the line and text it was said in: one said as a deadline
    (까지, by, before) first, then the most trusted source; within a source a calendar date
    over an event or a schedule over a duration, then the first said."""
    best: tuple[tuple[int, int, int, int], DateMention, int, str] | None = None
    for order, (line, text) in enumerate(_due_sources(item, turns, shared)):
        for m in _mentions(text, line, meeting_date, hints):
            tier = 0 if m.kind in _DATED else 1 if m.kind in ("event", "recurring") else 2
            marked = _DEADLINE_MARK.search(m.text) or _DEADLINE_BEFORE.search(text[: m.start])
            key = (0 if marked else 1, order, tier, m.start)
            if best is None or key < best[0]:
                best = (key, m, line, text)
    return (best[1], best[2], best[3]) if best else None


def _event_date(mention: DateMention, line: int, source: str, turns: list[Utterance], meeting_date: date,
                hints: list[int | None]) -> date | None:
    """The date of the event a deadline hangs on ("그 전까지", "공고 나가기 전에", "출시 당일"):
    the last dated mention before it, in the same line or earlier ones, that names the event
    (a pronoun takes the nearest date)."""
    anchor = (mention.anchor or "").strip()
    pronoun = not anchor or _PRONOUN_ANCHOR.match(anchor) is not None
    words = [w for w in anchor.split() if w.lower() not in ("the", "a", "an", "our", "this")]
    key = re.sub(r"(?:은|는|이|가|을|를|의|도)$", "", words[0]) if words else ""
    pronoun = pronoun or not key
    offset = max(0, turns[line].text.find(source[:20]))
    same_line = turns[line].text[: offset + mention.start]
    lines = [(line, same_line)] + [(k, turns[k].text) for k in range(line - 1, -1, -1)]
    for index, text in lines:
        if not pronoun and key not in text:
            continue
        dated = [m for m in _mentions(text, index, meeting_date, hints) if m.date is not None]
        if pronoun and index < line - 2:
            return None
        if dated:
            return dated[-1].date + timedelta(days=mention.offset_days)  # type: ignore[operator]
    return None


# --- output ---------------------------------------------------------------------------------


def condense(text: str, limit: int = QUOTE_CHARS) -> str:
    """The words as said, cut at a word boundary with "…" when long (never mid-word)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > limit // 2 else limit].rstrip(" ,") + "…"


def _task(item: _Item) -> str:
    """The item's most telling words (a restatement often says more than "could you own
    that?"), without the addressee, the opening yes, or a second clause about something else."""
    segments = [seg for _, seg in item.dues if seg.strip()] or [item.segment]
    best = max(segments, key=lambda seg: len(keyword_candidates(seg)))
    task = _LEAD.sub("", best.strip())
    end = _CLAUSE_END.search(task)
    task = _TRAIL.sub("", task[: end.end()] if end else task)
    return condense(task or best.strip(), 160)


def _to_action_item(meeting_id: str, item: _Item, turns: list[Utterance], meeting_date: date,
                    hints: list[int | None], shared: bool) -> ActionItem:
    turn = turns[item.line]
    found = _due(item, turns, meeting_date, hints, shared)
    due = found[0] if found else None
    due_date = due.date if due else None
    if found is not None and found[0].kind == "event":
        due_date = _event_date(found[0], found[1], found[2], turns, meeting_date, hints)
    return ActionItem(
        meeting_id=meeting_id, seq=turn.id, owner=item.owner, task=_task(item),
        due_text=due.text if due else None, due_date=due_date, quote=condense(turn.text),
        support_seqs=sorted(turns[k].id for k in item.lines if k != item.line),
        speaker=turn.speaker_name, time=turn.absolute_timestamp,
    )
