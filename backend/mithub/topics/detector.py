"""TopicDetector (seed 002 §3.4, §10.2.5): where does a new topic start?

The boundary model fitted on data (topics/boundary.py, weights in topics/weights/) scores each
turn from embedding shift, lexical cohesion, speakers, cue phrases and decisions, and picks the
peaks. When its weights are missing or unreadable, the error names the command that rebuilds
them and the meeting goes on with the hand-set semantic-shift score below.

Three kinds of evidence meet in one online score per turn (topics/semantic_shift.py):
- the semantic shift from the meeting so far (a decayed memory of it) to the turns from this one
  on (embeddings, content words, speakers), plus the substance of the turns, in running standard
  deviations of this meeting;
- a cue phrase on the turn itself ("다음 안건으로 넘어가죠", "moving on to ..."): a bonus;
- when an LLM is configured, the seed's TOPIC_DETECTION_PROMPT every N turns over the last 5
  turns: a "changed" verdict adds its confidence (x topic_llm_weight) to those turns. Broken
  JSON or a failing LLM changes nothing; the semantic and keyword evidence still decide.
A boundary is reported `lookahead` turns after it starts, with a confidence and a proposed name
(the LLM's, else the keywords that set the new turns apart from the previous ones).
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import BaseModel, field_validator

from mithub.config import ContextConfig
from mithub.context.cues import is_decision
from mithub.context.models import Utterance
from mithub.context.prompts.topic_detection import (
    TOPIC_DETECTION_RECENT_TURNS,
    TOPIC_DETECTION_SCHEMA,
    TOPIC_DETECTION_SYSTEM_PROMPT,
    topic_detection_prompt,
)
from mithub.embedders import Embedder
from mithub.errors import LLMError, LLMOutputError, ModelLoadError
from mithub.llm import LLMClient
from mithub.llm.json_output import parse_into
from mithub.text import keyword_candidates
from mithub.topics.boundary import BoundaryDecision, BoundaryDetector, BoundaryModel, default_weights_path
from mithub.topics.cues import cue_strength, has_topic_cue
from mithub.topics.semantic_shift import SemanticShiftDetector, ShiftDecision, ShiftParams
from mithub.topics.turns import TurnFeatures, content_terms, spoken_text

logger = structlog.get_logger(__name__)

DetectorKind = Literal["keyword", "semantic", "llm"]
_EMBED_BATCH = 256
_LLM_MAX_TOKENS = 200
_NAME_KEYWORDS = 2


@dataclass(frozen=True)
class TopicChange:
    boundary_seq: int  # seq (Utterance.id) of the FIRST utterance of the new topic
    confidence: float  # 0..1
    detector: DetectorKind
    topic_name: str  # proposed name of the new topic
    reason: str


class TopicVerdict(BaseModel):
    """The LLM's answer to TOPIC_DETECTION_PROMPT."""

    topic_changed: bool
    previous_topic: str = ""
    current_topic: str = ""
    confidence: float = 0.0
    reason: str = ""

    @field_validator("confidence")
    @classmethod
    def _clamp(cls, value: float) -> float:
        return min(1.0, max(0.0, value))

    @field_validator("previous_topic", "current_topic", "reason", mode="before")
    @classmethod
    def _text(cls, value: Any) -> str:
        return "" if value is None else str(value)


def parse_topic_verdict(text: str) -> TopicVerdict | None:
    """The LLM verdict, or None (logged) when the answer is not the JSON we asked for."""
    try:
        return parse_into(text, TopicVerdict)
    except LLMOutputError as exc:
        logger.warning("topic_llm_output_ignored", error=str(exc))
        return None


_shipped: dict[tuple[str, float], BoundaryModel] = {}
_shipped_lock = threading.Lock()


def shipped_boundary_model() -> BoundaryModel:
    """The shipped weights, read once per process (every meeting's detector shares them; a
    worker hosts many meetings on as many threads); read again when the file changes."""
    path = default_weights_path()
    try:
        key = (str(path), path.stat().st_mtime)
    except OSError:
        return BoundaryModel.load(path)  # raises the ModelLoadError naming the rebuild command
    with _shipped_lock:
        if key not in _shipped:
            _shipped.clear()
            _shipped[key] = BoundaryModel.load(path)
        return _shipped[key]


def load_boundary_model(path: Path | None = None) -> BoundaryModel | None:
    """The fitted boundary model, or None after logging why (the detector then falls back)."""
    try:
        return shipped_boundary_model() if path is None else BoundaryModel.load(path)
    except ModelLoadError as exc:
        logger.error("topic_boundary_model_unavailable", error=str(exc),
                     fallback="cue phrases + semantic shift")
        return None


class TopicDetector:
    def __init__(
        self, config: ContextConfig, embedder: Embedder, llm: LLMClient | None = None,
        *, boundary_model: BoundaryModel | Path | Literal["shipped"] | None = "shipped",
    ) -> None:
        """`boundary_model`: the shipped weights (default), a weights file, a model, or None for
        the semantic-shift detector alone. Weights that cannot be loaded are logged as an error
        naming the command that rebuilds them, and the semantic-shift detector takes over."""
        self._config = config
        self._embedder = embedder
        self._llm = llm
        self._params = ShiftParams(
            window_turns=config.topic_window_turns,
            window_min_turns=min(config.topic_window_min_turns, config.topic_window_turns),
            window_max_terms=config.topic_window_max_terms,
            memory_ratio=config.topic_memory_ratio,
            memory_max_turns=config.topic_memory_max_turns,
            min_segment_turns=config.topic_min_segment_turns,
            min_segment_ratio=config.topic_min_segment_ratio,
            sigma=config.topic_depth_sigma,
            boundary_step=config.topic_boundary_step,
            substance_weight=config.topic_substance_weight,
            smoothing_turns=config.topic_smoothing_turns,
            peak_radius_turns=config.topic_peak_radius_turns,
            cue_weight=config.topic_cue_weight if config.topic_quick_check_enabled else 0.0,
        )
        model = (boundary_model if boundary_model is None or isinstance(boundary_model, BoundaryModel)
                 else load_boundary_model(None if boundary_model == "shipped" else boundary_model))
        self._shift: SemanticShiftDetector | BoundaryDetector = (
            SemanticShiftDetector(self._params) if model is None
            else BoundaryDetector(model, use_cues=config.topic_quick_check_enabled)
        )
        self._recent: deque[Utterance] = deque(maxlen=self.history_turns)
        self._llm_names: dict[int, str] = {}  # seq -> topic name the LLM proposed there

    @property
    def lookahead(self) -> int:
        """Max number of turns between a boundary and the observe() call that reports it."""
        return self._shift.lookahead

    @property
    def uses_model(self) -> bool:
        """Whether the fitted boundary model decides (False: the semantic-shift fallback)."""
        return isinstance(self._shift, BoundaryDetector)

    @property
    def history_turns(self) -> int:
        """How many past utterances `load_state` needs."""
        return max(self._shift.history_turns, self.lookahead + 1, TOPIC_DETECTION_RECENT_TURNS)

    def quick_check(self, text: str) -> bool:
        """A cue phrase announcing a new topic is present (Korean or English)."""
        return has_topic_cue(text)

    def prepare(self, utterances: Sequence[Utterance]) -> None:
        """Embed the utterances in batches ahead of `observe` (fills the embedder's cache)."""
        texts = [spoken_text(u.text) for u in utterances]
        texts = [t for t in texts if t]
        for start in range(0, len(texts), _EMBED_BATCH):
            self._embedder.embed_documents(texts[start : start + _EMBED_BATCH])

    async def observe(
        self, utterance: Utterance, *, current_topic: str, current_summary: str = ""
    ) -> TopicChange | None:
        """Feed the next utterance (seq order); a TopicChange when a boundary is settled."""
        features = await asyncio.to_thread(self._features, utterance)
        self._recent.append(utterance)
        decisions = _as_list(self._shift.push(features))
        if self._llm_names:  # names of turns already decided can no longer be used
            settled = utterance.id - self.lookahead
            self._llm_names = {s: n for s, n in self._llm_names.items() if s >= settled}
        if self._llm is not None and self._llm_due(features):
            await self._ask_llm(current_topic, current_summary)
        if not decisions:
            return None
        return await asyncio.to_thread(self._change, decisions[0])

    async def finish(self) -> list[TopicChange]:
        """The meeting ended: decide the turns still waiting for their lookahead."""
        decisions = _as_list(self._shift.finish())
        return [await asyncio.to_thread(self._change, d) for d in decisions]

    # ------------------------------------------------------------------ features

    def _features(self, utterance: Utterance) -> TurnFeatures:
        text = spoken_text(utterance.text)
        terms = content_terms(text)
        vector = self._embedder.embed_documents([text])[0] if terms else None
        return TurnFeatures(
            seq=utterance.id,
            speaker=utterance.speaker_id,
            terms=terms,
            vector=vector,
            cue=cue_strength(text),
            decision=float(is_decision(text)),
        )

    # ------------------------------------------------------------------ LLM

    def _llm_due(self, features: TurnFeatures) -> bool:
        every = self._config.l1_topic_check_interval_turns
        cued = self._config.topic_quick_check_enabled and features.cue >= 1.0
        return self._shift.turns_seen % every == 0 or cued

    async def _ask_llm(self, current_topic: str, current_summary: str) -> None:
        assert self._llm is not None
        recent = list(self._recent)[-TOPIC_DETECTION_RECENT_TURNS:]
        try:
            answer = await self._llm.complete_json(
                system=TOPIC_DETECTION_SYSTEM_PROMPT,
                user=topic_detection_prompt(
                    recent, current_topic=current_topic, current_summary=current_summary
                ),
                schema=TOPIC_DETECTION_SCHEMA,
                max_tokens=_LLM_MAX_TOKENS,
            )
        except LLMOutputError as exc:
            logger.warning("topic_llm_output_ignored", error=str(exc))
            return
        except LLMError as exc:
            logger.warning("topic_llm_failed", error=str(exc))
            return
        verdict = parse_topic_verdict(answer)
        self.apply_verdict(verdict, [u.id for u in recent])

    def apply_verdict(self, verdict: TopicVerdict | None, seqs: Sequence[int]) -> bool:
        """Add an LLM "changed" verdict about the turns `seqs` to the score; True if taken."""
        if verdict is None or not verdict.topic_changed:
            return False
        if verdict.confidence < self._config.topic_min_confidence or not seqs:
            return False
        # The LLM cannot say which of the turns starts the new topic: each gets the full bonus
        # and the semantic score picks the peak among them.
        strength = self._config.topic_llm_weight * verdict.confidence
        taken = self._shift.add_cue(seqs, strength)
        name = " ".join(verdict.current_topic.split())[:80]
        if taken and name:
            self._llm_names.update({seq: name for seq in seqs})
        return bool(taken)

    # ------------------------------------------------------------------ decisions

    def _change(self, decision: ShiftDecision | BoundaryDecision) -> TopicChange:
        own = self._shift.cue_at(decision.position)[0]
        detector: DetectorKind = "semantic"
        if decision.novelty <= decision.threshold:
            keyword = decision.cue - decision.llm_cue
            detector = "llm" if decision.llm_cue > keyword else "keyword"
        confidence = decision.confidence
        name = self._llm_names.get(decision.seq) or self._keyword_name(decision.seq, own >= 1.0)
        self._llm_names = {s: n for s, n in self._llm_names.items() if s > decision.seq}
        logger.info(
            "topic_change_detected",
            detector=detector,
            boundary_seq=decision.seq,
            confidence=round(confidence, 3),
        )
        if isinstance(decision, BoundaryDecision):
            reason = (f"boundary model logit {decision.score:.2f} (cue phrases {decision.cue:.2f})"
                      f" above its threshold {decision.threshold:.2f}")
        else:
            reason = (f"novelty {decision.novelty:.2f} sd above this meeting's running mean"
                      f" + cue bonus {decision.cue:.2f} (threshold {decision.threshold:.2f})")
        return TopicChange(decision.seq, confidence, detector, name, reason)

    def _keyword_name(self, boundary_seq: int, announced: bool) -> str:
        """Keywords of the first turns of the new topic that were rare before it, in the order
        they were said, e.g. "출시 · 일정". An opening turn with a cue phrase counts most: that
        is where a chair names the next item ("다음 안건으로 넘어가죠. 베타 출시 일정입니다")."""
        after: Counter[str] = Counter()
        before: Counter[str] = Counter()
        first_said: dict[str, int] = {}
        for utterance in self._recent:
            words = keyword_candidates(spoken_text(utterance.text))
            distance = utterance.id - boundary_seq
            if distance < 0:
                before.update(words)
                continue
            weight = 3.0 if distance == 0 and announced else 1.0 / (1.0 + distance / 10)
            for order, word in enumerate(words):
                after[word] += weight
                first_said.setdefault(word, distance * 1000 + order)
        ranked = sorted(after, key=lambda w: (-after[w] / (1 + before[w]), first_said[w]))
        return " · ".join(sorted(ranked[:_NAME_KEYWORDS], key=first_said.__getitem__))

    # ------------------------------------------------------------------ state

    def state_dict(self) -> dict[str, Any]:
        return {
            "shift": self._shift.state_dict(),
            "llm_names": [[seq, name] for seq, name in sorted(self._llm_names.items())],
        }

    def load_state(self, state: dict[str, Any], history: Sequence[Utterance]) -> None:
        """Restore from `state_dict()`; `history` = the last `history_turns` utterances."""
        if not state:
            return
        recent = list(history)[-self.history_turns :]
        features = [self._features(u) for u in recent]
        try:
            self._shift.load_state(state["shift"], features)
        except ValueError as exc:  # a state written by an older detector: detection restarts
            logger.warning("topic_detector_state_dropped", error=str(exc))
            return
        self._recent = deque(recent, maxlen=self.history_turns)
        self._llm_names = {int(seq): str(name) for seq, name in state.get("llm_names", [])}
        if len(recent) < min(self._shift.turns_seen, self.history_turns):
            logger.warning(
                "topic_detector_history_short",
                needed=min(self._shift.turns_seen, self.history_turns),
                got=len(recent),
            )


def _as_list(
    decisions: ShiftDecision | BoundaryDecision | list[BoundaryDecision] | list[ShiftDecision] | None,
) -> list[ShiftDecision | BoundaryDecision]:
    if decisions is None:
        return []
    return list(decisions) if isinstance(decisions, list) else [decisions]


async def detect_boundaries(
    detector: TopicDetector, utterances: Sequence[Utterance]
) -> list[TopicChange]:
    """Run a whole meeting through `detector` as the ContextManager does: every utterance in
    seq order, each reported change accepted; at the end the turns still inside the lookahead
    are decided too (the meeting is over). Texts are embedded in batches first."""
    await asyncio.to_thread(detector.prepare, utterances)
    changes: list[TopicChange] = []
    current_topic = ""
    for utterance in utterances:
        change = await detector.observe(utterance, current_topic=current_topic)
        if change is not None:
            changes.append(change)
            current_topic = change.topic_name
    return changes + await detector.finish()
