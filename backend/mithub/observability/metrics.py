"""Every Prometheus metric of MitHub, in one registry (the default one).

Names are `mithub_*` with the unit in the name. Label values come from fixed vocabularies
(call type, channel, mode, detector, provider...), never from meeting ids or text, so the
number of series stays bounded however many meetings a process serves. The seed 002 §8.1
names map as: l0_buffer_size -> mithub_l0_buffer_size_utterances, l0_avg_utterance_length
-> mithub_l0_avg_utterance_length_chars, l1_update_count -> mithub_l1_updates_total,
l1_topic_count -> mithub_l1_topics, l1_summary_latency -> mithub_l1_summary_latency_seconds,
agent_call_context_tokens -> mithub_agent_call_context_tokens, agent_call_type_count ->
mithub_agent_calls_total.

Only this package imports prometheus_client; instrumented code calls the `record_*`
helpers in `mithub.observability.record`.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

# `*_created` timestamps double the series count and no panel uses them.
disable_created_metrics()

# Latency buckets in seconds: sub-millisecond in-memory steps up to a slow CPU LLM answer.
FAST = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
SLOW = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0)
TOKENS = (50, 100, 250, 500, 1000, 1500, 2000, 3000, 4000, 6000, 8000, 16000, 32000)

# ---------------------------------------------------------------- ingest and L0
UTTERANCES_INGESTED = Counter(
    "mithub_utterances_ingested_total", "Utterances stored and processed by a ContextManager")
INGEST_LATENCY = Histogram(
    "mithub_ingest_latency_seconds",
    "add_utterance time: durable write, topic detection and any L1 update it triggers",
    buckets=FAST + (5.0, 10.0, 30.0))
L0_BUFFER_SIZE = Gauge(
    "mithub_l0_buffer_size_utterances", "Turns in the L0 windows of the live meetings of this process")
L0_AVG_UTTERANCE_LENGTH = Gauge(
    "mithub_l0_avg_utterance_length_chars", "Mean length of the turns in the L0 windows")

# ---------------------------------------------------------------- L1 and topics
L1_UPDATES = Counter(
    "mithub_l1_updates_total", "L1 summary updates, by trigger", ["reason"])
L1_TOPICS = Gauge(
    "mithub_l1_topics", "Topic segments of the live meetings of this process")
L1_SUMMARY_LATENCY = Histogram(
    "mithub_l1_summary_latency_seconds", "Time to summarize turns into a topic segment",
    ["mode"], buckets=SLOW)
L1_UPDATE_LAG = Gauge(
    "mithub_l1_update_lag_utterances",
    "Turns ingested but not yet summarized into L1, over the live meetings of this process")
TOPIC_CHANGES = Counter(
    "mithub_topic_changes_total", "Topic changes, by the detector that reported them", ["detector"])
DECISION_CHANGES = Counter(
    "mithub_decision_changes_total",
    "Lines that changed or contradicted an active decision of the series (explicit/implicit)", ["kind"])
CHANGE_CHECK_LATENCY = Histogram(
    "mithub_decision_change_check_seconds", "Change check of one stored utterance against the ledger",
    buckets=FAST)

# ---------------------------------------------------------------- agent calls
AGENT_CALLS = Counter(
    "mithub_agent_calls_total", "Agent calls answered, by call type", ["call_type"])
AGENT_CALL_LATENCY = Histogram(
    "mithub_agent_call_latency_seconds", "End-to-end agent call time, by call type",
    ["call_type"], buckets=SLOW)
AGENT_ANSWERS = Counter(
    "mithub_agent_answers_total", "Answers by the mode that produced them", ["mode"])
CONTEXT_TOKENS = Histogram(
    "mithub_agent_call_context_tokens", "Tokens of the context injected into an agent call",
    ["call_type"], buckets=TOKENS)
CONTEXT_BUILD_LATENCY = Histogram(
    "mithub_context_build_latency_seconds", "ContextBuilder.build_context time, by call type",
    ["call_type"], buckets=FAST + (5.0,))

# ---------------------------------------------------------------- LLM and retrieval
LLM_LATENCY = Histogram(
    "mithub_llm_request_latency_seconds", "LLM chat completion time, retries included",
    ["outcome"], buckets=SLOW)
LLM_TOKENS = Counter(
    "mithub_llm_tokens_total",
    "LLM tokens by direction; source=usage when the server reported them, else estimate",
    ["direction", "source"])
RETRIEVAL_LATENCY = Histogram(
    "mithub_retrieval_latency_seconds", "Hybrid retrieval time per channel (fused: whole search)",
    ["channel"], buckets=FAST + (5.0,))

# ---------------------------------------------------------------- store (see mithub.store)
DB_WRITE_SECONDS = Histogram(
    "mithub_db_write_seconds", "Write-through transaction time (commit included)", ["operation"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
DB_WRITE_QUEUE_DEPTH = Gauge(
    "mithub_db_write_queue_depth", "Writes accepted during a database outage, not yet stored"
)
DB_WRITE_RETRIES = Counter("mithub_db_write_retries_total", "Failed attempts to flush queued writes")
DB_OUTAGES = Counter("mithub_db_outages_total", "Times the database became unreachable for writes")
DB_BACKPRESSURE = Counter(
    "mithub_db_backpressure_total", "Utterances refused because the outage queue was full"
)

# ---------------------------------------------------------------- meetings and speech
ACTIVE_MEETINGS = Gauge(
    "mithub_active_meetings", "Meetings with a live ContextManager in this process")
ACTIVE_PARTICIPANTS = Gauge(
    "mithub_active_participants", "Participants whose audio the worker is transcribing")
STT_REAL_TIME_FACTOR = Histogram(
    "mithub_stt_real_time_factor", "Speech-to-text processing time / audio duration, by provider",
    ["provider"], buckets=(0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0))
STT_AUDIO_SECONDS = Counter(
    "mithub_stt_audio_seconds_total", "Audio transcribed, by provider", ["provider"])
STT_ERRORS = Counter(
    "mithub_stt_errors_total", "Speech-to-text failures, by provider", ["provider"])
MEETING_ERRORS = Counter(
    "mithub_meeting_errors_total",
    "Failures inside one live meeting that the worker contained (that meeting degraded, the others "
    "untouched), by stage: audio, ingest, decision_check, call, caption, chat, start, warm, stalled",
    ["stage"])

# ---------------------------------------------------------------- minutes delivery (issue 20)
MINUTES_DELIVERY_ATTEMPTS = Counter(
    "mithub_minutes_delivery_attempts_total",
    "Webhook POSTs of a meeting's minutes, by outcome: delivered, retry (to be tried again) or "
    "failed (given up)", ["outcome"])
MINUTES_DELIVERIES_PENDING = Gauge(
    "mithub_minutes_deliveries_pending",
    "Minutes deliveries stored and not yet delivered nor given up, as last counted by this process")
