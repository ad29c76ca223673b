"""Language helpers shared by meeting memory and retrieval: sentences, tokens, Korean morphemes."""

from mithub.text.sentences import split_sentences
from mithub.text.tokens import content_tokens, has_hangul, keyword_candidates

__all__ = ["content_tokens", "has_hangul", "keyword_candidates", "split_sentences"]
