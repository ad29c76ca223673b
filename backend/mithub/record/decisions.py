"""Decisions a meeting settled, LLM-free: the sentence that settles a value, what it is
about (key terms), the value(s), who said it, and the utterance it cites.

A sentence is a decision when it has a settling form ("…로 하겠습니다", "걸로 하죠",
"확정", "let's go with", "final", "Okay, two-year term.") and is not a proposal, a
question, a hypothetical, a rejected option or someone else's plan being reported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime

from mithub.clock import local_date
from mithub.context.models import Utterance
from mithub.record.models import Decision
from mithub.record.stance import clause_is_conditional, is_korean, stance, value_is_rejected
from mithub.record.values import Value, display_text, extract_values
from mithub.text import keyword_candidates, split_sentences

# Words of the settling form itself, dropped from a subject.
_CUE_WORDS = frozenset(
    "확정 결정 배정 진행 그럼 그러면 okay ok so then final answer let go agreed decided fixed "
    "that works treat".split()
)
# "…로 하죠" with no value: the thing chosen is the words before "로" ("과제형으로").
_KO_CHOICE = re.compile(r"([가-힣A-Za-z0-9·]+?(?:\s[가-힣A-Za-z0-9·]+?)?)(?:으로|로|걸로)\s*(?:하|할|가|갈|갑)")
_EN_CHOICE = re.compile(r"\bgo(?:ing)? with ([A-Z][\w-]*(?:\s[A-Z][\w-]*)*)")
_FILLERS = re.compile(r"^(?:\W|음|어|네|아|그럼|그러면|um|uh|yeah|okay|ok|so)+\s*", re.IGNORECASE)
_MAX_QUOTE = 160
# "오늘", "today": the meeting itself, not a value anyone settles.
NOW_WORDS = frozenset({"오늘", "금일", "today", "tonight", "now"})
_AGREEMENT = re.compile(r"^\W*(?:okay|ok|makes sense|fine|alright|good|great|perfect|sounds good|deal)\b", re.IGNORECASE)
_COMMIT = re.compile(r"^\W*(?:음\W*)?(?:네|예|좋아요)?\W*(?:그럼\s*)?(?:제가|저희가)\s*(?:할게요|하겠습니다|맡을게요|맡겠습니다)\W*$")


def _commits(sentence: str) -> bool:
    return _COMMIT.match(sentence) is not None


def settled_values(sentence: str, values: Sequence[Value]) -> list[Value]:
    """The values a settling sentence asserts: not in a conditional clause, not the option
    it turns down ("라이브 코딩 말고 과제형으로", "2년은 안 하는 걸로")."""
    return [v for v in values if not clause_is_conditional(sentence, v.end) and not value_is_rejected(sentence, v)]


def is_decision_sentence(sentence: str, values: Sequence[Value], utterance_opening: bool) -> bool:
    """A settling sentence, not hedged, conditional, negated, asked or reported.
    `utterance_opening`: the utterance opens with an agreement or settles elsewhere
    ("Okay, that works. Annual spend cap of eighty-four K")."""
    cues = stance(sentence)
    if cues.question or cues.hedged or cues.requested or cues.reported:
        return False
    if cues.negated:
        values = settled_values(sentence, values)  # "22일 말고 8월 5일로 하죠" still settles 8월 5일
        if not values or not cues.settles:
            return False
    if cues.hypothetical and not settled_values(sentence, values):
        return False
    if values and all(_is_due(sentence, v) for v in values):
        return False  # "다음 주 금요일까지 올리겠습니다": a due date makes an action item
    if cues.settles:
        return bool(values) or _choice(sentence) is not None
    # "Okay, two-year term." / "Makes sense. Sixty percent social, forty search.": a short
    # verbless value phrase right after an agreement word settles it.
    short = len(sentence.split()) <= 8 and not is_korean(sentence)
    return short and any(v.kind != "person" for v in values) and (cues.opening or utterance_opening)


def _is_due(sentence: str, value: Value) -> bool:
    if value.kind != "date":
        return False
    return re.match(r"\s*까지", sentence[value.end:]) is not None or value.text.endswith("까지") \
        or re.search(r"\bby\s+(?:the\s+)?$", sentence[:value.start], re.IGNORECASE) is not None


def _choice(sentence: str) -> str | None:
    match = (_KO_CHOICE if is_korean(sentence) else _EN_CHOICE).search(sentence)
    if match is None:
        return None
    words = [w for w in match.group(1).split() if w.lower() not in _CUE_WORDS and w not in {"그렇게", "이렇게", "그걸", "그거", "이걸"}]
    return " ".join(words) or None


def decision_subject(sentence: str, values: Sequence[Value]) -> str:
    """Key terms of what was decided: the sentence's nouns without its values and cues."""
    text = sentence
    for value in sorted(values, key=lambda v: v.start, reverse=True):
        text = text[:value.start] + " " + text[value.end:]
    terms: list[str] = []
    for term in keyword_candidates(text):
        if term.lower() not in _CUE_WORDS and term not in terms:
            terms.append(term)
    return " ".join(terms[:6])


def condense(text: str, limit: int = _MAX_QUOTE) -> str:
    """The utterance's words, cut with "…" when long (a quote in a notice or a list)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _decision_of(meeting_id: str, utterance: Utterance, reference: date, names: Sequence[str],
                 previous: str = "") -> Decision | None:
    sentences = split_sentences(utterance.text) or [utterance.text]
    opening = bool(_AGREEMENT.match(utterance.text)) or any(_commits(s) or stance(s).settles for s in sentences)
    chosen: list[tuple[str, list[Value]]] = []
    context: list[tuple[str, list[Value]]] = []
    bare_settle = False  # "Okay, that works." settles the values said beside it
    for sentence in sentences:
        values = [v for v in extract_values(sentence, reference=reference, names=names)
                  if v.text.strip(" 은는에") not in NOW_WORDS]
        cues = stance(sentence)
        if values and not (cues.hedged or cues.negated or cues.question):
            context.append((sentence, settled_values(sentence, values)))
        if is_decision_sentence(sentence, values, opening):
            chosen.append((sentence, settled_values(sentence, values)))
        elif _commits(sentence):
            # "네, 제가 할게요" after a request settles who does it.
            chosen.append((sentence, [Value("person", utterance.speaker_name, 0, 0, unit=utterance.speaker_name)]))
        bare_settle = bare_settle or (cues.settles and not values and not cues.hedged)
    if bare_settle and chosen:
        chosen += [c for c in context if c[0] not in {s for s, _ in chosen}]
    if not chosen:
        return None
    values = [v for _, vs in chosen for v in vs]
    value = ", ".join(dict.fromkeys(display_text(v) for v in values))
    if not value:
        value = next((c for c in (_choice(s) for s, _ in chosen) if c), "")
    # The subject is often named in the proposal just before ("Okay, two-year term.").
    subject = decision_subject(" ".join(dict.fromkeys([s for s, _ in chosen] + [s for s, _ in context])), values)
    if len(subject.split()) < 2:
        subject = " ".join(dict.fromkeys((subject + " " + decision_subject(previous, [])).split()))
    fallback = _FILLERS.sub("", chosen[0][0])[:60]
    return Decision(
        id=f"{meeting_id}#d{utterance.id}", meeting_id=meeting_id, seq=utterance.id,
        speaker=utterance.speaker_name, time=utterance.absolute_timestamp,
        subject=subject.strip() or fallback, value=value or fallback, quote=condense(utterance.text),
    )


def extract_decisions(meeting_id: str, utterances: Sequence[Utterance], started_at: datetime) -> list[Decision]:
    """The decisions of one meeting, in order, one per settling utterance."""
    reference = local_date(started_at, started_at.tzinfo)  # started_at is on the meeting's clock
    names = sorted({u.speaker_name for u in utterances})
    decisions = []
    for i, utterance in enumerate(utterances):
        previous = utterances[i - 1].text if i else ""
        decision = _decision_of(meeting_id, utterance, reference, names, previous)
        if decision is not None:
            decisions.append(decision)
    return decisions
