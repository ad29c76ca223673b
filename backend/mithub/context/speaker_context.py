"""SpeakerContext (seed 002 §5.1, §10.2.6): per-speaker buffers, statistics, who-follows-whom
interaction matrix and role inference (facilitator / presenter / participant / observer)."""

from __future__ import annotations

import re
from collections import deque
from typing import Any, Literal

from pydantic import BaseModel

from mithub.context.models import Utterance
from mithub.text import has_hangul

SpeakerRole = Literal["facilitator", "presenter", "participant", "observer"]

_KO_QUESTION_ENDINGS = ("까요", "나요", "습니까", "ㅂ니까", "을까", "ㄹ까", "는지요", "가요", "죠", "지요", "래요", "세요")
_KO_QUESTION_STARTERS = ("어떻게", "왜", "누가", "언제", "어디", "무엇", "뭐", "어느", "혹시", "얼마")
_EN_QUESTION_STARTERS = re.compile(
    r"^(?:what|why|how|who|when|where|which|can|could|should|would|do|does|did|is|are|shall|any)\b",
    re.IGNORECASE,
)
# Phrases that steer a meeting (agenda moves, wrap-ups, asking others to speak).
_FACILITATION = re.compile(
    r"다음 안건|넘어가|정리하면|정리하겠습니다|시작하겠습니다|의견 (?:있|주)|말씀해 주|어떻게 생각|마무리"
    r"|\bnext item\b|\bmoving on\b|\bmove on\b|\bto sum up\b|\blet'?s start\b|\bany (?:thoughts|comments|questions)\b"
    r"|\bwhat do you think\b|\bagenda\b|\bwrap up\b",
    re.IGNORECASE,
)


def is_question(text: str) -> bool:
    """Korean and English questions: a question mark, a Korean interrogative ending or opener
    (…까요? …나요?), or an English interrogative opener."""
    stripped = text.strip().rstrip(".!… ")
    if "?" in text:
        return True
    if has_hangul(stripped):
        # The seed's bare "죠"/"세요" endings are also statements; they count only with an opener.
        strong = _KO_QUESTION_ENDINGS[:6]
        return stripped.endswith(strong) or stripped.startswith(_KO_QUESTION_STARTERS)
    return _EN_QUESTION_STARTERS.match(stripped) is not None


def word_count(text: str) -> int:
    """Words for English; for Korean, eojeol (space-separated) count scaled up because one
    eojeol carries about 1.5 English words."""
    words = len(text.split())
    return int(round(words * 1.5)) if has_hangul(text) else words


class SpeakerStats(BaseModel):
    user_id: str
    name: str
    utterance_count: int = 0
    question_count: int = 0
    statement_count: int = 0
    facilitation_count: int = 0
    total_words: int = 0
    avg_utterance_length: float = 0.0


class SpeakerContext:
    def __init__(self, max_buffer_per_speaker: int = 25) -> None:
        self.max_buffer = max_buffer_per_speaker
        self.speaker_buffers: dict[str, deque[Utterance]] = {}
        self.speaker_roles: dict[str, SpeakerRole] = {}
        self.interaction_matrix: dict[tuple[str, str], int] = {}
        self.speaker_stats: dict[str, SpeakerStats] = {}
        self._last_speaker_id: str | None = None

    def add_utterance(self, utterance: Utterance) -> None:
        speaker_id = utterance.speaker_id
        if speaker_id not in self.speaker_buffers:
            self.speaker_buffers[speaker_id] = deque(maxlen=self.max_buffer)
        if speaker_id not in self.speaker_stats:
            self.speaker_stats[speaker_id] = SpeakerStats(user_id=speaker_id, name=utterance.speaker_name)
        self.speaker_buffers[speaker_id].append(utterance)

        stats = self.speaker_stats[speaker_id]
        stats.name = utterance.speaker_name
        stats.utterance_count += 1
        stats.total_words += word_count(utterance.text)
        stats.avg_utterance_length = stats.total_words / stats.utterance_count
        if is_question(utterance.text):
            stats.question_count += 1
        else:
            stats.statement_count += 1
        if _FACILITATION.search(utterance.text):
            stats.facilitation_count += 1

        if self._last_speaker_id and self._last_speaker_id != speaker_id:
            key = (self._last_speaker_id, speaker_id)
            self.interaction_matrix[key] = self.interaction_matrix.get(key, 0) + 1
        self._last_speaker_id = speaker_id

    def infer_roles(self) -> dict[str, SpeakerRole]:
        """Roles relative to the meeting, not fixed thresholds: the seed's rules (questions ->
        facilitator, long explanations -> presenter, few turns -> observer) applied to each
        speaker's share of turns, words, questions and agenda moves."""
        active = [s for s in self.speaker_stats.values() if s.utterance_count > 0]
        if not active:
            return {}
        turns = sum(s.utterance_count for s in active)
        words = sum(s.total_words for s in active)
        questions = max(sum(s.question_count for s in active), 1)
        steering = max(sum(s.facilitation_count for s in active), 1)
        mean_length = words / turns
        fair_share = 1.0 / len(active)
        facilitator = max(
            active,
            key=lambda s: (s.question_count / questions + s.facilitation_count / steering, s.utterance_count),
        )
        roles: dict[str, SpeakerRole] = {}
        for stats in active:
            turn_share = stats.utterance_count / turns
            word_share = stats.total_words / max(words, 1)
            if stats is facilitator and len(active) > 1 and (
                facilitator.question_count + facilitator.facilitation_count >= 2
            ):
                roles[stats.user_id] = "facilitator"
            elif stats.utterance_count < 3 or (len(active) > 2 and turn_share < fair_share * 0.25):
                roles[stats.user_id] = "observer"
            elif stats.avg_utterance_length > 1.3 * mean_length and word_share >= fair_share:
                roles[stats.user_id] = "presenter"
            else:
                roles[stats.user_id] = "participant"
        self.speaker_roles = roles
        return roles

    # Persistence: counters and the matrix are saved with the manager state; buffers are
    # rebuilt from stored utterances.
    def state_dict(self) -> dict[str, Any]:
        return {
            "stats": [s.model_dump() for s in self.speaker_stats.values()],
            "interactions": [[a, b, n] for (a, b), n in self.interaction_matrix.items()],
            "last_speaker_id": self._last_speaker_id,
        }

    def load_state(self, state: dict[str, Any], history: list[Utterance]) -> None:
        self.speaker_stats = {s["user_id"]: SpeakerStats(**s) for s in state.get("stats", [])}
        self.interaction_matrix = {(a, b): int(n) for a, b, n in state.get("interactions", [])}
        self._last_speaker_id = state.get("last_speaker_id")
        self.speaker_buffers = {}
        for utterance in history:
            self.speaker_buffers.setdefault(
                utterance.speaker_id, deque(maxlen=self.max_buffer)
            ).append(utterance)
