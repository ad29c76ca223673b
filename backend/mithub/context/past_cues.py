"""Does a question point at earlier meetings? ("지난 회의에서 뭐라고 했죠", "what did we decide
last week"). Such questions move most of the evidence budget to past meetings; others keep
most of it for today's transcript, so questions about today lose nothing."""

from __future__ import annotations

import re

_PAST_CUES = re.compile(
    r"지난\s*(?:번|주|달|회의|미팅|시간|회차)|저번\s*(?:에|주|회의|미팅|시간)?|전번|이전\s*(?:회의|미팅)|"
    r"예전\s*(?:회의|미팅)|첫\s*(?:번째\s*)?(?:회의|미팅)|지난\s*\S*\s*회의|"
    r"\blast\s+(?:week|time|meeting|session|month)\b|\bprevious(?:ly)?\b|\bearlier\s+meeting|"
    r"\b(?:first|second|third|last|prior|past)\s+meetings?\b|\bbefore\s+today\b|\bwe\s+(?:had\s+)?decided\b",
    re.IGNORECASE,
)


def asks_about_past(query: str | None) -> bool:
    return bool(query) and _PAST_CUES.search(query) is not None
