"""Oversize utterances (a long monologue, an STT segment that never ended) are split at
sentence boundaries into pieces that fit `utterance_max_tokens`, timings interpolated."""

from __future__ import annotations

from mithub.budget import TokenBudgetManager
from mithub.context.models import NewUtterance
from mithub.text import split_sentences


def _pieces(text: str, max_tokens: int, budget: TokenBudgetManager) -> list[str]:
    pieces: list[str] = []
    current = ""
    for sentence in split_sentences(text) or [text]:
        while budget.count(sentence) > max_tokens:  # one sentence longer than the limit
            cut = max(1, int(len(sentence) * max_tokens / budget.count(sentence) * 0.95))
            head, sentence = sentence[:cut], sentence[cut:].lstrip()
            if current:
                pieces.append(current)
                current = ""
            pieces.append(head.strip())
        joined = f"{current} {sentence}".strip()
        if current and budget.count(joined) > max_tokens:
            pieces.append(current)
            current = sentence
        else:
            current = joined
    if current:
        pieces.append(current)
    return [p for p in pieces if p]


def split_oversize(
    utterance: NewUtterance, max_tokens: int, budget: TokenBudgetManager
) -> list[NewUtterance]:
    if budget.count(utterance.text) <= max_tokens:
        return [utterance]
    pieces = _pieces(utterance.text, max_tokens, budget)
    total_chars = sum(len(p) for p in pieces) or 1
    duration = max(utterance.end_ms - utterance.start_ms, 0)
    out: list[NewUtterance] = []
    offset = 0
    for piece in pieces:
        start = utterance.start_ms + duration * offset // total_chars
        offset += len(piece)
        end = utterance.start_ms + duration * offset // total_chars
        out.append(utterance.model_copy(update={"text": piece, "start_ms": start, "end_ms": end}))
    return out
