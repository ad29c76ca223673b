"""A call on a finished meeting neither embeds nor analyses its turns again: the memory's
cache file holds each turn's search tokens beside its vector, and the meeting's own
transcript index is filled from what the memory holds (issue 19 item 6: `mithub ask` on a
finished meeting paid about 2 s of Korean analysis and embedding for turns analysed before)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from mithub.agent import MeetingSession
from mithub.agent.runtime import memory_builder
from mithub.config import ContextConfig
from mithub.context.transcript_index import turn_tokens
from mithub.embedders import load_embedder
from mithub.memory.cache import load_meeting
from mithub_meetings import sample_lines
from mithub.config import MemoryConfig
from mithub.context.factory import create_context_manager
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository

WEEK_ONE = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)

QUESTION = "Q3 클라우드 예산은 얼마로 확정했나요?"


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed as documents."""

    def __init__(self, inner) -> None:
        self.inner, self.documents = inner, 0
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed_documents(self, texts):
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts):
        return self.inner.embed_queries(texts)


@pytest.fixture
async def store(tmp_path):
    database = await open_database(f"sqlite+aiosqlite:///{tmp_path / 'prepared.db'}")
    yield SqlRepository(database)
    await database.dispose()


@pytest.fixture
def memory_config(tmp_path) -> MemoryConfig:
    return MemoryConfig(cache_dir=str(tmp_path / "memory"), sync_seconds=0)


async def _finished(store):
    await store.ensure_meeting("week-1", title="week one", series_id="planning", started_at=WEEK_ONE)
    manager = create_context_manager("week-1", store, embedder=load_embedder())
    for u in sample_lines()[:40]:
        await manager.add_utterance(u.model_copy(update={
            "absolute_timestamp": WEEK_ONE + timedelta(milliseconds=u.start_ms)}))
    await manager.finalize()
    await store.end_meeting("week-1")
    return await store.get_utterances("week-1")


async def test_the_cache_file_holds_each_turns_search_tokens(store, memory_config):
    turns = await _finished(store)
    builder = memory_builder(ContextConfig(), load_embedder(), store, memory=memory_config)
    await builder.past.sync(force=True)
    info = await store.meeting_info("week-1")
    cached = load_meeting(Path(memory_config.cache_dir), load_embedder().model_id, info)
    assert cached is not None
    assert cached.tokens == [turn_tokens(u) for u in turns]


async def test_a_finished_meetings_transcript_comes_indexed_from_the_memory(store, memory_config, monkeypatch):
    turns = await _finished(store)
    counting = CountingEmbedder(load_embedder())
    builder = memory_builder(ContextConfig(), counting, store, memory=memory_config)
    await builder.past.sync(force=True)
    # What a session computes itself, for comparison.
    plain = MeetingSession(None, store, builder.new_transcript_index())  # type: ignore[arg-type]
    plain.manager = type("M", (), {"meeting_id": "week-1"})()
    await plain.sync_transcript()

    def no_analysis(_turn):
        raise AssertionError("a turn of the finished meeting was analysed again")

    monkeypatch.setattr("mithub.context.transcript_index.turn_tokens", no_analysis)
    before = counting.documents
    session = MeetingSession(None, store, builder.new_transcript_index(),  # type: ignore[arg-type]
                             prepared=builder.past.prepared)
    session.manager = type("M", (), {"meeting_id": "week-1"})()
    assert await session.sync_transcript() == len(turns)
    assert counting.documents == before  # nothing embedded
    assert session.transcript.seqs == plain.transcript.seqs
    # The stored vectors are the ones embedded live (to float rounding), the tokens the same:
    # the search finds the same turns.
    np.testing.assert_allclose(session.transcript.vector_rows(0, len(turns)),
                               plain.transcript.vector_rows(0, len(turns)), atol=1e-3)
    found, expected = session.transcript.relevance(QUESTION), plain.transcript.relevance(QUESTION)
    assert set(np.argsort(-found)[:5]) == set(np.argsort(-expected)[:5])


async def test_another_model_s_vectors_are_not_taken(store, memory_config):
    await _finished(store)
    builder = memory_builder(ContextConfig(), load_embedder(), store, memory=memory_config)
    await builder.past.sync(force=True)
    assert builder.past.prepared("week-1", "some-other-model") is None
    assert builder.past.prepared("no-such-meeting", load_embedder().model_id) is None
    held = builder.past.prepared("week-1", load_embedder().model_id)
    assert held is not None and len(held.vectors) == len(held.utterances) == len(held.tokens)

