"""Language helpers shared by meeting memory and retrieval: sentences, tokens, Korean morphemes."""

from mithub.text.sentences import split_sentences
from mithub.text.tokens import content_tokens, has_hangul, keyword_candidates
from mithub.text.wer import word_error_rate

__all__ = [
    "content_tokens", "has_hangul", "keyword_candidates", "split_sentences", "word_error_rate",
]
