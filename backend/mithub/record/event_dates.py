"""When the meeting's events are: a table of (event noun phrase -> date) read from the transcript.

A deadline hung on an event ("오픈 전날까지", "출시 2주 전까지", "before the first open house") is
dated from the statement that dates the event: "베타 오픈은 8월 5일", "5일 출시로 가", "the first
open house is on the 14th". A date belongs to a noun phrase when the phrase is the statement's
topic or subject (은/는/이/가, the words before an English verb) or stands right beside the date
("5일 출시", "the chamber on the 28th"); a statement of only a date ("다음 주 월요일에요.", "7월 3일
오전에 합시다") completes the one just before it, and an answer completes a question ("when's it
mobe?" / "Saturday the thirteenth"). A date may also be the predicate ("타설이 23일이니까", "Tech
scout's the eighth now"), and a day repeated in short is the date of the line before ("We submit on
the twenty-fourth then"). A later statement about the same phrase replaces the earlier date (a
change); a date before a past copula is the former one ("16일 타설이었잖아요"); where a statement
names several dates and marks one as the choice ("5일 출시는 못 해요, 12일로 밀게요"), the marked
one is the event's date. A phrase said in an event-relative expression ("티저는 출시 일주일 전, 5일
부터") is not dated by that expression's date.

Looking an anchor up: the table's phrases with the anchor's head noun, each at its latest date, what
this meeting said before what the series' earlier meetings said; of several (two openings, two
open houses) the deadline comes before the first still ahead. No dated phrase: no date, rather than
the date of a neighbouring line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

from mithub.context.models import Utterance
from mithub.record import commitments as cue
from mithub.record.dates import (
    EN_ORDINAL_DAY,
    KO_WEEKDAYS,
    DateMention,
    day_of_month,
    names_now,
    repeated_date,
    resolve_date_expressions,
)
from mithub.text.korean import morphemes, tokens_with_offsets
from mithub.text.tokens import ENGLISH_STOPWORDS, has_hangul

_DATED = ("date", "day", "weekday", "relative_day", "week", "month_end")
_NOUN = frozenset({"NNG", "NNP", "SL", "SH"})
_TOPIC_OR_SUBJECT = frozenset({"은", "는", "이", "가"})
# A phrase's trailing date word goes: "출시일은 목요일" dates the launch.
_DATE_WORDS = frozenset({"일", "날", "날짜", "일정", "일자", "date", "day", "dates", "schedule"})
# A date word written into the noun before it ("개시일", "출간일"): two syllables of event remain.
_FUSED_DATE_WORD = re.compile(r"^([가-힣]{2,})[일날]$")
# Nouns that make the phrase before them a reference point ("출시 일주일 전"), not part of it.
_RELATIVE_NOUNS = frozenset({"전", "후", "뒤", "직전", "전날", "당일", "이전", "이후", "일주일", "하루", "이틀", "사흘",
                             "나흘", "닷새", "열흘", "보름"})
_SINO = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "육": 6, "칠": 7, "팔": 8, "구": 9}
# A day number said without its month, beside a noun: "5일 출시", "이십구 일 월요일 오픈", "on the 28th",
# or as the predicate.
_KO_BARE_DAY = re.compile(
    rf"(?<![\d.가-힣])(?P<day>\d{{1,2}}|[이삼]?십[일이삼사오육칠팔구]?)\s*일"
    rf"(?:\s*(?P<wd>[{KO_WEEKDAYS}])요일)?(?:으?로(?=[\s,.]|$)|(?=\s+[가-힣])"
    # or the date is the predicate, by the copula: "타설이 23일이니까", "오픈은 5일입니다"
    r"|(?=이(?:니까|고|라서|에요|잖|야|죠)|입니다))")
_EN_ORD = "|".join(sorted(EN_ORDINAL_DAY, key=len, reverse=True))
# English only after a preposition and before one ("on the twenty-eighth for the pre-scan"), not
# in "the first open house" or "on the first floor".
# A copula says it too: "Tech scout's the eighth now".
_EN_BARE_DAY = re.compile(rf"(?i)(?:\b(?:on|by|until|till|from|is|was)|['’]s)\s+the\s+(?P<day>{_EN_ORD}|\d{{1,2}}(?:st|nd|rd|th))\b"
                          r"(?=\s*(?:$|[.,;!?]|(?:for|at|and|or|to|with|in|when|so|then|now)\b))")
# After a noun, the rest of an event-relative expression: "출시 사흘 전이니까", "launch two weeks before".
_KO_RELATIVE_AFTER = re.compile(r"^\s*(?:\d+\s*(?:일|주)|하루|이틀|사흘|나흘|닷새|일주일|열흘|보름|한\s*주|두\s*주)?"
                                r"\s*(?:전|후|뒤|직전|전날|당일|이전|이후)")
_EN_RELATIVE_BEFORE = re.compile(r"(?i)\b(?:before|after|ahead\s+of|until|till)(?:\s+[\w'-]+){0,4}\s+$")
_EN_VERB = re.compile(r"(?i)\b(?:will|is|are|was|were|has|have|had|'s|be|should|must|can|could|would|moves?|moved"
                      r"|goes|starts?|opens?|gets?|got|lands?|happens?|falls?|needs?|stays?)\b")
_EN_SKIP = ENGLISH_STOPWORDS | {"first", "second", "third", "last", "next", "one", "two", "both", "we", "us"}


@dataclass(frozen=True)
class Phrase:
    """An event noun phrase: its nouns in order, the last one the head."""

    nouns: tuple[str, ...]

    @property
    def head(self) -> str:
        return self.nouns[-1]


@dataclass(frozen=True)
class EventDate:
    phrase: Phrase
    dates: tuple[date, ...]
    line: int  # in the meeting that said it
    earlier: bool = False  # said in one of the series' earlier meetings


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _trim(nouns: list[str]) -> tuple[str, ...]:
    while nouns and nouns[-1].lower() in _DATE_WORDS:
        nouns = nouns[:-1]
    if nouns and (fused := _FUSED_DATE_WORD.match(nouns[-1])):
        nouns = [*nouns[:-1], fused[1]]  # "개시일" as one noun dates the 개시
    return tuple(nouns)


def _ko_phrases(text: str) -> list[tuple[Phrase, int, int, bool]]:
    """Runs of nouns ("83병동 오픈"): (phrase, start, end, topic-or-subject marked)."""
    found: list[tuple[Phrase, int, int, bool]] = []
    run: list[tuple[str, int, int]] = []
    position = 0

    def close(marked: bool) -> None:
        nouns = _trim([form for form, _, _ in run])
        if nouns:
            found.append((Phrase(nouns), run[0][1], run[-1][2], marked))
        run.clear()

    pending_number = ""  # "83병동": the number joins the noun it is written against
    for m in morphemes(text):
        at = text.find(m.form, position)
        start, position = (at, at + len(m.form)) if at >= 0 else (position, position)
        if m.tag == "SN":
            pending_number = m.form
            continue
        if m.tag == "NNB" and run and run[-1][2] == start:
            # a bound noun written against the noun before is part of that word: kiwi may read
            # a word it does not know as noun + bound noun ("타설" as 타 + 설)
            run[-1] = (run[-1][0] + m.form, run[-1][1], position)
        elif m.tag in _NOUN and m.form not in _RELATIVE_NOUNS:
            joined = pending_number and start > 0 and text[start - 1].isdigit()
            run.append((pending_number + m.form if joined else m.form, start, position))
        elif run:
            close(m.tag in ("JX", "JKS") and m.form in _TOPIC_OR_SUBJECT)
        pending_number = ""
    if run:
        close(False)
    return found


def _en_phrases(text: str) -> list[tuple[Phrase, int, int, bool]]:
    """Content words, each a phrase of its own (no tagger for English here); the words before the
    first verb are the subject."""
    verb = _EN_VERB.search(text)
    subject_end = verb.start() if verb else -1
    found = []
    for m in re.finditer(r"[A-Za-z][A-Za-z-]*", text):
        word = m.group(0).lower()
        if word in _EN_SKIP or word in _DATE_WORDS or len(word) < 3 or _EN_VERB.fullmatch(word):
            continue
        found.append((Phrase((_stem(word),)), m.start(), m.end(), m.end() <= subject_end))
    return found


def _bare_days(text: str, reference: date, hint: int | None, taken: list[DateMention]) -> list[DateMention]:
    """Day numbers the general resolver leaves alone because nothing says they are a date
    outside an event's statement: "5일 출시", "이십구 일 월요일 오픈", "the twenty-eighth for"."""
    out = []
    for m in list(_KO_BARE_DAY.finditer(text)) + list(_EN_BARE_DAY.finditer(text)):
        if any(t.start <= m.start() < t.end for t in taken):
            continue
        taken[:] = [t for t in taken if not m.start() <= t.start < m.end()]  # "이십구 일 월요일": one day
        said = m["day"]
        if said.isdigit() or said[:2].isdigit():
            day = int(re.match(r"\d+", said).group(0))  # type: ignore[union-attr]
        elif said.lower() in EN_ORDINAL_DAY:
            day = EN_ORDINAL_DAY[said.lower()]
        else:
            tens, _, unit = said.rpartition("십") if "십" in said else ("", "", said)
            day = (_SINO.get(tens, 1) * 10 if "십" in said else 0) + _SINO.get(unit, 0)
        weekday = KO_WEEKDAYS.index(m["wd"]) if m.groupdict().get("wd") else None
        resolved = day_of_month(reference, day, hint, weekday) if 1 <= day <= 31 else None
        if resolved is not None:
            out.append(DateMention(text=m.group(0), start=m.start(), end=m.end(), date=resolved, kind="day"))
    return out


def _chosen(text: str, dated: list[DateMention]) -> list[DateMention]:
    """Of several dates, the ones marked as the choice ("12일로", "to the 12th"); else all."""
    marked = [m for m in dated if re.search(r"(?:으로|로)$", m.text) or re.search(r"(?i)\bto\s+$", text[: m.start])]
    return marked if marked and len(marked) < len(dated) else dated


def _former_until(text: str) -> int:
    """Where the last past copula is (-1: none): a date before it is what the date was ("처음엔
    16일 타설이었잖아요", "원래 5일이었는데 12일로"), not a date to keep."""
    if not has_hangul(text):
        return -1
    tokens = tokens_with_offsets(text)
    return max((t.start for t, after in zip(tokens, tokens[1:])
                if t.tag == "VCP" and after.tag == "EP" and after.form in {"었", "였", "ᆻ"}), default=-1)


def _as_repeated(mention: DateMention, before: Sequence[DateMention]) -> DateMention:
    day = repeated_date(mention, before)
    return mention.model_copy(update={"date": day}) if day else mention


class _Statement(NamedTuple):
    targets: list[tuple[Phrase, tuple[date, ...]]]  # the phrases it dates, with their dates
    dates: tuple[date, ...]  # its dates (the chosen ones when it marks a choice)
    phrases: list[Phrase]  # all its phrases
    has_subject: bool  # a subject of its own
    said: list[DateMention]  # its dated mentions, for the reply after it


def _statement(text: str, reference: date, hint: int | None, before: Sequence[DateMention] = ()) -> _Statement:
    """One sentence. `before`: the dates of the line before, by someone else, which a day said
    in short repeats ("We submit on the twenty-fourth then" after "Friday the twenty-fourth")."""
    mentions = resolve_date_expressions(text, reference, month_hint=hint)
    bare = _bare_days(text, reference, hint, mentions)  # drops the mentions a bare day takes in
    dated = [_as_repeated(m, before) for m in mentions + bare if m.kind in _DATED and m.date is not None]
    if dated:
        was = _former_until(text)
        dated = sorted((m for m in dated if m.start > was), key=lambda m: m.start)
    blanked = text
    for m in dated:  # the date's own words are no event: "7월 20일 월요일" names no phrase
        blanked = blanked[: m.start] + ";" + " " * (m.end - m.start - 1) + blanked[m.end:]
    phrases = _ko_phrases(blanked) if has_hangul(text) else _en_phrases(blanked)
    relative = [p for p in phrases if _KO_RELATIVE_AFTER.match(text[p[2]:]) or _EN_RELATIVE_BEFORE.search(text[: p[1]])]
    events = [m for m in mentions if m.kind == "event"]  # the phrase inside "출시 2주 전까지"
    relative += [p for p in phrases if any(m.start <= p[1] and p[2] <= m.end for m in events)]
    free = [p for p in phrases if p not in relative]
    beside = [p for p in free if any(0 <= m.start - p[2] <= 12 and re.fullmatch(r"(?:일|날|날짜|일정)?[\s,은는이가]*(?:on|is|are|will be)?\s*",
                                                                                 text[p[2]: m.start])
                                     or 0 <= p[1] - m.end <= 1 for m in dated)]
    targets = [p for p in free if p[3] or p in beside]
    dated_targets = [(p[0], _own_dates(p, targets, dated, text)) for p in targets]
    has_subject = any(p[3] for p in phrases)
    return _Statement(dated_targets, tuple(m.date for m in _chosen(text, dated)),  # type: ignore[misc]
                      [p[0] for p in free], has_subject, dated)


def _own_dates(target: tuple[Phrase, int, int, bool], targets: list[tuple[Phrase, int, int, bool]],
               dated: list[DateMention], text: str) -> tuple[date, ...]:
    """A phrase's dates in a sentence naming several ("킥오프는 다음 주 월요일이고, 리허설은 금요일"):
    those said after it and before the next dated phrase, else the nearest after, else the
    nearest before ("5일 출시로 가")."""
    later = [p[1] for p in targets if p[1] > target[1]]
    stop = min(later) if later else len(text)
    mine = [m for m in dated if target[2] <= m.start < stop]
    if not mine:
        after = [m for m in dated if m.start >= target[2]]
        before = [m for m in dated if m.end <= target[1]]
        mine = after[:1] or before[-1:]
    return tuple(m.date for m in _chosen(text, mine))  # type: ignore[misc]


def event_table(turns: Sequence[Utterance], reference: date, hints: Sequence[int | None],
                earlier: Sequence[tuple[Sequence[Utterance], date, Sequence[int | None]]] = ()) -> list[EventDate]:
    """Each dated event phrase at its latest date, over the whole meeting; the series' `earlier`
    meetings (turns, local date, month hints), oldest first, are read before it, each against its
    own date, so what this meeting says replaces what they said."""
    table: dict[Phrase, EventDate] = {}
    for past, past_date, past_hints in earlier:
        _read(past, past_date, past_hints, table)
    table = {p: EventDate(e.phrase, e.dates, e.line, earlier=True) for p, e in table.items()}
    _read(turns, reference, hints, table)
    return list(table.values())


def _read(turns: Sequence[Utterance], reference: date, hints: Sequence[int | None], table: dict[Phrase, EventDate]) -> None:
    undated: list[Phrase] = []  # the phrases of the sentence just before, when it gave no date
    said: list[DateMention] = []  # the dates of the line before
    for line, turn in enumerate(turns):
        before = said if line and turns[line - 1].speaker_name != turn.speaker_name else []
        said = []
        for sentence in cue.split_sentences(turn.text) or [turn.text]:
            targets, dates, phrases, has_subject, dated = _statement(sentence, reference, hints[line], before)
            said += dated
            if not has_subject and dated and all(names_now(m.text) for m in dated):
                dates = ()  # "오늘은 여기까지 하죠": today names the meeting itself, not the event said before
            if sentence.rstrip().endswith("?") or not dates:
                # a question dates nothing, but the answer's date is its phrase's ("when's it mobe?")
                undated = phrases
                continue
            if not has_subject:
                targets = targets + [(phrase, dates) for phrase in undated]
            for phrase, its_dates in targets:
                for old in [p for p in table if p.head == phrase.head and set(phrase.nouns) <= set(p.nouns)]:
                    del table[old]  # "출시는 12일로" replaces "청양마요 출시" too
                table[phrase] = EventDate(phrase, its_dates, line)
            undated = []


def anchor_phrases(anchor: str) -> list[Phrase]:
    """The event an anchor names ("받아서 점검" -> 점검, "we go in the chamber" -> chamber), most
    likely first. In Korean the word before 전 is a noun ("타설 전날"), which kiwi alone may read
    otherwise ("타"+"설", or a verb): that word is the second reading."""
    if not has_hangul(anchor):
        words = [p[0].head for p in _en_phrases(anchor)]
        return [Phrase(tuple(words))] if words else []
    runs = _ko_phrases(anchor)
    found = [runs[-1][0]] if runs else []
    word = _trim([re.sub(r"[^가-힣A-Za-z0-9]", "", anchor.split()[-1])]) if anchor.split() else ()
    if word and len(word[0]) >= 2 and Phrase(word) not in found:
        found.append(Phrase(word))
    return found


def _nested(a: Phrase, b: Phrase) -> bool:
    return set(a.nouns) <= set(b.nouns) or set(b.nouns) <= set(a.nouns)


def event_date(anchor: Phrase, table: Sequence[EventDate], reference: date) -> date | None:
    """The date of the event the anchor names: of the matching phrases at their latest dates,
    the first still ahead of the meeting; None when the table has none. What this meeting said
    outranks what the series' earlier meetings said ("개시일은 11일로" over last week's "개시")."""
    matching = [e for e in table if e.phrase.head == anchor.head and _nested(anchor, e.phrase)]
    dates = [d for e in ([e for e in matching if not e.earlier] or matching) for d in e.dates]
    ahead = [d for d in dates if d >= reference]
    return min(ahead) if ahead else None
