"""The organisation's memory on a real store (SQLite and PostgreSQL) with the real embedder:
finished meetings of a series are searched beside today's meeting, the disk cache is a
cache of the store, and meetings finished by another process show up without a restart."""

from __future__ import annotations

import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from mithub_meetings import sample_lines, write_meeting

from mithub.agent import AgentPipeline, MeetingSession
from mithub.agent.runtime import memory_builder, open_agent_runtime
from mithub.config import ContextConfig, MemoryConfig
from mithub.context.factory import create_context_manager
from mithub.embedders import load_embedder
from mithub.memory import OrganisationMemory
from mithub.memory.cache import cache_path
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository
from mithub_databases import subprocess_env

WEEK_ONE = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)
# Said only in the first meeting (line 36 of the sample): the Q3 budget.
BUDGET_QUESTION = "지난 회의에서 Q3 클라우드 예산은 얼마로 확정했나요?"


async def replay(repository: SqlRepository, meeting_id: str, lines, *, series: str, started: datetime,
                 end: bool = True):
    await repository.ensure_meeting(meeting_id, title=f"{meeting_id} title", series_id=series,
                                    started_at=started)
    manager = create_context_manager(meeting_id, repository, embedder=load_embedder())
    for u in lines:
        await manager.add_utterance(u.model_copy(update={
            "absolute_timestamp": started + timedelta(milliseconds=u.start_ms)}))
    await manager.finalize()
    if end:
        await repository.end_meeting(meeting_id)
    return manager


@pytest.fixture
async def store(database_url: str):
    database = await open_database(database_url)
    yield SqlRepository(database)
    await database.dispose()


@pytest.fixture
def memory_config(tmp_path: Path) -> MemoryConfig:
    return MemoryConfig(cache_dir=str(tmp_path / "memory"), sync_seconds=0)


async def _series(store: SqlRepository):
    """Week one: the budget and GPU part of the sample (finished). Week two: the beta and
    security part (still open): the budget is only in week one."""
    lines = sample_lines()
    await replay(store, "week-1", lines[:70], series="planning", started=WEEK_ONE)
    return await replay(store, "week-2", lines[71:150], series="planning",
                        started=WEEK_ONE + timedelta(days=7), end=False)


def _memory(store: SqlRepository, config: MemoryConfig) -> OrganisationMemory:
    from mithub.budget import TokenBudgetManager

    return OrganisationMemory(store, load_embedder(), config=config, count_text=TokenBudgetManager().count,
                              turn_max_tokens=20, progress=False)


async def test_a_past_meeting_answers_with_citations_naming_it(store, memory_config):
    today = await _series(store)
    builder = memory_builder(ContextConfig(), load_embedder(), store, memory=memory_config)
    pipeline = AgentPipeline(builder)
    session = MeetingSession(today, store, builder.new_transcript_index(), series_id="planning")
    answer = await pipeline.call(session, "IMMEDIATE_RESPONSE", BUDGET_QUESTION)
    past = [c for c in answer.citations if c.meeting_id == "week-1"]
    assert past, answer.render_text()
    assert {c.meeting_title for c in past} == {"week-1 title"}
    assert {c.meeting_date for c in past} == {WEEK_ONE.date()}
    assert all(c.speaker and c.time and c.quote and c.seq for c in past if c.kind == "utterance")
    assert any("2억 4천" in (c.quote or "") for c in past), answer.render_text()
    assert "(5월 4일 회의)" in answer.render_text()
    # The template answer leads with the sentence that answers, and says where it was said.
    first_line = answer.answer.splitlines()[0]
    assert "2억 4천" in first_line and "5월 4일 회의" in first_line, answer.answer


async def test_scope_off_searches_today_only(store, memory_config):
    today = await _series(store)
    off = memory_config.model_copy(update={"scope": "off"})
    builder = memory_builder(ContextConfig(), load_embedder(), store, memory=off)
    assert builder.past is None
    session = MeetingSession(today, store, builder.new_transcript_index(), series_id="planning")
    answer = await AgentPipeline(builder).call(session, "IMMEDIATE_RESPONSE", BUDGET_QUESTION,
                                               include_context=True)
    assert {item.meeting_id for item in answer.context} == {"week-2"}
    assert not any(c.meeting_id for c in answer.citations)


async def test_other_series_are_searched_only_with_scope_organisation(store, memory_config):
    lines = sample_lines()
    await replay(store, "other-team", lines[:70], series="other", started=WEEK_ONE)
    today = await replay(store, "week-2", lines[71:150], series="planning",
                         started=WEEK_ONE + timedelta(days=7), end=False)
    for scope, expected in (("series", set()), ("organisation", {"other-team"})):
        memory = _memory(store, memory_config.model_copy(update={"scope": scope}))
        await memory.sync()
        _, excerpts = memory.search_past(BUDGET_QUESTION, series_id="planning",
                                         exclude_meeting_id="week-2", budget_tokens=400)
        assert {e.meeting.meeting_id for e in excerpts} == expected, scope
    assert today.meeting_id == "week-2"


async def test_a_deleted_cache_is_rebuilt_from_the_store(store, memory_config):
    await _series(store)
    first = _memory(store, memory_config)
    assert await first.sync() == 1 and first.stats["from_store"] == 1
    path = cache_path(Path(memory_config.cache_dir), first._embedder.model_id, "week-1")
    assert path.is_file()
    found = first.search_past(BUDGET_QUESTION, series_id="planning", exclude_meeting_id="week-2",
                              budget_tokens=400)

    again = _memory(store, memory_config)  # a restarted process: read from the cache
    assert await again.sync() == 1 and again.stats == {"from_cache": 1, "from_store": 0, "embedded": 0}

    path.unlink()
    rebuilt = _memory(store, memory_config)
    assert await rebuilt.sync() == 1 and rebuilt.stats["from_store"] == 1 and path.is_file()
    assert rebuilt.search_past(BUDGET_QUESTION, series_id="planning", exclude_meeting_id="week-2",
                               budget_tokens=400) == found


async def test_stored_vectors_are_reused_not_embedded_again(store, memory_config):
    """What the live meeting embedded (saved in the store's embedding cache) is not embedded
    again when the meeting joins the memory."""
    from mithub.store.embedding_cache import MeetingEmbeddings

    lines = sample_lines()[:40]
    vectors = MeetingEmbeddings(load_embedder(), store, "week-1")
    await store.ensure_meeting("week-1", series_id="planning", started_at=WEEK_ONE)
    manager = create_context_manager("week-1", store, embedder=vectors)
    for u in lines:
        await manager.add_utterance(u)
    vectors.embed_documents([u.text for u in await store.get_utterances("week-1")])
    await vectors.flush(await store.last_seq("week-1"))
    await store.end_meeting("week-1")
    memory = _memory(store, memory_config)
    await memory.sync()
    assert memory.stats["from_store"] == 1 and memory.stats["embedded"] == 0


async def test_a_stale_cache_file_is_rebuilt(store, memory_config):
    await _series(store)
    memory = _memory(store, memory_config)
    await memory.sync()
    await store.ensure_meeting("week-1", reopen=True)  # a job restarted in a room that still lives
    await memory.sync()
    assert "week-1" not in memory.meeting_ids, "a reopened meeting leaves the memory"
    await store.end_meeting("week-1")  # ended again: another end time, the cache file is stale
    fresh = _memory(store, memory_config)
    await fresh.sync()
    assert fresh.stats["from_store"] == 1 and "week-1" in fresh.meeting_ids


async def test_turns_the_store_has_no_vector_for_are_encoded_once_across_rebuilds(store, memory_config):
    """The memory's turns go through the same content-hash vector cache as an index build: a
    meeting rebuilt from the store (its cache file stale) encodes nothing it encoded before."""
    await _series(store)  # replayed without storing vectors: the memory has to encode week 1
    first = _memory(store, memory_config)
    await first.sync()
    assert first.stats["embedded"] == 70
    assert list((Path(memory_config.cache_dir) / "vectors").glob("*/shard-*.npz"))
    await store.ensure_meeting("week-1", reopen=True)
    await store.end_meeting("week-1")  # the per-meeting file is stale now
    rebuilt = _memory(store, memory_config)
    await rebuilt.sync()
    assert rebuilt.stats["from_store"] == 1 and rebuilt.stats["embedded"] == 0
    found = rebuilt.search_past(BUDGET_QUESTION, series_id="planning", exclude_meeting_id="week-2",
                                budget_tokens=400)[1]
    assert any("예산" in u.text for e in found for u in e.utterances)


@pytest.mark.slow
async def test_a_meeting_finished_by_another_process_is_found_without_a_restart(
    database_url: str, tmp_path: Path, memory_config
):
    """A running API process answers about a meeting that another process (`mithub replay`)
    finished after the API started."""
    lines = [{"speaker_id": u.speaker_id, "speaker_name": u.speaker_name, "text": u.text,
              "start_ms": u.start_ms, "end_ms": u.end_ms} for u in sample_lines()]
    week_one = write_meeting(tmp_path / "week1.jsonl", lines[:70])
    week_two = write_meeting(tmp_path / "week2.jsonl", lines[71:150])
    env = subprocess_env(MEMORY_CACHE_DIR=str(tmp_path / "memory"))

    def replay_in_another_process(path: Path, meeting_id: str, started: str) -> None:
        subprocess.run([sys.executable, "-m", "mithub.cli", "replay", str(path), "--meeting-id", meeting_id,
                        "--series", "planning", "--started-at", started, "--database-url", database_url,
                        "--no-progress", "--json"], check=True, env=env, capture_output=True, timeout=300)

    replay_in_another_process(week_two, "week-2", "2026-05-11T10:00+09:00")
    runtime = await open_agent_runtime(database_url, index_dir="")
    runtime.builder.past.config = memory_config
    try:
        session = await runtime.registry.get("week-2")
        before = await runtime.pipeline.call(session, "IMMEDIATE_RESPONSE", BUDGET_QUESTION)
        assert not any(c.meeting_id == "week-1" for c in before.citations)

        replay_in_another_process(week_one, "week-1", "2026-05-04T10:00+09:00")
        after = await runtime.pipeline.call(session, "IMMEDIATE_RESPONSE", BUDGET_QUESTION)
        assert any(c.meeting_id == "week-1" and "2억 4천" in (c.quote or "") for c in after.citations), \
            after.render_text()
    finally:
        await runtime.aclose()


async def test_processes_writing_one_meeting_to_the_cache_at_once_leave_a_whole_file(store, memory_config):
    """Writers race on the same meeting's cache file (several processes, or worker machines
    sharing the folder): every one writes a whole file and renames it into place."""
    import asyncio

    from mithub.memory.cache import load_meeting, save_meeting

    await _series(store)
    memory = _memory(store, memory_config)
    await memory.sync()
    root = Path(memory_config.cache_dir)
    (info,) = await store.finished_meetings()
    cached = load_meeting(root, memory._embedder.model_id, info)
    assert cached is not None
    await asyncio.gather(*(asyncio.to_thread(save_meeting, root, cached) for _ in range(8)))
    again = load_meeting(root, memory._embedder.model_id, info)
    assert again is not None and again.utterances == cached.utterances
    assert (again.vectors == cached.vectors).all()
    assert not list(root.rglob("*.tmp")), "no temporary file is left behind"
