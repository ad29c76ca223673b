"""Rows <-> models. Every field of Utterance, TopicSegment and ManagerState has a column; the
mapping is explicit so a new model field fails a test instead of silently not persisting."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState

UTTERANCE_FIELDS = {
    "id": "seq",
    "speaker_id": "speaker_id",
    "speaker_name": "speaker_name",
    "text": "text",
    "start_ms": "start_ms",
    "end_ms": "end_ms",
    "confidence": "confidence",
    "absolute_timestamp": "absolute_timestamp",
    "topic": "topic",
    "topic_id": "topic_id",
}
SEGMENT_FIELDS = {
    "id": "segment_id",
    "name": "name",
    "summary": "summary",
    "start_utterance_id": "start_seq",
    "end_utterance_id": "end_seq",
    "key_points": "key_points",
    "keywords": "keywords",
    "key_decisions": "key_decisions",
    "pending_items": "pending_items",
    "action_items": "action_items",
    "participants": "participants",
    "summary_mode": "summary_mode",
    "version": "version",
    "updated_at": "updated_at",
}
# ManagerState.meeting_id is the row key; every other field is a column of the same name.
STATE_FIELDS = {name: name for name in ManagerState.model_fields if name != "meeting_id"}


def _columns(model: Any, fields: dict[str, str]) -> dict[str, Any]:
    return {column: getattr(model, attribute) for attribute, column in fields.items()}


def _attributes(row: Row[Any], fields: dict[str, str]) -> dict[str, Any]:
    mapping = row._mapping
    return {attribute: mapping[column] for attribute, column in fields.items()}


def utterance_values(meeting_id: str, utterance: Utterance, stored_at: datetime) -> dict[str, Any]:
    return {
        "meeting_id": meeting_id,
        "stored_at": stored_at,
        **_columns(utterance, UTTERANCE_FIELDS),
    }


def utterance_from_row(row: Row[Any]) -> Utterance:
    return Utterance.model_validate(_attributes(row, UTTERANCE_FIELDS))


def segment_values(meeting_id: str, segment: TopicSegment) -> dict[str, Any]:
    values = _columns(segment, SEGMENT_FIELDS)
    for key in (
        "key_points",
        "keywords",
        "key_decisions",
        "pending_items",
        "action_items",
        "participants",
    ):
        values[key] = list(values[key])
    return {"meeting_id": meeting_id, **values}


def segment_from_row(row: Row[Any]) -> TopicSegment:
    return TopicSegment.model_validate(_attributes(row, SEGMENT_FIELDS))


def state_values(state: ManagerState, saved_at: datetime) -> dict[str, Any]:
    # JSON columns get plain JSON types (a round trip through json), never Python objects.
    dumped = state.model_dump(mode="json")
    values = {column: getattr(state, attribute) for attribute, column in STATE_FIELDS.items()}
    values["detector_state"] = dumped["detector_state"]
    values["speaker_state"] = dumped["speaker_state"]
    return {"meeting_id": state.meeting_id, "saved_at": saved_at, **values}


def state_from_row(row: Row[Any]) -> ManagerState:
    return ManagerState.model_validate(
        {"meeting_id": row._mapping["meeting_id"], **_attributes(row, STATE_FIELDS)}
    )
