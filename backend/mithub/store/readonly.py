"""A read-only view of a repository, for looking at a meeting without writing to it.

`mithub meetings show` restores a ContextManager through this view: restoring may re-run the
last few turns through the pipeline, and whatever that would save stays in memory, so
looking at a live meeting never competes with the worker that owns it.
"""

from __future__ import annotations

from collections.abc import Sequence

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState, MeetingRepository


class ReadOnlyRepository:
    def __init__(self, inner: MeetingRepository) -> None:
        self.inner = inner

    async def append_utterances(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        return None

    async def save_l1_update(
        self,
        meeting_id: str,
        *,
        utterance: Utterance | None,
        segments: Sequence[TopicSegment],
        state: ManagerState,
    ) -> None:
        return None

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]:
        return await self.inner.load_state(meeting_id)

    async def get_utterances(
        self,
        meeting_id: str,
        *,
        after_seq: int = 0,
        until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]:
        return await self.inner.get_utterances(
            meeting_id, after_seq=after_seq, until_seq=until_seq, limit=limit
        )

    async def get_last_utterances(
        self,
        meeting_id: str,
        limit: int,
        *,
        until_seq: int | None = None,
        speaker_id: str | None = None,
    ) -> list[Utterance]:
        return await self.inner.get_last_utterances(
            meeting_id, limit, until_seq=until_seq, speaker_id=speaker_id
        )

    async def get_speaker_ids(self, meeting_id: str, *, until_seq: int | None = None) -> list[str]:
        return await self.inner.get_speaker_ids(meeting_id, until_seq=until_seq)

    async def last_seq(self, meeting_id: str) -> int:
        return await self.inner.last_seq(meeting_id)
