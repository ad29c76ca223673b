import asyncio
import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from mithub.agent import MeetingSession
from mithub.cli import main
from mithub.context.models import AGENT_CALL_TYPES
from mithub.clock import ManualClock
from mithub.config import ContextConfig
from mithub.context.builder import ContextBuilder
from mithub.context.factory import create_context_manager
from mithub.context.transcript import read_transcript
from mithub.embedders import load_embedder
from mithub.jsonl import LineErrors
from mithub.store.memory import InMemoryRepository

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "meetings"
TOKEN = "test-token-0123456789"


def makefile_setting(name: str) -> str:
    """A setting of `make demo`, so the tests ask what the demo asks."""
    return re.search(rf"^{name} := (.+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1)


DEMO = [  # (file, meeting id, start, question): the first meeting keeps replay's default question
    ("ko_product_planning", "demo-ko-1", "2026-05-04T10:00:00+09:00", None),
    ("ko_product_planning_2", "demo-ko-2", "2026-05-11T10:00:00+09:00", makefile_setting("DEMO_QUESTION")),
]


def replay_with_calls(url: str, name: str, meeting_id: str, started: str, question: str | None
                      ) -> dict[str, dict]:
    """`mithub replay --calls --json` of one meeting of the demo series into `url`: its live
    answers by call type."""
    args = ["replay", str(EXAMPLES / f"{name}.jsonl"), "--meeting-id", meeting_id, "--series", "demo-ko",
            "--started-at", started, "--database-url", url, "--no-progress", "--json", "--calls"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args + (["--question", question] if question else [])) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()
               if line.startswith("{") and '"call_type"' in line]
    assert [a["call_type"] for a in answers] == list(AGENT_CALL_TYPES)
    return {a["call_type"]: a for a in answers}


@pytest.fixture(scope="session")
def demo_series(tmp_path_factory) -> tuple[Path, dict[tuple[str, str], dict]]:
    """The demo series replayed as `make demo` does, each meeting's calls asked live at its
    end: the SQLite file and the live answers by (meeting, call type)."""
    path = tmp_path_factory.mktemp("demo") / "mithub.db"
    answers: dict[tuple[str, str], dict] = {}
    for name, meeting_id, started, question in DEMO:
        for call_type, answer in replay_with_calls(f"sqlite+aiosqlite:///{path}", name, meeting_id, started,
                                                   question).items():
            answers[(meeting_id, call_type)] = answer
    return path, answers


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
