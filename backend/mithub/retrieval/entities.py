"""LLM-free entity candidates for the Tri-Graph (seed 001 §3.3.5): per sentence, Korean nouns
from kiwipiepy and, for English, proper-noun-like phrases (runs of capitalized words, with
`of`/`the`/`de`... inside) plus content nouns; then a sentence document-frequency filter
keeps the ones that can bridge (seen more than once) without being everywhere."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

from mithub.text import has_hangul, keyword_candidates
from mithub.text.tokens import ENGLISH_STOPWORDS

_CAPITALIZED = r"[A-Z][\w'\-]*"
_CONNECTOR = r"(?:of|the|de|la|von|van|del|du|le)"
_PROPER_PHRASE = re.compile(rf"{_CAPITALIZED}(?:\s+(?:{_CONNECTOR}\s+)*{_CAPITALIZED})*")


def english_phrases(sentence: str) -> list[str]:
    """Capitalized runs such as `Haymo of Faversham`, `North Carolina`; a lone capitalized
    stopword (`The`, `He`) at the start of a sentence is not a name."""
    phrases = []
    for match in _PROPER_PHRASE.finditer(sentence):
        phrase = match.group(0).strip()
        words = phrase.split()
        if len(words) == 1 and (words[0].lower() in ENGLISH_STOPWORDS or len(words[0]) < 2):
            continue
        phrases.append(phrase.lower())
    return phrases


def sentence_entities(sentence: str) -> set[str]:
    """Entity candidates of one sentence, normalized (English lowercased)."""
    if has_hangul(sentence):
        found = set(keyword_candidates(sentence))
        # English names inside Korean text (product names, people) are candidates too.
        found.update(english_phrases(sentence))
        return found
    found = set(english_phrases(sentence))
    found.update(keyword_candidates(sentence))
    return found


def entities_per_sentence(sentences: Sequence[str]) -> list[set[str]]:
    """`sentence_entities` of each sentence. Overlapping chunk windows repeat a sentence in
    two or three chunks; it is parsed once (Korean morpheme analysis is most of the cost) and
    its rows share one set, which callers only read."""
    parsed = {sentence: sentence_entities(sentence) for sentence in dict.fromkeys(sentences)}
    return [parsed[sentence] for sentence in sentences]


def filter_by_df(
    per_sentence: Sequence[set[str]], min_df: int, max_df_ratio: float, max_df_floor: int, max_df_cap: int | None = None
) -> list[str]:
    """Entities seen in at least `min_df` sentences and at most max(floor, ratio * n), never
    more than `max_df_cap`: a word in thousands of sentences bridges nothing and costs time."""
    counts: Counter[str] = Counter()
    for found in per_sentence:
        counts.update(found)
    max_df = max(max_df_floor, int(max_df_ratio * len(per_sentence)))
    if max_df_cap is not None:
        max_df = min(max_df, max_df_cap)
    return sorted(e for e, df in counts.items() if min_df <= df <= max_df)
