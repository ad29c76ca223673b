"""Meeting text as prompt data: JSON-quoted on one line, backticks escaped, so a transcript
line can never close a fenced block or pose as a new instruction section."""

from __future__ import annotations

import json
from collections.abc import Sequence

from mithub.context.models import Utterance


def quote_text(text: str) -> str:
    return json.dumps(text, ensure_ascii=False).replace("`", "\\u0060")


def quote_utterances(utterances: Sequence[Utterance]) -> str:
    """One line per utterance: `[seq] speaker: "text"`."""
    return "\n".join(f"[{u.id}] {u.speaker_name}: {quote_text(u.text)}" for u in utterances)
