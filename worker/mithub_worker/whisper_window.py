"""Whisper on a window shorter than its 30 s, for the short utterances a VAD cuts.

faster-whisper pads every utterance to 30 s of audio, and the encoder's work on that window is
most of an utterance's CPU (about 0.47 of 0.58 s for tiny.en int8 on an AVX2-only CPU). A 15 s
window costs about a third, with the same word error rate on espeak-ng sentences; but a window
Whisper was not trained on can make it repeat itself, so `ShortWindow.transcribe` gives up (and
the caller runs the full 30 s path) on any sign of that: no word, text too long or too
repetitive for the audio, a low average log-probability or a high no-speech probability, or
the token limit reached.
"""

from __future__ import annotations

import math
import zlib
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

FRAMES_PER_SECOND = 100  # Whisper's log-mel frames (10 ms hop)
SAMPLE_RATE = 16000
# faster-whisper's own thresholds for a decode that failed (it retries at a higher temperature)
MAX_COMPRESSION_RATIO = 2.4
MIN_AVG_LOGPROB = -1.0
MAX_NO_SPEECH_PROB = 0.6
# no speaker says more than this; a transcript that does is a repetition
MAX_WORDS_PER_SECOND = 6.0
MAX_TOKENS_PER_SECOND = 10.0
MIN_TOKENS = 16


class ShortWindow:
    """Greedy decoding of one utterance over a `seconds`-long window of the model."""

    def __init__(self, model: WhisperModel, seconds: float) -> None:
        from faster_whisper.transcribe import get_suppressed_tokens

        self._model = model
        self.seconds = seconds
        self._frames = int(seconds * FRAMES_PER_SECOND)
        self._tokenizers: dict[str, tuple] = {}
        self._suppressed = get_suppressed_tokens
        self.retries = 0  # transcripts not trusted, redone over the full window

    def fits(self, audio: np.ndarray) -> bool:
        """Whether the utterance leaves a second of the window free (else: the full window)."""
        return len(audio) <= (self.seconds - 1.0) * SAMPLE_RATE

    def transcribe(self, audio: np.ndarray, language: str) -> tuple[str, float] | None:
        """(text, confidence), or None when the result is not to be trusted."""
        import ctranslate2

        tokenizer, prompt, suppressed = self._tokenizer(language)
        features = self._model.feature_extractor(audio)[:, :-1]
        features = np.pad(features, ((0, 0), (0, max(0, self._frames - features.shape[1]))))
        encoded = self._model.model.encode(
            ctranslate2.StorageView.from_array(np.ascontiguousarray(features[None, :, : self._frames])),
            to_cpu=False)
        seconds = len(audio) / SAMPLE_RATE
        limit = max(MIN_TOKENS, math.ceil(MAX_TOKENS_PER_SECOND * seconds))
        [result] = self._model.model.generate(
            encoded, [prompt], beam_size=1, max_length=len(prompt) + limit, return_scores=True,
            return_no_speech_prob=True, suppress_blank=True, suppress_tokens=suppressed)
        tokens = [t for t in result.sequences_ids[0] if t < tokenizer.eot]
        text = tokenizer.decode(tokens).strip()
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > MAX_NO_SPEECH_PROB or not trustworthy(
                text, len(tokens) >= limit, avg_logprob, seconds):
            return None
        return text, min(1.0, max(0.0, math.exp(avg_logprob)))

    def _tokenizer(self, language: str) -> tuple:
        if language not in self._tokenizers:
            from faster_whisper.tokenizer import Tokenizer

            tokenizer = Tokenizer(self._model.hf_tokenizer, self._model.model.is_multilingual,
                                  task="transcribe", language=language)
            prompt = self._model.get_prompt(tokenizer, [], without_timestamps=True)
            self._tokenizers[language] = (tokenizer, prompt, self._suppressed(tokenizer, [-1]))
        return self._tokenizers[language]


def trustworthy(text: str, hit_limit: bool, avg_logprob: float, seconds: float) -> bool:
    """A short-window transcript to keep: some word, not cut at the token limit, not repetitive
    (gzip ratio as faster-whisper checks it), not faster than anyone speaks, not improbable."""
    if not any(c.isalnum() for c in text) or hit_limit or avg_logprob < MIN_AVG_LOGPROB:
        return False  # no word at all: silence or noise read as punctuation
    raw = text.encode()
    if len(raw) / len(zlib.compress(raw)) > MAX_COMPRESSION_RATIO:
        return False
    return len(text.split()) <= MAX_WORDS_PER_SECOND * max(seconds, 1.0)
