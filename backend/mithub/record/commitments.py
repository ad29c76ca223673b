"""Who a sentence names as the doer of work, in Korean and English: participants by name (full
name, Korean given name with 님/씨, surname and title, English first name), not a recipient
("서준 님께", "ask Raj") and not someone only copied ("민호 님 참조로", "cc Raj"); the speaker's
unit speaking as a team ("저희 운영팀에서", "our QA team will"); a reply that opens with a yes.

These are the grammatical readings `record.action_features` builds the commitment model's
features from; whether a line is a commitment is the model's call, not a rule here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mithub.text.tokens import ENGLISH_STOPWORDS

# A unit as the doer: the speaker's own unit (저희 + a noun ending in 팀, 부, 센터, 본부) or a team
# as the source of the work ("서버팀에서 할게요"), "our QA team will", "the Transportation Division will".
_KO_TEAM = re.compile(r"저희\s*(?P<team>[가-힣A-Za-z0-9]{1,8}(?:팀|부|센터|본부))(?:에서|이|가)(?=\s)"
                      r"|(?<![가-힣])(?P<team2>[가-힣A-Za-z0-9]{1,8}팀)에서(?=\s)")
_EN_TEAM = re.compile(r"\b(?:[Oo]ur|[Mm]y|[Tt]he)?\s*(?P<team>(?:[A-Z]{2,}|[A-Za-z]+)\s+(?:[Tt]eam|Division|Department|Office|Group))"
                      r"\s+(?:will|'ll|can|is\s+going\s+to)\b")
_AFFIRMATIVE = re.compile(
    r"^\W*(?:(?:하하|아|음|오|ha|oh|um|uh)\W+)*(?:네+|넵|예|응|알겠습니다|알겠어요|그럴게요|좋아요|sure|yes|yep"
    r"|yeah|okay|ok|will do|works for me|sounds good|on it|got it|of course|absolutely|definitely)\b",
    re.IGNORECASE,
)
# "action item for Sam", "assigned to Raj", "담당은 성민 님": the name that follows owns it.
_NAMED_OWNER = re.compile(
    r"(?:\baction\s+items?\s+(?:for|to)|\bassign(?:ed)?\s+(?:\w+\s+)?to|\bowned\s+by|\bowner\s+(?:is|will\s+be)"
    r"|담당(?:자)?(?:는|은)?|오너(?:는|은)?)\s*:?\s*$",
    re.IGNORECASE,
)
_KO_RECIPIENT = re.compile(r"^\s*(?:님|씨)?\s*(?:께|에게|한테|이랑|하고|랑|과|와|을|를|의|도\s*초대)")
# Who only gets a copy ("민호 님 참조로", "cc Raj", "copy Dana on it", "with Sam in cc") is a
# recipient, not the doer.
_COPIED_AFTER = re.compile(r"^\s*(?:님|씨)?\s*(?:을|를|도|은|는)?\s*(?:참조|씨씨|cc\b)"
                           r"|^\s*(?:in|on)\s+(?:cc|copy)\b|^\s*(?:cc'?d|copied)\b", re.IGNORECASE)
_COPIED_BEFORE = re.compile(r"(?:참조|씨씨|\bcc|\bcc'ing|\bcopy|\bcopying|\bloop\s+in|\blooping\s+in)\s*(?:로|는|은|:)?\s*$",
                            re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class NameMention:
    """A participant named as a possible doer: `name` is their speaker_name."""

    name: str
    start: int
    end: int


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def name_forms(name: str) -> set[str]:
    """How a participant is called: the full name, a Korean given name ("성민" for 박성민,
    said with 님/씨), an English first name ("Raj" for Raj Patel) unless it is also a common
    word ("Will", "May")."""
    forms = {name}
    if re.fullmatch(r"[가-힣]{3,4}", name):
        forms.add(name[1:])
    parts = name.split()
    if len(parts) > 1 and len(parts[0]) >= 2 and parts[0].lower() not in ENGLISH_STOPWORDS:
        forms.add(parts[0])
    return forms


def doer_mentions(sentence: str, names: list[str], speaker: str) -> list[NameMention]:
    """Participants named in the sentence as subject or addressee, in order; a recipient
    ("서준 님께", "저한테") or object ("ask Raj") is no doer, and neither is the speaker."""
    every = _all_mentions(sentence, names, speaker)
    doers = []
    for i, m in enumerate(every):
        rest = sentence[m.end:]
        # "수민 님이랑 서준 님이 같이 해 주세요": a name joined to the next one shares the work.
        joined = i + 1 < len(every) and re.match(r"\s*(?:이랑|랑|하고|와|과)\s*$", sentence[m.end:every[i + 1].start])
        if (_KO_RECIPIENT.match(rest) and not joined) or _english_object(sentence, m.start):
            continue
        if _COPIED_AFTER.match(rest) or _COPIED_BEFORE.search(sentence[: m.start]):
            continue
        doers.append(m)
    return doers


# Korean job titles: a colleague is often called by surname and title ("윤 차장", "한 팀장님").
_KO_TITLE = r"(?:[가-힣]{0,2}장|대리|주임|책임|선임|수석|교수|선생|매니저|프로|위원|간사|사원)(?:님)?"


def _title_forms(names: list[str], speaker: str) -> list[tuple[str, str]]:
    """(surname-and-title pattern, name) for Korean names whose surname no one else shares."""
    surnames = [n[0] for n in names if re.fullmatch(r"[가-힣]{3,4}", n)]
    return [(rf"{re.escape(n[0])}\s?{_KO_TITLE}", n) for n in names
            if n != speaker and re.fullmatch(r"[가-힣]{3,4}", n) and surnames.count(n[0]) == 1]


def _all_mentions(sentence: str, names: list[str], speaker: str) -> list[NameMention]:
    found: list[NameMention] = []
    for pattern, name in _title_forms(names, speaker):
        for m in re.finditer(rf"(?<![가-힣A-Za-z]){pattern}", sentence):
            found.append(NameMention(name, m.start(), m.end()))
    for name in names:
        if name == speaker:
            continue
        for form in sorted(name_forms(name), key=len, reverse=True):
            korean_given = form != name and re.fullmatch(r"[가-힣]+", form) is not None
            pattern = re.escape(form) + (r"\s*(?:님|씨)" if korean_given else r"(?:\s*(?:님|씨))?")
            for m in re.finditer(rf"(?<![가-힣A-Za-z]){pattern}", sentence):
                if all(m.start() >= f.end or m.end() <= f.start for f in found):
                    found.append(NameMention(name, m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)


def _english_object(sentence: str, start: int) -> bool:
    before = sentence[:start]
    if _NAMED_OWNER.search(before):
        return False
    return re.search(r"\b(?:to|with|from|for|ask|tell|call|email|ping|cc|thanks|thank)\s+$",
                     before, re.IGNORECASE) is not None


def team_owner(sentence: str) -> str | None:
    """"저희 IT팀에서 할게요", "our QA team will cover it": the team takes the work."""
    m = _KO_TEAM.search(sentence) or _EN_TEAM.search(sentence)
    if m is None:
        return None
    team = m["team"] or m.groupdict().get("team2") or ""
    return team[:1].upper() + team[1:]


def starts_affirmative(text: str) -> bool:
    return _AFFIRMATIVE.search(text) is not None
