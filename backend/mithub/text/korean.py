"""Korean morphological analysis with kiwipiepy, loaded once per process (about 1 s)."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import NamedTuple

# Content tags kept for search and keywords: nouns, proper nouns, roots, verb/adjective stems,
# foreign words (SL), numbers (SN) and Hanja (SH).
NOUN_TAGS = frozenset({"NNG", "NNP", "NR", "XR", "SL", "SH"})
CONTENT_TAGS = NOUN_TAGS | frozenset({"VV", "VA", "SN", "NNB"})

_lock = threading.Lock()


class Morpheme(NamedTuple):
    form: str
    tag: str


@lru_cache(maxsize=1)
def _kiwi():  # noqa: ANN202 - kiwipiepy ships no type hints
    from kiwipiepy import Kiwi

    return Kiwi()


def morphemes(text: str) -> list[Morpheme]:
    """Morphemes with simplified tags (irregular-conjugation suffixes such as `VV-R` dropped)."""
    if not text.strip():
        return []
    with _lock:
        tokens = _kiwi().tokenize(text)
    return [Morpheme(t.form, t.tag.split("-")[0]) for t in tokens]


def korean_sentences(text: str) -> list[str]:
    """Sentence split that also finds boundaries without punctuation (spoken Korean)."""
    if not text.strip():
        return []
    with _lock:
        sentences = _kiwi().split_into_sents(text)
    return [s.text.strip() for s in sentences if s.text.strip()]
