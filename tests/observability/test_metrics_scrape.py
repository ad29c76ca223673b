"""Scrape /metrics after real work and check every metric is exposed and moved: a sample
meeting replayed into SQLite (with a database lock long enough to be an outage), the four
call types through the agent pipeline (LLM, cache and LLM-free modes), a hybrid search, and
the LiveKit worker's bot transcribing espeak-ng speech (one participant's stream broken)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from mithub.agent import AgentPipeline, MeetingSession
from mithub.clock import ManualClock
from mithub.config import ContextConfig, DatabaseConfig, LLMConfig, RetrievalConfig
from mithub.context.builder import ContextBuilder
from mithub.context.factory import create_context_manager
from mithub.context.models import AGENT_CALL_TYPES
from mithub.context.transcript import read_transcript
from mithub.embedders import load_embedder
from mithub.jsonl import LineErrors
from mithub.llm.openai_compat import OpenAICompatibleClient
from mithub.observability import start_metrics_server
from mithub.retrieval.index import HybridIndex
from mithub.retrieval.loaders import load_corpus
from mithub.store.open import meeting_repository, open_database

pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")

ROOT = Path(__file__).resolve().parents[2]
MEETING = ROOT / "examples" / "meetings" / "en_sprint_review.jsonl"
CORPUS = ROOT / "tests" / "retrieval" / "data" / "corpus.jsonl"

# Every metric of the README's "Metrics" section.
METRICS = {
    "mithub_utterances_ingested": "counter",
    "mithub_ingest_latency_seconds": "histogram",
    "mithub_l0_buffer_size_utterances": "gauge",
    "mithub_l0_avg_utterance_length_chars": "gauge",
    "mithub_l1_updates": "counter",
    "mithub_l1_topics": "gauge",
    "mithub_l1_summary_latency_seconds": "histogram",
    "mithub_l1_update_lag_utterances": "gauge",
    "mithub_topic_changes": "counter",
    "mithub_decision_changes": "counter",
    "mithub_decision_change_check_seconds": "histogram",
    "mithub_agent_calls": "counter",
    "mithub_agent_call_latency_seconds": "histogram",
    "mithub_agent_answers": "counter",
    "mithub_agent_call_context_tokens": "histogram",
    "mithub_context_build_latency_seconds": "histogram",
    "mithub_llm_request_latency_seconds": "histogram",
    "mithub_llm_tokens": "counter",
    "mithub_retrieval_latency_seconds": "histogram",
    "mithub_db_write_seconds": "histogram",
    "mithub_db_write_queue_depth": "gauge",
    "mithub_db_write_retries": "counter",
    "mithub_db_outages": "counter",
    "mithub_db_backpressure": "counter",
    "mithub_active_meetings": "gauge",
    "mithub_active_participants": "gauge",
    "mithub_stt_real_time_factor": "histogram",
    "mithub_stt_audio_seconds": "counter",
    "mithub_stt_errors": "counter",
    "mithub_meeting_errors": "counter",
    "mithub_minutes_delivery_attempts": "counter",
    "mithub_minutes_deliveries_pending": "gauge",
}
# Back-pressure needs a full outage queue (10k utterances), covered by tests/store/test_outage.py;
# the minutes' webhook deliveries need a webhook receiver, in tests/minutes/test_delivery.py; a
# meeting's contained failures need running meetings, in tests/worker/test_many_meetings.py.
NOT_MOVED_HERE = {"mithub_db_backpressure", "mithub_minutes_delivery_attempts", "mithub_minutes_deliveries_pending",
                  "mithub_meeting_errors"}


def _llm_transport() -> httpx.MockTransport:
    """An OpenAI-compatible server's answer, with its `usage` token counts."""
    def handler(request: httpx.Request) -> httpx.Response:
        content = json.dumps({"answer": "The release moves to Friday.", "citations": []})
        return httpx.Response(200, json={
            "choices": [{"message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 321, "completion_tokens": 12, "total_tokens": 333},
        })
    return httpx.MockTransport(handler)


def scrape(port: int) -> dict[str, tuple[str, float]]:
    """{family: (type, movement)} from /metrics over HTTP; movement sums the counter values,
    histogram counts or gauge values of every labelled series."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text
    found = {}
    for family in text_string_to_metric_families(text):
        if not family.name.startswith("mithub_"):
            continue
        wanted = {"counter": "_total", "histogram": "_count"}.get(family.type, "")
        total = sum(s.value for s in family.samples if s.name == family.name + wanted)
        found[family.name] = (family.type, total)
    return found


def _hold_write_lock(path: Path) -> sqlite3.Connection:
    lock = sqlite3.connect(path, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")  # other writers now time out: the store sees an outage
    return lock


async def _replay_with_outage(
    db_path: Path, port: int, before: dict, builder: ContextBuilder, clock: ManualClock
) -> tuple[MeetingSession, set[str]]:
    """Replay the meeting into SQLite; a third of the way in, lock the database for ten
    turns. Returns the session and the metrics that moved while the outage was on."""
    config = DatabaseConfig(connect_timeout_seconds=0.1, retry_initial_seconds=0.05,
                            retry_max_seconds=0.1)
    database = await open_database(f"sqlite+aiosqlite:///{db_path}", config)
    repository = meeting_repository(database, config)
    manager = create_context_manager("metrics-en", repository, embedder=load_embedder(), clock=clock)
    lines = [u for _, u in read_transcript(MEETING, LineErrors())]
    outage = range(len(lines) // 3, len(lines) // 3 + 10)
    lock, during = None, set()
    for index, utterance in enumerate(lines):
        if index == outage.start:
            lock = _hold_write_lock(db_path)
        clock.set(utterance.absolute_timestamp)
        await manager.add_utterance(utterance)
        if index == outage.stop - 1:
            await asyncio.sleep(0.5)  # the flusher retries against the locked file meanwhile
            during = _moved(before, await asyncio.to_thread(scrape, port))
            lock.rollback()
            lock.close()
            await repository.drain()
    assert repository.outages == 1 and repository.queued == 0
    stored = await repository.get_utterances("metrics-en", limit=1000)
    assert [u.id for u in stored] == list(range(1, manager.last_seq + 1))
    return MeetingSession(manager, repository, builder.new_transcript_index()), during


class _BrokenMicrophone:
    async def _fail(self):  # noqa: ANN202
        raise ConnectionResetError("track lost")
        yield  # pragma: no cover

    def frames(self, participant):  # noqa: ANN001, ANN201
        return self._fail()


class _Microphones:
    """Alice speaks one sentence; Bob's microphone is broken."""

    def __init__(self, wav: Path) -> None:
        from mithub_worker.playback import PlaybackAudioInput

        self.alice = PlaybackAudioInput({"alice": [0.3, wav, 1.2]})

    def frames(self, participant):  # noqa: ANN001, ANN201
        source = self.alice if participant.identity == "alice" else _BrokenMicrophone()
        return source.frames(participant)


async def _worker_meeting(tmp_path: Path, port: int, before: dict, models: tuple) -> set[str]:
    """The worker's bot in a room with two participants; the metrics that moved while it ran."""
    from livekit_fakes import FakeRoom, wait_for
    from speech_samples import espeak_wav
    from worker_harness import make_resources

    from mithub_worker.meeting import MeetingBot

    wav = espeak_wav("The quarterly report is ready for review.", tmp_path / "alice.wav")
    room = FakeRoom("metrics-worker")
    room.add_participant("alice", "Alice")
    room.add_participant("bob", "Bob")
    resources = make_resources(models, f"sqlite+aiosqlite:///{tmp_path / 'worker.db'}")
    bot = MeetingBot(room.room, "metrics-worker", resources, audio=_Microphones(wav))
    await bot.start()
    try:
        await wait_for(lambda: bot.manager.last_seq >= 1, timeout=60, what="alice's utterance")
        return _moved(before, await asyncio.to_thread(scrape, port))
    finally:
        await bot.aclose()


def _moved(before: dict, after: dict) -> set[str]:
    return {name for name, (_, value) in after.items() if value != before.get(name, (None, 0.0))[1]}


@pytest.mark.slow
@pytest.mark.worker
async def test_every_metric_is_exposed_and_moves(tmp_path, worker_models):
    server = start_metrics_server(0, "127.0.0.1")
    port = server.server_port
    try:
        before = await asyncio.to_thread(scrape, port)
        clock = ManualClock()  # one time for every call: the second identical call is cached
        builder = ContextBuilder(config=ContextConfig(), embedder=load_embedder(), clock=clock)
        session, moved_in_outage = await _replay_with_outage(
            tmp_path / "store.db", port, before, builder, clock)

        llm = OpenAICompatibleClient(LLMConfig(base_url="http://llm.test/v1"), transport=_llm_transport())
        with_llm, llm_free = AgentPipeline(builder, llm=llm), AgentPipeline(builder)
        for call_type in AGENT_CALL_TYPES:
            query = "When is the release?" if call_type in ("IMMEDIATE_RESPONSE", "SEARCH") else None
            assert (await with_llm.call(session, call_type, query)).mode == "llm"
            assert (await with_llm.call(session, call_type, query)).mode == "cache"
            assert (await llm_free.call(session, call_type, query)).mode in ("template", "retrieval_only")
        await llm.aclose()

        config = RetrievalConfig(embedding_model="use-multilingual", trigraph_embedding_model="use-multilingual")
        chunks = list(load_corpus(CORPUS, config, LineErrors()))
        index = HybridIndex.build(chunks, tmp_path / "index", config, progress=False)
        assert index.search("Who directed Blue Velvet?")

        moved_in_worker = await _worker_meeting(tmp_path, port, before, worker_models)

        from mithub_series import launch_watch

        watch, line = await launch_watch()
        assert await watch.observe([line])  # a change to last week's decision: checked and counted

        after = await asyncio.to_thread(scrape, port)
    finally:
        server.shutdown()
        server.server_close()

    exposed = {name: kind for name, (kind, _) in after.items()}
    assert exposed == METRICS, "a metric is missing, or new: add it here and to the README"
    moved = _moved(before, after) | moved_in_outage | moved_in_worker
    assert set(METRICS) - NOT_MOVED_HERE - moved == set()
    assert session.manager is not None  # alive until here: active meetings and L0 gauges count it


def test_label_values_are_bounded():
    from mithub.observability import record_agent_call, record_stt_error

    record_agent_call("meeting-42 text", "weird", 0.1)
    record_stt_error("a-provider-from-config")
    from prometheus_client import REGISTRY

    labels = {value for metric in REGISTRY.collect() if metric.name.startswith("mithub_")
              for sample in metric.samples for value in sample.labels.values()}
    assert "meeting-42 text" not in labels and "weird" not in labels
    assert "a-provider-from-config" not in labels and "other" in labels
