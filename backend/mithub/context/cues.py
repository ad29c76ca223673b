"""Cue patterns in Korean and English for decisions, pending items and action items, with owner
and due-date extraction. Used by the extractive summarizer and by template answers."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

DECISION = re.compile(
    r"결정|확정|하기로|합의|승인|채택|(?:으로|로)\s*(?:가겠습니다|가죠|갑시다|하죠|하겠습니다|정하)"
    r"|\bdecided\b|\bdecision\b|\bagreed\b|\bapproved\b|\bfinali[sz]ed?\b|\bsettled on\b"
    r"|\bwe(?:'ll| will) go with\b|\blet'?s go with\b|\bgoing with\b|\bwe(?:'re| are) going to go with\b",
    re.IGNORECASE,
)
PENDING = re.compile(
    r"보류|미정|추후|다시 논의|다시 얘기|재논의|결론(?:을|이)? ?(?:못|안|나지)|검토(?:가)? 필요|아직 (?:확정|결정)"
    r"|\bpark(?:ed)? (?:that|this|it)\b|\blet'?s park\b|\bpending\b|\bpostpone|\btabled?\b|\brevisit\b"
    r"|\bopen (?:question|issue)\b|\btbd\b|\bnot (?:yet )?decided\b|\bundecided\b|\bcome back to\b",
    re.IGNORECASE,
)
DUE = re.compile(
    r"(?:\d{1,2}월\s*\d{1,2}일|다음\s*주\s*[월화수목금토일]요일|이번\s*주\s*[월화수목금토일]요일"
    r"|[월화수목금토일]요일|다음\s*주|이번\s*주|다음\s*회의|내일|모레|오늘|월말|주말|분기\s*말)\s*(?:까지|중으로|전까지)"
    r"|\bby (?:next |this |the end of (?:the )?)?(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|week|month|quarter|tomorrow|today|eod|end of (?:the )?(?:week|day|month|sprint)|next (?:meeting|sprint|week)"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}|\d{1,2}(?:st|nd|rd|th)?)\b",
    re.IGNORECASE,
)
ACTION = re.compile(
    r"(?:해|해서|봐|알아봐|정리해|준비해|작성해|공유해|받아|보내|챙겨|확인해)\s*(?:주세요|주시고|줄래요|주실래요|주시겠어요|줘요)"
    r"|(?:하겠습니다|할게요|드리겠습니다|드릴게요|맡겠습니다|맡을게요|맡아\s*주)|담당"
    r"|\baction item\b|\bi(?:'ll| will)\b|\bcan you\b|\bcould you\b|\bplease\b|\btake care of\b"
    r"|\bwill (?:send|prepare|draft|write|check|update|share|review|set up|follow up)\b|\bowner\b",
    re.IGNORECASE,
)
# Hedged or negated statements mention a decision without making one.
_NOT_DECIDED = re.compile(
    r"어렵|어려|못 ?하|않|아니|해야 (?:할|하는)|할지|(?:말씀드리|정하)(?:기(?:는|가|엔)|긴)|\?|\bnot\b|\bhaven't\b|\bhasn't\b"
    r"|\bif we\b|\bwhether\b|\bshould we\b",
    re.IGNORECASE,
)
# "서준 님, …", "Alice, …": the addressee, dropped from the task text.
_VOCATIVE = re.compile(r"^(?:[가-힣]{2,4}\s*(?:님|씨)(?:이|은|께서)?,?|[A-Z][a-z]+,)\s*")
_SELF = re.compile(r"제가|저희가|\bi(?:'ll| will)\b|\bi can\b", re.IGNORECASE)


@dataclass(frozen=True)
class ActionItem:
    task: str
    owner: str | None
    due: str | None
    seq: int | None = None

    def render(self) -> str:
        owner = f"{self.owner}: " if self.owner else ""
        due = f" ({self.due})" if self.due else ""
        return f"{owner}{self.task}{due}"


def is_decision(sentence: str) -> bool:
    return DECISION.search(sentence) is not None and _NOT_DECIDED.search(sentence) is None


def is_pending(sentence: str) -> bool:
    return PENDING.search(sentence) is not None


def find_due(sentence: str) -> str | None:
    match = DUE.search(sentence)
    return match.group(0).strip() if match else None


_RECIPIENT = re.compile(r"^\s*(?:님|씨)?\s*(?:께|에게|한테)")


def _mentioned_owner(sentence: str, names: Iterable[str]) -> str | None:
    """A participant addressed or named in the sentence: full name, or given name (Korean names
    without the family syllable, English first names); "서준 님께" (to Seojun) names a
    recipient, not an owner."""
    best: tuple[int, str] = (len(sentence) + 1, "")
    for name in names:
        forms = {name}
        if len(name) >= 3 and re.fullmatch(r"[가-힣]+", name):
            forms.add(name[1:])
        forms.update(part for part in name.split() if len(part) >= 3)
        for form in forms:
            for match in re.finditer(re.escape(form), sentence):
                if not _RECIPIENT.match(sentence[match.end():]) and match.start() < best[0]:
                    best = (match.start(), name)
    return best[1] or None


def extract_action(sentence: str, speaker: str, names: Iterable[str], seq: int | None = None) -> ActionItem | None:
    """An action item if the sentence assigns work (a request or a commitment) with an owner or a
    due date; the owner is the person named, else the speaker when they commit themselves."""
    if ACTION.search(sentence) is None or sentence.rstrip().endswith("?") and find_due(sentence) is None:
        return None
    due = find_due(sentence)
    owner = _mentioned_owner(sentence, [n for n in names if n != speaker])
    if owner is None and (_SELF.search(sentence) or due):
        owner = speaker
    if owner is None and due is None:
        return None
    task = _VOCATIVE.sub("", sentence.strip()) or sentence.strip()
    return ActionItem(task=task, owner=owner, due=due, seq=seq)
