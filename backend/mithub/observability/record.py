"""The `record_*` helpers instrumented code calls: one line at each measured place, no
prometheus_client import outside this package, and every label value checked against its
fixed vocabulary (an unknown value is counted as "other" rather than growing a series)."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from time import perf_counter

from mithub.observability import metrics as m

CALL_TYPES = frozenset({"IMMEDIATE_RESPONSE", "SUMMARY", "ACTION_EXTRACTION", "SEARCH"})
ANSWER_MODES = frozenset({"llm", "cache", "template", "retrieval_only"})
DETECTORS = frozenset({"keyword", "semantic", "llm"})
L1_REASONS = frozenset({"topic_change", "turn_limit", "time_limit", "token_limit", "final"})
SUMMARY_MODES = frozenset({"llm", "extractive"})
CHANNELS = frozenset({"dense", "sparse", "trigraph", "fused"})
LLM_OUTCOMES = frozenset({"ok", "error"})
STT_PROVIDERS = frozenset({"faster_whisper", "clova", "deepgram", "openai"})
MEETING_STAGES = frozenset({"audio", "ingest", "decision_check", "call", "caption", "chat", "start",
                            "warm", "stalled"})


def _bounded(value: str, vocabulary: frozenset[str]) -> str:
    return value if value in vocabulary else "other"


# ---------------------------------------------------------------- ingest and L1

def record_ingest(utterances: int, seconds: float) -> None:
    """One `add_utterance` call that stored `utterances` pieces (an oversize turn is split)."""
    m.UTTERANCES_INGESTED.inc(utterances)
    m.INGEST_LATENCY.observe(seconds)


def record_l1_update(reason: str, summary_mode: str, seconds: float) -> None:
    m.L1_UPDATES.labels(_bounded(reason, L1_REASONS)).inc()
    m.L1_SUMMARY_LATENCY.labels(_bounded(summary_mode, SUMMARY_MODES)).observe(seconds)


def record_topic_change(detector: str) -> None:
    m.TOPIC_CHANGES.labels(_bounded(detector, DETECTORS)).inc()


DECISION_CHANGE_KINDS = frozenset({"explicit", "implicit"})


def record_decision_change(kind: str) -> None:
    m.DECISION_CHANGES.labels(_bounded(kind, DECISION_CHANGE_KINDS)).inc()


def record_change_check(seconds: float) -> None:
    m.CHANGE_CHECK_LATENCY.observe(seconds)


# ---------------------------------------------------------------- agent calls

def record_context_built(call_type: str, seconds: float, tokens: int) -> None:
    label = _bounded(call_type, CALL_TYPES)
    m.CONTEXT_BUILD_LATENCY.labels(label).observe(seconds)
    m.CONTEXT_TOKENS.labels(label).observe(tokens)


def record_agent_call(call_type: str, mode: str, seconds: float) -> None:
    label = _bounded(call_type, CALL_TYPES)
    m.AGENT_CALLS.labels(label).inc()
    m.AGENT_CALL_LATENCY.labels(label).observe(seconds)
    m.AGENT_ANSWERS.labels(_bounded(mode, ANSWER_MODES)).inc()


def record_llm_request(
    *, ok: bool, seconds: float, prompt_tokens: int = 0, completion_tokens: int = 0,
    from_usage: bool = False,
) -> None:
    """One chat completion (retries included). Token counts come from the server's `usage`
    field when it sent one (`from_usage`), else from the caller's estimate."""
    m.LLM_LATENCY.labels("ok" if ok else "error").observe(seconds)
    source = "usage" if from_usage else "estimate"
    if prompt_tokens:
        m.LLM_TOKENS.labels("prompt", source).inc(prompt_tokens)
    if completion_tokens:
        m.LLM_TOKENS.labels("completion", source).inc(completion_tokens)


@contextmanager
def retrieval_timer(channel: str) -> Iterator[None]:
    """Times one retrieval channel (or `fused`, the whole search) while the block runs."""
    started = perf_counter()
    try:
        yield
    finally:
        m.RETRIEVAL_LATENCY.labels(_bounded(channel, CHANNELS)).observe(perf_counter() - started)


# ---------------------------------------------------------------- speech (LiveKit worker)

def record_stt(provider: str, *, audio_seconds: float, processing_seconds: float) -> None:
    """One transcribed segment: its real-time factor (processing / audio) by provider."""
    if audio_seconds <= 0:
        return
    label = _bounded(provider, STT_PROVIDERS)
    m.STT_REAL_TIME_FACTOR.labels(label).observe(processing_seconds / audio_seconds)
    m.STT_AUDIO_SECONDS.labels(label).inc(audio_seconds)


def record_stt_error(provider: str) -> None:
    m.STT_ERRORS.labels(_bounded(provider, STT_PROVIDERS)).inc()


def record_meeting_error(stage: str) -> None:
    """One failure contained inside a live meeting (`MEETING_STAGES`)."""
    m.MEETING_ERRORS.labels(_bounded(stage, MEETING_STAGES)).inc()


def participant_joined() -> None:
    m.ACTIVE_PARTICIPANTS.inc()


def participant_left() -> None:
    m.ACTIVE_PARTICIPANTS.dec()


# ---------------------------------------------------------------- live meetings

@dataclass
class _Share:
    l0_turns: int = 0
    l0_chars: int = 0
    topics: int = 0
    unsummarized: int = 0


class _LiveMeetings:
    """Process-wide sums of every live meeting's L0/L1 figures. A meeting's share is removed
    when its manager is garbage-collected, so a finished meeting stops counting without an
    explicit close (the manager has no close method and the worker may just drop it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._shares: dict[int, _Share] = {}
        self._total = _Share()

    def add(self, key: int) -> None:
        with self._lock:
            self._shares[key] = _Share()
            m.ACTIVE_MEETINGS.set(len(self._shares))

    def update(self, key: int, share: _Share) -> None:
        with self._lock:
            if key not in self._shares:
                return
            self._replace(self._shares[key], share)
            self._shares[key] = share

    def remove(self, key: int) -> None:
        with self._lock:
            share = self._shares.pop(key, None)
            if share is not None:
                self._replace(share, _Share())
            m.ACTIVE_MEETINGS.set(len(self._shares))

    def _replace(self, old: _Share, new: _Share) -> None:
        total = self._total
        total.l0_turns += new.l0_turns - old.l0_turns
        total.l0_chars += new.l0_chars - old.l0_chars
        total.topics += new.topics - old.topics
        total.unsummarized += new.unsummarized - old.unsummarized
        m.L0_BUFFER_SIZE.set(total.l0_turns)
        m.L0_AVG_UTTERANCE_LENGTH.set(total.l0_chars / total.l0_turns if total.l0_turns else 0)
        m.L1_TOPICS.set(total.topics)
        m.L1_UPDATE_LAG.set(total.unsummarized)


_LIVE = _LiveMeetings()


class MeetingGauges:
    """One meeting's contribution to the active-meeting and L0/L1 gauges."""

    def __init__(self, owner: object) -> None:
        self._key = id(self)
        _LIVE.add(self._key)
        weakref.finalize(owner, _LIVE.remove, self._key)

    def update(self, l0_texts: Iterable[str], *, topics: int, unsummarized: int) -> None:
        texts = list(l0_texts)
        _LIVE.update(self._key, _Share(len(texts), sum(len(t) for t in texts), topics, unsummarized))


def track_meeting(owner: object) -> MeetingGauges:
    """Count `owner` (a ContextManager) as a live meeting until it is garbage-collected."""
    return MeetingGauges(owner)


def _initialize_series() -> None:
    """Create every labelled series at zero, so a dashboard shows 0 rather than "no data"
    before the first event and `rate()` sees the first increment."""
    for call_type in CALL_TYPES:
        m.AGENT_CALLS.labels(call_type)
        m.AGENT_CALL_LATENCY.labels(call_type)
        m.CONTEXT_TOKENS.labels(call_type)
        m.CONTEXT_BUILD_LATENCY.labels(call_type)
    for mode in ANSWER_MODES:
        m.AGENT_ANSWERS.labels(mode)
    for detector in DETECTORS:
        m.TOPIC_CHANGES.labels(detector)
    for kind in DECISION_CHANGE_KINDS:
        m.DECISION_CHANGES.labels(kind)
    for reason in L1_REASONS:
        m.L1_UPDATES.labels(reason)
    for summary_mode in SUMMARY_MODES:
        m.L1_SUMMARY_LATENCY.labels(summary_mode)
    for channel in CHANNELS:
        m.RETRIEVAL_LATENCY.labels(channel)
    for outcome in LLM_OUTCOMES:
        m.LLM_LATENCY.labels(outcome)
    for provider in STT_PROVIDERS:
        m.STT_REAL_TIME_FACTOR.labels(provider)
        m.STT_AUDIO_SECONDS.labels(provider)
        m.STT_ERRORS.labels(provider)


_initialize_series()


# ---------------------------------------------------------------- minutes delivery (issue 20)

DELIVERY_OUTCOMES = frozenset({"delivered", "retry", "failed"})


def record_delivery_attempt(outcome: str) -> None:
    m.MINUTES_DELIVERY_ATTEMPTS.labels(_bounded(outcome, DELIVERY_OUTCOMES)).inc()


def record_pending_deliveries(count: int) -> None:
    m.MINUTES_DELIVERIES_PENDING.set(count)


for _outcome in DELIVERY_OUTCOMES:  # at zero before the first attempt (see _initialize_series)
    m.MINUTES_DELIVERY_ATTEMPTS.labels(_outcome)
