"""What the topic detector keeps of one turn (TurnFeatures), and how it reads a turn's words:
the spoken text without transcript annotations, and the topic-bearing terms without backchannel.
Shared by the semantic-shift scorer (semantic_shift.py), its memory (shift_memory.py) and the
boundary model's features (features.py)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from mithub.text import content_tokens

# Words that carry no topic in conversation: acknowledgements, fillers and hesitations.
BACKCHANNEL_TOKENS = frozenset(
    "yeah yes yep yup okay ok oh right mm hmm mhm mmm hm uh um huh uh-huh mm-hmm so well alright "
    "sure no nope ah eh er erm 네 예 응 음 어 아 그렇 맞 알 그래".split()
)
# Non-speech annotations of transcripts and STT output: {vocalsound}, [laughter], {disfmarker}.
_ANNOTATION = re.compile(r"\{[^{}\n]{1,40}\}|\[[^\[\]\n]{1,40}\]")

def spoken_text(text: str) -> str:
    """The words actually spoken: annotations removed, whitespace collapsed."""
    return " ".join(_ANNOTATION.sub(" ", text).split())


def content_terms(text: str) -> tuple[str, ...]:
    """Topic-bearing terms of a turn (nouns, stems, words), backchannel words removed."""
    return tuple(t for t in content_tokens(spoken_text(text)) if t not in BACKCHANNEL_TOKENS)


@dataclass(frozen=True)
class TurnFeatures:
    """What the detector keeps of one turn. `vector` is None for a turn without content."""

    seq: int
    speaker: str
    terms: tuple[str, ...]
    vector: np.ndarray | None
    cue: float = 0.0  # topic cue phrase strength (topics/cues.py)
    decision: float = 0.0  # 1.0 when the turn states a decision (context/cues.py)

    @property
    def embedding_weight(self) -> float:
        # Longer turns say more about the topic, with diminishing returns.
        return math.log1p(len(self.terms)) if self.vector is not None else 0.0

    @property
    def speaker_weight(self) -> float:
        return min(1.0, 0.2 + len(self.terms) / 5)
