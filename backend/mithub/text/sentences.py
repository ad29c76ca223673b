"""Sentence splitting for Korean and English text."""

from __future__ import annotations

import re

from mithub.text.korean import korean_sentences
from mithub.text.tokens import has_hangul

# End punctuation (., !, ?, …, CJK full stops) followed by space; keeps "3.5" and "e.g." whole
# enough for chunking purposes.
_ENGLISH_BOUNDARY = re.compile(r"(?<=[.!?…。！？])\s+(?=[\"'(\[A-Z0-9가-힣])")


def split_sentences(text: str) -> list[str]:
    """Split into sentences: kiwipiepy for Hangul text, punctuation rules otherwise."""
    text = text.strip()
    if not text:
        return []
    if has_hangul(text):
        return korean_sentences(text)
    parts = []
    for block in re.split(r"\n\s*\n", text):
        parts.extend(p.strip() for p in _ENGLISH_BOUNDARY.split(block) if p.strip())
    return parts
