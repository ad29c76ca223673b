"""Observability: Prometheus metrics (`metrics`, recorded through `record`), their HTTP
exposition (`exposition`) and structured logs (`logs`)."""

from mithub.observability.exposition import METRICS_CONTENT_TYPE, render_metrics, start_metrics_server
from mithub.observability.logs import bind_log_context, configure_logging
from mithub.observability.record import (
    MeetingGauges,
    participant_joined,
    participant_left,
    record_agent_call,
    record_change_check,
    record_context_built,
    record_decision_change,
    record_delivery_attempt,
    record_ingest,
    record_l1_update,
    record_llm_request,
    record_meeting_error,
    record_pending_deliveries,
    record_stt,
    record_stt_error,
    record_topic_change,
    retrieval_timer,
    track_meeting,
)

__all__ = [
    "METRICS_CONTENT_TYPE", "MeetingGauges", "bind_log_context", "configure_logging",
    "participant_joined", "participant_left", "record_agent_call", "record_change_check",
    "record_context_built", "record_decision_change", "record_delivery_attempt", "record_pending_deliveries",
    "record_ingest", "record_l1_update", "record_llm_request", "record_meeting_error", "record_stt",
    "record_stt_error",
    "record_topic_change", "render_metrics", "retrieval_timer", "start_metrics_server",
    "track_meeting",
]
