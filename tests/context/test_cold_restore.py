"""A meeting that is only read (a finished meeting asked about, a replica) is restored without
rebuilding the topic detector's window (issue 19 item 6): that window costs Korean morphology
and sentence embeddings, and only a new turn needs it. The first turn processed warms it, so a
cold restore that does go on ingesting ends exactly where a warm one does."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mithub.clock import ManualClock
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.context.transcript import DEFAULT_MEETING_START
from mithub.embedders import load_embedder
from mithub.store.memory import InMemoryRepository
from mithub_meetings import sample_lines


class CountingEmbedder:
    """The real embedder, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self.inner = load_embedder("use-multilingual")
        self.model_id, self.dim = self.inner.model_id, self.inner.dim
        self.texts = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed_queries(texts)


async def _stored_meeting(lines):
    repository = InMemoryRepository()
    clock = ManualClock(DEFAULT_MEETING_START)
    manager = create_context_manager("m1", repository, clock=clock)
    for line in lines:
        clock.set(line.absolute_timestamp)
        await manager.add_utterance(line)
    return repository, manager, clock


async def test_a_read_only_restore_embeds_nothing_and_reports_the_same():
    repository, live, _clock = await _stored_meeting(sample_lines()[:70])
    await live.finalize()
    embedder = CountingEmbedder()
    cold = create_context_manager("m1", repository, embedder=embedder)

    assert await cold.restore_from_db(warm_detector=False) == 70

    assert embedder.texts == 0
    assert meeting_report(cold) == meeting_report(live)
    assert cold.state() == live.state()  # asked for, the detector's state is the stored one


async def test_a_cold_restore_that_goes_on_ingesting_ends_like_a_warm_one():
    lines = sample_lines()[:90]
    repository, _first, clock = await _stored_meeting(lines[:50])
    warm_repository, _, warm_clock = await _stored_meeting(lines[:50])
    cold = create_context_manager("m1", repository, clock=clock)
    warm = create_context_manager("m1", warm_repository, clock=warm_clock)
    await cold.restore_from_db(warm_detector=False)
    await warm.restore_from_db()

    for manager, manager_clock in ((cold, clock), (warm, warm_clock)):
        for line in lines[50:]:
            manager_clock.set(line.absolute_timestamp)
            await manager.add_utterance(line)
        await manager.finalize()

    assert meeting_report(cold) == meeting_report(warm)
    assert cold.state() == warm.state()
