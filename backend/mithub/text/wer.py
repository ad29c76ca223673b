"""Word error rate: how far a transcript is from the words that were spoken."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def _words(text: str) -> list[str]:
    """Lower-cased words with punctuation dropped (an inner apostrophe stays: "don't")."""
    return _WORD.findall(text.lower())


def word_error_rate(reference: str, hypothesis: str) -> float:
    """(substitutions + deletions + insertions) / words in the reference, by Levenshtein
    distance over words after lower-casing and dropping punctuation. An empty reference gives
    0.0 for an empty hypothesis and 1.0 otherwise (WER has no finite value there)."""
    ref, hyp = _words(reference), _words(hypothesis)
    if not ref:
        return 0.0 if not hyp else 1.0
    previous = list(range(len(hyp) + 1))
    for i, ref_word in enumerate(ref, start=1):
        current = [i]
        for j, hyp_word in enumerate(hyp, start=1):
            current.append(min(
                previous[j] + 1,  # deletion
                current[j - 1] + 1,  # insertion
                previous[j - 1] + (ref_word != hyp_word),  # substitution or match
            ))
        previous = current
    return previous[-1] / len(ref)
