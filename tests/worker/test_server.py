"""The worker as livekit-agents runs it: an unregistered AgentServer, a job started with
`simulate_job(fake_job=True)` in the server's own job executor, our room in place of the
SDK's mock room. Covers transcription into the store, chat and RPC calls, the health,
status and /metrics endpoints, duplicate jobs, a worker restart that continues the
meeting without a gap (same room session), and the same room a week later: a new meeting
of the same series that answers from the first one."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from unittest.mock import AsyncMock, create_autospec

import httpx
import pytest

pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")

from livekit.agents import JobRequest  # noqa: E402
from livekit.protocol import models  # noqa: E402
from livekit.agents.ipc import mock_room  # noqa: E402
from livekit_fakes import FakeRoom, wait_for  # noqa: E402
from speech_samples import espeak_wav  # noqa: E402
from worker_harness import make_resources, stored_meetings, stored_utterances  # noqa: E402

from mithub.text.wer import word_error_rate  # noqa: E402
from mithub_worker.playback import PlaybackAudioInput  # noqa: E402
from mithub_worker.server import create_server  # noqa: E402

pytestmark = [pytest.mark.worker, pytest.mark.slow]

ROOM = "design-review"
SID = "RM_session_one"
ALICE_SAYS = "Please send the final design files to the printer by Friday."
BOB_SAYS = "I will check the colors with the printer tomorrow morning."
CAROL_SAYS = "The new office chairs arrive next Tuesday afternoon."


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("speech")
    return {name: espeak_wav(text, folder / f"{name}.wav")
            for name, text in {"alice": ALICE_SAYS, "bob": BOB_SAYS, "carol": CAROL_SAYS}.items()}


def free_port() -> int:
    """A fixed free port: with port 0 the status server's IPv4 and IPv6 sockets get different
    ports, and the one it reports may be the IPv6 one."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class RunningWorker:
    def __init__(self, resources, audio: PlaybackAudioInput, room: FakeRoom,  # noqa: ANN001
                 sid: str = SID) -> None:
        self.sid = sid
        self.metrics_port = free_port()
        self.server, self.worker = create_server(config=resources.worker, audio=audio,
                                                 resources=resources, metrics_port=self.metrics_port)
        self.room = room
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> RunningWorker:
        started = asyncio.Event()
        self.server.once("worker_started", started.set)
        self.task = asyncio.create_task(self.server.run(devmode=True, unregistered=True))
        await asyncio.wait_for(started.wait(), 60)
        await self.server.simulate_job(ROOM, fake_job=True, room_info=models.Room(sid=self.sid, name=ROOM))
        await asyncio.wait_for(self.room.connected.wait(), 60)
        await wait_for(lambda: ROOM in self.worker.bots, timeout=60, what="the meeting bot")
        return self

    @property
    def bot(self):  # noqa: ANN201
        return self.worker.bots[ROOM]

    async def __aexit__(self, *_: object) -> None:
        await self.server.aclose()
        await asyncio.wait_for(self.task, 60)


@pytest.fixture
async def room(monkeypatch: pytest.MonkeyPatch) -> FakeRoom:
    fake = FakeRoom(ROOM)
    monkeypatch.setattr(mock_room, "create_mock_room", lambda: fake.room)
    return fake


async def test_worker_job_transcribes_answers_and_serves_status(
    room: FakeRoom, speech: dict[str, Path], worker_models: tuple, database_url: str
) -> None:
    room.add_participant("alice", "Alice")
    room.add_participant("bob", "Bob")
    audio = PlaybackAudioInput({"alice": [0.3, speech["alice"], 1.5], "bob": [5.0, speech["bob"], 1.5]})
    resources = make_resources(worker_models, database_url, job_executor="thread", http_port=free_port())
    async with RunningWorker(resources, audio, room) as running:
        await wait_for(lambda: running.bot.manager.last_seq >= 2, timeout=90, what="two utterances")

        await room.chat("/summary", sender="alice")
        await wait_for(lambda: room.chat_replies(), timeout=60, what="the /summary reply")
        assert "**Alice**" in room.chat_replies()[0].text

        answer = json.loads(await room.rpc("mithub.call", {"call_type": "SEARCH",
                                                           "query": "design files printer"},
                                           caller="bob"))
        assert answer["call_type"] == "SEARCH" and answer["citations"]

        async with httpx.AsyncClient() as http:
            status_port = running.server.worker_info.http_port
            health = await http.get(f"http://127.0.0.1:{status_port}/")
            status = (await http.get(f"http://127.0.0.1:{status_port}/worker")).json()
            metrics = (await http.get(f"http://127.0.0.1:{running.metrics_port}/metrics")).text
        assert health.status_code == 200 and health.text == "OK"
        assert status["agent_name"] == "mithub" and status["active_jobs"] == 1
        assert 'mithub_active_participants 2.0' in metrics
        assert _sample(metrics, 'mithub_stt_real_time_factor_count{provider="faster_whisper"}') >= 2
        assert _sample(metrics, 'mithub_agent_calls_total{call_type="SEARCH"}') >= 1

    # The job's end closed the meeting while the bot was still in the room: its minutes were
    # posted there (the fake room, like a real one, takes nothing once the bot has left).
    (minutes,) = [m.text for m in room.chat_replies() if m.text.startswith("📝 ")]
    assert minutes.startswith("📝 Minutes: design-review (") and "action item" in minutes, minutes
    assert not room.room.isconnected(), "the bot left the room after posting them"
    utterances = await stored_utterances(database_url, SID)
    assert [(u.id, u.speaker_id) for u in utterances] == [(1, "alice"), (2, "bob")]
    assert word_error_rate(ALICE_SAYS, utterances[0].text) < 0.30, utterances[0].text
    assert word_error_rate(BOB_SAYS, utterances[1].text) < 0.30, utterances[1].text


async def test_restarted_worker_restores_the_meeting_and_continues_its_seq(
    room: FakeRoom, speech: dict[str, Path], worker_models: tuple, database_url: str
) -> None:
    room.add_participant("alice", "Alice")
    resources = make_resources(worker_models, database_url, job_executor="thread", http_port=free_port())
    first = PlaybackAudioInput({"alice": [0.3, speech["alice"], 1.0, speech["carol"], 1.5]})
    async with RunningWorker(resources, first, room) as running:
        await wait_for(lambda: running.bot.manager.last_seq >= 2, timeout=90, what="two utterances")

    room.add_participant("bob", "Bob")
    second = PlaybackAudioInput({"alice": [], "bob": [0.3, speech["bob"], 1.5]})
    async with RunningWorker(resources, second, room) as running:
        assert running.bot.restored_seq == 2
        await wait_for(lambda: running.bot.manager.last_seq >= 3, timeout=90, what="bob's utterance")
        restored_topics = running.bot.manager.get_l1_segments()

    utterances = await stored_utterances(database_url, SID)
    assert [u.id for u in utterances] == [1, 2, 3]
    assert [u.speaker_id for u in utterances] == ["alice", "alice", "bob"]
    assert word_error_rate(BOB_SAYS, utterances[2].text) < 0.30, utterances[2].text
    assert utterances[0].start_ms < utterances[1].start_ms < utterances[2].start_ms
    assert restored_topics, "the first run's topic summary was restored"


async def test_the_same_room_next_week_is_a_new_meeting_that_answers_from_the_first(
    room: FakeRoom, speech: dict[str, Path], worker_models: tuple, database_url: str, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_CACHE_DIR", str(tmp_path / "memory"))
    from mithub.config import get_memory_config

    get_memory_config.cache_clear()
    room.add_participant("alice", "Alice")
    resources = make_resources(worker_models, database_url, job_executor="thread", http_port=free_port())
    first = PlaybackAudioInput({"alice": [0.3, speech["alice"], 1.5]})
    async with RunningWorker(resources, first, room, sid="RM_week_one") as running:
        await wait_for(lambda: running.bot.manager.last_seq >= 1, timeout=90, what="alice's utterance")

    room.add_participant("bob", "Bob")
    second = PlaybackAudioInput({"alice": [], "bob": [0.3, speech["bob"], 1.5]})
    async with RunningWorker(resources, second, room, sid="RM_week_two") as running:
        assert running.bot.restored_seq == 0, "a new session starts a new meeting"
        await wait_for(lambda: running.bot.manager.last_seq >= 1, timeout=90, what="bob's utterance")
        posted = len(room.chat_replies())  # the first meeting's minutes, posted as it ended
        await room.chat("/ask last time, when were the design files due at the printer?", sender="bob")
        await wait_for(lambda: len(room.chat_replies()) > posted, timeout=60, what="the /ask reply")
        reply = room.chat_replies()[posted].text

    meetings = {m.id: m for m in await stored_meetings(database_url)}
    assert meetings["RM_week_one"].series_id == meetings["RM_week_two"].series_id == ROOM
    assert meetings["RM_week_one"].ended_at is not None and meetings["RM_week_two"].ended_at is not None
    assert [u.id for u in await stored_utterances(database_url, "RM_week_two")] == [1]
    first_said = (await stored_utterances(database_url, "RM_week_one"))[0]
    label = f"meeting of {first_said.absolute_timestamp:%b} {first_said.absolute_timestamp.day}"
    assert f"({label})" in reply, reply
    assert "design files" in reply.lower() or "printer" in reply.lower(), reply
    get_memory_config.cache_clear()


async def test_second_job_for_the_same_room_is_rejected(worker_models: tuple, database_url: str) -> None:
    resources = make_resources(worker_models, database_url)
    server, worker = create_server(config=resources.worker, resources=resources)

    def request(room_name: str) -> JobRequest:
        job_request = create_autospec(JobRequest, instance=True)
        job_request.room.name = room_name
        job_request.accept = AsyncMock()
        job_request.reject = AsyncMock()
        return job_request

    first, duplicate, other = request("r1"), request("r1"), request("r2")
    await worker.on_request(first)
    await worker.on_request(duplicate)
    await worker.on_request(other)
    first.accept.assert_awaited_once()
    assert first.accept.await_args.kwargs["name"] == "MitHub"
    duplicate.reject.assert_awaited_once()
    duplicate.accept.assert_not_awaited()
    other.accept.assert_awaited_once()
    assert 0.0 <= worker.load(server) <= 1.0


def _sample(metrics: str, name: str) -> float:
    for line in metrics.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{name} not in /metrics")


def test_callbacks_can_be_sent_to_a_job_process(worker_models: tuple, database_url: str) -> None:
    """WORKER_JOB_EXECUTOR=process pickles the callbacks: only settings travel, no server,
    no loaded models."""
    import pickle

    resources = make_resources(worker_models, database_url, job_executor="process")
    _, worker = create_server(config=resources.worker, resources=resources)
    copy = pickle.loads(pickle.dumps(worker.entrypoint)).__self__
    assert copy.config == worker.config
    assert copy.server is None and copy.resources is None and copy.bots == {}
