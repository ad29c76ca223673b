"""The store's embedding cache: exact vectors back, and a restore that embeds nothing."""

from __future__ import annotations

import numpy as np
import pytest
from mithub.clock import ManualClock
from mithub.config import ContextConfig, DatabaseConfig
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.context.transcript import DEFAULT_MEETING_START
from mithub.embedders import load_embedder
from mithub.embedders.base import CachedEmbedder
from mithub.store.embedding_cache import PRELOAD_WINDOW, MeetingEmbeddings
from mithub.store.session import attach_meeting
from mithub_meetings import sample_lines

TEXTS = ["예산은 2억으로 확정했습니다.", "채용 공고는 이번 주에 올립니다.", "Let's move on."]


@pytest.fixture(scope="module")
def model():
    return load_embedder(ContextConfig().embedding_model).inner


async def test_vectors_come_back_bit_for_bit(repository, model):
    first = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    computed = first.embed_documents(TEXTS)
    assert await first.flush(seq=7) == 3 and await first.flush(seq=8) == 0

    second = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    assert await second.preload(last_seq=7) == 3
    assert np.array_equal(second.embed_documents(TEXTS), computed)
    assert second.computed == 0
    second.embed_queries(TEXTS[:1])  # queries are keyed apart from documents
    assert second.computed == 1


async def test_only_recent_vectors_are_loaded(repository, model):
    cache = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    cache.embed_documents(TEXTS[:1])
    await cache.flush(seq=10)
    cache.embed_documents(TEXTS[1:])
    await cache.flush(seq=10 + PRELOAD_WINDOW + 5)
    fresh = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    assert await fresh.preload(last_seq=10 + PRELOAD_WINDOW + 5) == 2
    other = MeetingEmbeddings(CachedEmbedder(model), repository, "m2")
    assert await other.preload(last_seq=1000) == 0


@pytest.mark.slow
async def test_a_restore_with_the_cache_embeds_nothing_and_matches(database_url, model):
    meeting = sample_lines()[:110]
    clock = ManualClock(DEFAULT_MEETING_START)
    async with attach_meeting(database_url, "m1", config=DatabaseConfig()) as attached:
        embedder = await attached.meeting_embedder(CachedEmbedder(model))
        live = create_context_manager("m1", attached.repository, embedder=embedder, clock=clock)
        for line in meeting:
            clock.set(line.absolute_timestamp)
            await live.add_utterance(line)

    async with attach_meeting(database_url, "m1", config=DatabaseConfig()) as attached:
        embedder = await attached.meeting_embedder(CachedEmbedder(model))
        restored = create_context_manager(
            "m1", attached.repository, embedder=embedder, clock=ManualClock(clock())
        )
        assert await restored.restore_from_db() == 110
    assert embedder.preloaded >= 60 and embedder.computed == 0
    assert meeting_report(restored) == meeting_report(live)
    assert restored.get_l0_utterances() == live.get_l0_utterances()
    assert restored.state() == live.state()


async def test_a_text_said_again_moves_to_the_recent_window(repository, model):
    cache = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    cache.embed_documents(TEXTS[:1])
    await cache.flush(seq=10)
    again = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    again.embed_documents(TEXTS[:1])  # said again much later, in another process
    await again.flush(seq=10 + PRELOAD_WINDOW + 50)
    fresh = MeetingEmbeddings(CachedEmbedder(model), repository, "m1")
    assert await fresh.preload(last_seq=10 + PRELOAD_WINDOW + 50) == 1
