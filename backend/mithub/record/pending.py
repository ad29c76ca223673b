"""Pending items of one meeting, LLM-free: what was deliberately left open (보류, 미정, 다음에
다시, "let's park that", "revisit next week").

A fallback agreed on the spot is no pending item: "Can we agree on 10 and revisit if it
slips?" settles 10 now and only says what happens if it fails, so a revisit under a
condition (if / when / once) or inside a proposal to agree does not count.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from mithub.context.models import Utterance
from mithub.record.actions import condense
from mithub.record.commitments import split_sentences
from mithub.record.models import PendingItem

TEXT_CHARS = 240
ECHO_LINES = 2
_ECHO = re.compile(r"^\W*(?:네|예|좋아요|그럼|okay|ok|yes|yeah|sure|agreed|fine)\b|^\W*(?:그건|그거|그것도|that|it)\b",
                   re.IGNORECASE)

_PENDING = re.compile(
    r"보류|미정|추후|재논의|다시\s*(?:논의|얘기|이야기|판단|검토|보죠|봐요|보기로|봅시다|정하)|결론(?:을|이)?\s*(?:못|안\s*나)"
    r"|아직\s*(?:확정|결정)(?:이|을|은)?\s*(?:안|못)|정하긴\s*어렵|(?:결정|판단)(?:은|을)?\s*미루"
    r"|\bpark(?:ed|ing)?\s+(?:that|this|it)\b|\blet'?s\s+park\b|\bparking\s+lot\b|\btable\s+(?:that|this|it)\b"
    r"|\brevisit\b|\bcome\s+back\s+to\s+(?:that|this|it)\b|\bnot\s+(?:yet\s+)?decided\b|\bundecided\b"
    r"|\btbd\b|\bhold\s+off\b|\bon\s+hold\b|\bopen\s+question\b|\bdefer(?:red)?\b|\bpostpone"
    # deferred to a later meeting: "다음 주에 같이 정하죠", "다음 주 안건으로 넘길게요", "take it offline"
    r"|(?:다음\s*(?:주|달|회의|번|미팅)|나중)(?:에|에서|에는)?\s*(?:\S+\s+){0,2}(?:정하|얘기|이야기|논의|보죠|봐요|다루)"
    r"|안건으로\s*(?:넘기|넘길|미루)|오늘\s*정하기(?:엔|는)"
    r"|\b(?:decide|discuss|talk\s+about|pick\s+(?:it|this|that)\s+up)\b.{0,30}\b(?:next\s+(?:week|meeting|time)|later)\b"
    r"|\btake\s+(?:it|this|that)\s+offline\b",
    re.IGNORECASE,
)
# "revisit if it slips", "다시 보고 결정하면": a fallback under a condition; "can we agree on
# …": a proposal to settle now.
_CONDITIONAL = re.compile(
    r"\b(?:revisit|come\s+back\s+to\s+\w+)\s+(?:\w+\s+)?(?:if|when|once|should)\b|\bagree\s+on\b"
    r"|\b(?:don't|do\s+not|shouldn't|won't|never|no\s+need\s+to)\s+(?:\w+\s+)?(?:park|postpone|defer|revisit)\b"
    r"|보류\s*(?:없이|하지\s*말|안\s*하)|보류했던|보류된|미뤘던|넘겼던|지난\s*(?:주|번|회의)에\s*(?:보류|넘)",
    re.IGNORECASE,
)


def is_pending(sentence: str) -> bool:
    """The sentence leaves something open, not as a fallback and not as a question."""
    if sentence.rstrip().endswith("?"):
        return False
    return _PENDING.search(sentence) is not None and _CONDITIONAL.search(sentence) is None


def extract_pending_items(meeting_id: str, utterances: Sequence[Utterance]) -> list[PendingItem]:
    """One pending item per utterance that leaves something open; its text runs from the
    first such sentence to the sentence after the last (what it hangs on, who follows up).
    A short echo of the item just before ("네, 그럼 그건 보류로 해 둘게요") adds nothing."""
    items: list[PendingItem] = []
    for turn in utterances:
        sentences = split_sentences(turn.text)
        hits = [i for i, sentence in enumerate(sentences) if is_pending(sentence)]
        if not hits:
            continue
        if items and turn.id - items[-1].seq <= ECHO_LINES and _ECHO.search(sentences[hits[0]]):
            continue
        text = " ".join(sentences[hits[0]: hits[-1] + 2])
        items.append(PendingItem(
            meeting_id=meeting_id, seq=turn.id, speaker=turn.speaker_name, time=turn.absolute_timestamp,
            text=condense(text, TEXT_CHARS), quote=condense(turn.text, TEXT_CHARS),
        ))
    return items

