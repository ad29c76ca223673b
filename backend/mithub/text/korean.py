"""Korean morphological analysis with kiwipiepy, loaded once per process (about 1 s)."""

from __future__ import annotations

import re
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

    # Without the multi-word dictionary: loading it is most of kiwi's start (with it, 1.0-1.3 s
    # to construct and 1.8-2.4 s for the first analysis; without, 0.6 s and 0.8 s), which every
    # `mithub ask` pays. It joins a few multi-word proper nouns into one token ("네이버 쇼핑"),
    # which search is better without ("쇼핑" then matches): over the 1,793 Korean turns of the
    # benchmark meetings no token changes, over the Korean retrieval corpus 26 of 285,492.
    return Kiwi(load_multi_dict=False)


def morphemes(text: str) -> list[Morpheme]:
    """Morphemes with simplified tags (irregular-conjugation suffixes such as `VV-R` dropped)."""
    if not text.strip():
        return []
    return list(_analyse(text)[0])


def korean_sentences(text: str) -> list[str]:
    """Sentence split that also finds boundaries without punctuation (spoken Korean)."""
    if not text.strip():
        return []
    return list(_analyse(text)[1])


@lru_cache(maxsize=4096)
def _analyse(text: str) -> tuple[tuple[Morpheme, ...], tuple[str, ...]]:
    """One kiwi analysis serves both: `split_into_sents` runs the same analysis as `tokenize`
    and groups its tokens (tested equal). The latest analyses are kept: an index build asks for
    a chunk's morphemes (BM25) and its sentences (Tri-Graph) one after the other
    (`retrieval.build.analyse_chunks`), a live turn is asked for both by several readers, and a
    call on a finished meeting indexes its turns for the series memory and again for its own
    transcript (4096 holds a long meeting's turns; with 256 every one was analysed twice)."""
    with _lock:
        sentences = _kiwi().split_into_sents(text, return_tokens=True)
    tokens = tuple(Morpheme(t.form, t.tag.split("-")[0]) for s in sentences for t in s.tokens)
    return tokens, tuple(s.text.strip() for s in sentences if s.text.strip())


# Final endings by mood, as `ending_form` gives them: propositive ("-자", "-(으)ㅂ시다"),
# volitional ("-ㄹ게요"); the negators (adverbs 안/못, auxiliaries 않다/말다, 아니다, 없다) and
# the conditional connective endings ("-면", "-거든").
PROPOSITIVE_ENDINGS = frozenset({"자", "시다", "읍시다", "자고요", "자구요"})
VOLITIONAL_ENDINGS = frozenset({"게", "게요", "을게", "을게요", "께요"})
NEGATORS = frozenset({("안", "MAG"), ("못", "MAG"), ("않", "VX"), ("말", "VX"), ("아니", "VCN"), ("없", "VA")})
CONDITIONAL_ENDING = re.compile(r"(?:면|으면|다면|라면|거든)$")


def ending_form(form: str) -> str:
    """An ending as written, without the coda jamo kiwi puts first ("ᆯ게요" -> "게요")."""
    return form[1:] if form and "\u11a8" <= form[0] <= "\u11c2" else form


class Token(NamedTuple):
    """A morpheme with where it lies in the text (`start`, `end`: character offsets)."""

    form: str
    tag: str
    start: int
    end: int


@lru_cache(maxsize=4096)
def tokens_with_offsets(text: str) -> tuple[Token, ...]:
    """Morphemes with their offsets in `text`, for reading surface phrases back out of it (a
    noun phrase as written, with its spacing). Cached: a live line's sentences are read by the
    value, stance and choice readers in turn."""
    if not text.strip():
        return ()
    with _lock:
        found = _kiwi().tokenize(text)
    return tuple(Token(t.form, t.tag.split("-")[0], t.start, t.start + t.len) for t in found)
