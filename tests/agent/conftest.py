import asyncio
from pathlib import Path

import pytest

from mithub.agent import MeetingSession
from mithub.clock import ManualClock
from mithub.config import ContextConfig
from mithub.context.builder import ContextBuilder
from mithub.context.factory import create_context_manager
from mithub.context.transcript import read_transcript
from mithub.embedders import load_embedder
from mithub.jsonl import LineErrors
from mithub.store.memory import InMemoryRepository

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"


async def replay_example(name: str, meeting_id: str) -> tuple[MeetingSession, ContextBuilder]:
    embedder = load_embedder()
    repo = InMemoryRepository()
    clock = ManualClock()
    manager = create_context_manager(meeting_id, repo, embedder=embedder, clock=clock)
    for _, utterance in read_transcript(EXAMPLES / name, LineErrors()):
        clock.set(utterance.absolute_timestamp)
        await manager.add_utterance(utterance)
    builder = ContextBuilder(config=ContextConfig(), embedder=embedder, clock=clock)
    return MeetingSession(manager, repo, builder.new_transcript_index()), builder


@pytest.fixture(scope="session")
def korean_meeting():
    return asyncio.run(replay_example("ko_product_planning.jsonl", "demo-ko"))


@pytest.fixture(scope="session")
def english_meeting():
    return asyncio.run(replay_example("en_sprint_review.jsonl", "demo-en"))
