"""Topic-change cue phrases in Korean and English (seed 002 §3.4 "키워드 기반 빠른 감지").

A strong cue ("다음 안건으로 넘어가죠", "let's move on to the budget") announces a new topic on
its own turn; a weak cue ("이제", "정리하면", "anyway") is too common to mean anything alone, so it
only nudges the semantic score. The detector adds the cue strength (x topic_cue_weight) to the
semantic score of that turn: a strong cue opens a topic unless the turns around it are clearly
less novel than usual in this meeting; a weak cue never does on its own.
"""

from __future__ import annotations

import re

STRONG_CUE_PHRASES_KO: tuple[str, ...] = (
    "다음 안건", "다음 주제", "다음 순서", "다음 항목", "다른 주제", "다른 안건", "넘어가",
    "넘어갈", "넘어 가", "그건 그렇고", "다음으로", "마무리하고", "화제를 바꿔", "주제를 바꿔",
    "본론으로",
)
WEAK_CUE_PHRASES_KO: tuple[str, ...] = ("이제", "정리하면", "그럼", "그러면", "한편", "그리고 나서")

_STRONG_EN = (
    r"next (?:item|topic|point|question|agenda item|thing on the agenda)",
    r"next on the agenda",
    r"the next thing",
    r"mov(?:e|ing) on",
    r"let'?s (?:switch|turn|go on|move) to",
    r"switch(?:ing)? (?:over )?to",
    r"turn(?:ing)? (?:now )?to",
    r"(?:go|come|get) on (?:now )?to",
    r"let'?s talk about",
    r"that brings us to",
    r"how about you",
    r"over to you",
    r"(?:we'?ve got|we have|there are) (?:some )?(?:more )?questions (?:now )?(?:on|about|from)",
)
_WEAK_EN = (
    r"anyway",
    r"(?:okay|ok|alright|right),? so",
    r"next",
    r"another thing",
    r"what about",
    r"to sum up",
    r"in summary",
)

STRONG_CUE_WEIGHT = 1.0
WEAK_CUE_WEIGHT = 0.25


def _pattern(english: tuple[str, ...], korean: tuple[str, ...]) -> re.Pattern[str]:
    parts = [rf"\b{p}\b" for p in english] + [re.escape(p) for p in korean]
    return re.compile("|".join(parts), re.IGNORECASE)


_STRONG = _pattern(_STRONG_EN, STRONG_CUE_PHRASES_KO)
_WEAK = _pattern(_WEAK_EN, WEAK_CUE_PHRASES_KO)
# Transcripts spell contractions with spaces ("let 's", "we 've"); join them before matching.
_SPACED_APOSTROPHE = re.compile(r"\s+'\s*")


def _normalize(text: str) -> str:
    return " ".join(_SPACED_APOSTROPHE.sub("'", text).split())


def has_topic_cue(text: str) -> bool:
    """A strong cue phrase announcing a new topic is in `text` (Korean or English)."""
    return _STRONG.search(_normalize(text)) is not None


def cue_strength(text: str) -> float:
    """1.0 for a strong cue, 0.25 for a weak one, 0.0 for none."""
    normalized = _normalize(text)
    if _STRONG.search(normalized):
        return STRONG_CUE_WEIGHT
    if _WEAK.search(normalized):
        return WEAK_CUE_WEIGHT
    return 0.0
