"""What the memory reads from the store (the `MemorySource` port): finished meetings, their
turns and topics, and the vectors the live meeting already computed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.store.records import MeetingInfo


class MemorySource(Protocol):
    async def finished_meetings(self, series_id: str | None = None) -> Sequence[MeetingInfo]: ...

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]: ...

    async def get_utterances(
        self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]: ...

    async def stored_vectors(self, meeting_id: str, model_id: str) -> dict[bytes, np.ndarray]:
        """Document vectors saved for the meeting's texts, by `text_key("d", text)`."""
        ...
