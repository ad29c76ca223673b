"""The storage port of the ContextManager and the state it persists.

The database is the source of truth; the manager's memory is a cache rebuilt from it
(seed 002 §3.2, §9.4). Implementations: `mithub.store.memory.InMemoryRepository` (tests,
embedded demo) and the SQLAlchemy repository (SQLite or PostgreSQL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from pydantic import AwareDatetime, BaseModel, Field

from mithub.context.models import TopicSegment, Utterance

STATE_FORMAT_VERSION = 1


class ManagerState(BaseModel):
    """Everything besides stored utterances and segments that a restored manager needs to
    behave exactly like one that never stopped."""

    format_version: int = STATE_FORMAT_VERSION
    meeting_id: str
    last_seq: int = Field(ge=0, description="last utterance this state already accounts for")
    current_topic: str
    current_topic_id: str
    topic_index: int = Field(ge=1)
    topic_start_seq: int = Field(ge=1)
    topic_buffer_start_seq: int = Field(ge=1)
    last_summarized_seq: int = Field(0, ge=0)
    turn_count_since_l1: int = 0
    last_l1_update: AwareDatetime
    l1_update_count: int = 0
    detector_state: dict[str, Any] = Field(default_factory=dict)
    speaker_state: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class MeetingRepository(Protocol):
    """Durable storage for one or many meetings. Writes are idempotent on (meeting_id, seq)."""

    async def append_utterances(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        """Durably store utterances; already stored (meeting_id, seq) pairs are left as they are."""
        ...

    async def save_l1_update(
        self,
        meeting_id: str,
        *,
        utterance: Utterance | None,
        segments: Sequence[TopicSegment],
        state: ManagerState,
    ) -> None:
        """In one transaction: the triggering utterance (idempotent), the created or updated
        segments, and the manager state."""
        ...

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]:
        """The last saved state (None before the first L1 update) and all segments in order."""
        ...

    async def get_utterances(
        self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]:
        """Utterances with after_seq < seq <= until_seq in seq order, at most `limit`."""
        ...

    async def get_last_utterances(
        self, meeting_id: str, limit: int, *, until_seq: int | None = None,
        speaker_id: str | None = None,
    ) -> list[Utterance]:
        """The last `limit` utterances (of one speaker, if given) up to until_seq, in seq order."""
        ...

    async def get_speaker_ids(self, meeting_id: str, *, until_seq: int | None = None) -> list[str]:
        ...

    async def last_seq(self, meeting_id: str) -> int:
        """Highest stored seq, 0 for a meeting with no utterances."""
        ...
