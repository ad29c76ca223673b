"""Many meetings in one worker process (issue 21): livekit-agents' thread job executor runs
two real jobs through `simulate_job`, each in its own fake room, with real VAD, Whisper
tiny.en, embedder and store.

- the meetings share one copy of every model, and the second job loads none;
- the load the worker reports rises with its live meetings;
- a bad audio frame in one meeting, and a participant handler that blocks that meeting's
  event loop, leave the other meeting storing its turns; both are logged and counted;
- a meeting of a series has its past meetings loaded when it starts, not at its first /ask.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")

from livekit import rtc  # noqa: E402
from livekit.agents.ipc import mock_room  # noqa: E402
from livekit.protocol import models  # noqa: E402
from livekit_fakes import FakeRoom, wait_for  # noqa: E402
from worker_harness import counted, make_resources, store_finished_meeting, stored_utterances  # noqa: E402

from mithub.embedders import load_embedder  # noqa: E402
from mithub.record import action_model, pair_model, settle_model  # noqa: E402
from mithub.text.korean import _kiwi  # noqa: E402
from mithub.topics import detector  # noqa: E402
from mithub_worker import stt  # noqa: E402
from mithub_worker.commands import CallRequest  # noqa: E402
from mithub_worker.meeting import MeetingBot  # noqa: E402
from mithub_worker.playback import PlaybackAudioInput  # noqa: E402
from mithub_worker.server import create_server, worker_load  # noqa: E402
from mithub_worker.watchdog import WATCHDOG  # noqa: E402

pytestmark = [pytest.mark.worker, pytest.mark.slow]

ALICE_SAYS = "Please send the final design files to the printer by Friday."
BOB_SAYS = "I will check the colors with the printer tomorrow morning."
BLOCK_LIMIT_SECONDS = 90.0


class TwoRoomWorker:
    """An unregistered thread-executor server hosting up to two simulated jobs."""

    def __init__(self, resources, audio, rooms: dict[str, FakeRoom]) -> None:  # noqa: ANN001
        self.server, self.worker = create_server(config=resources.worker, audio=audio, resources=resources)
        self.rooms = rooms
        self.task: asyncio.Task | None = None

    async def __aenter__(self) -> TwoRoomWorker:
        started = asyncio.Event()
        self.server.once("worker_started", started.set)
        self.task = asyncio.create_task(self.server.run(devmode=True, unregistered=True))
        await asyncio.wait_for(started.wait(), 60)
        return self

    async def start_job(self, name: str) -> object:
        await self.server.simulate_job(name, fake_job=True, room_info=models.Room(sid=f"RM_{name}", name=name))
        await asyncio.wait_for(self.rooms[name].connected.wait(), 60)
        await wait_for(lambda: name in self.worker.bots, timeout=120, what=f"the bot of {name}")
        return self.worker.bots[name]

    async def __aexit__(self, *_: object) -> None:
        await self.server.aclose()
        await asyncio.wait_for(self.task, 120)


@pytest.fixture
async def rooms(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeRoom]:
    """Two fake rooms, handed to the jobs in the order they start."""
    made = {"room-a": FakeRoom("room-a"), "room-b": FakeRoom("room-b")}
    order = list(made.values())
    monkeypatch.setattr(mock_room, "create_mock_room", lambda: order.pop(0).room)
    return made


def model_loads() -> dict[str, object]:
    """How many times each process-wide model cache has loaded a model."""
    return {
        "embedder": load_embedder.cache_info().misses,
        "whisper": len(stt._models),
        "kiwi": _kiwi.cache_info().misses,
        "topic_boundary": list(detector._shipped.values()),
        "decision_pair": pair_model._cached.cache_info().misses,
        "decision_settle": settle_model._cached.cache_info().misses,
        "action": action_model._load.cache_info().misses,
    }


def errors_counted(stage: str) -> float:
    return counted("mithub_meeting_errors_total", "stage", stage)


async def test_two_meetings_in_one_worker_share_one_model_instance_and_report_rising_load(
    rooms: dict[str, FakeRoom], speech_wav, worker_models: tuple, database_url: str,  # noqa: ANN001
) -> None:
    for room, who in (("room-a", "alice"), ("room-b", "bob")):
        rooms[room].add_participant(who, who.title())
    audio = PlaybackAudioInput({"alice": [0.3, speech_wav(ALICE_SAYS), 1.5],
                                "bob": [0.3, speech_wav(BOB_SAYS), 1.5]})
    resources = make_resources(worker_models, database_url, job_executor="thread", max_meetings=2)
    async with TwoRoomWorker(resources, audio, rooms) as running:
        idle = running.worker.meetings(running.server)
        first = await running.start_job("room-a")
        one = running.worker.meetings(running.server)
        loads_after_first = model_loads()
        second = await running.start_job("room-b")
        two = running.worker.meetings(running.server)
        assert model_loads() == loads_after_first, "the second meeting loaded a model at its start"
        full = running.worker.load(running.server)
        await wait_for(lambda: first.manager.last_seq >= 1 and second.manager.last_seq >= 1,
                       timeout=120, what="one stored turn in each meeting")
        assert model_loads() == loads_after_first, "a model was loaded while the meetings ran"

        assert first.resources is second.resources is resources
        assert first.builder._embedder is second.builder._embedder is resources.embedder
        assert first.watch._embedder is second.watch._embedder is resources.embedder
        assert first.manager._detector._shift.model is second.manager._detector._shift.model
        assert first.resources.vad._onnx_session is second.resources.vad._onnx_session
        (whisper,) = stt._models.values()  # one Whisper model in the process
        assert stt._load_model(first.resources.stt) is whisper
        assert _kiwi() is _kiwi()

    assert (idle, one, two) == (0, 1, 2)
    assert full == 1.0, "two live meetings fill a worker of WORKER_MAX_MEETINGS=2"
    config = resources.worker.model_copy(update={"max_meetings": 20, "meeting_cpu_cores": 0.10})
    rising = [worker_load(config, n, cpu_busy=0.0, resident_mb=0.0, cores=2) for n in (0, 1, 2, 14, 15)]
    assert rising == sorted(rising) and rising[0] == 0.0 < rising[1] < rising[2]
    assert rising[3] < config.load_threshold <= rising[4], "at 0.10 cores a meeting, a 2-core worker takes 15"
    config = config.model_copy(update={"max_meetings": 12})
    assert worker_load(config, 11, cpu_busy=0.0, resident_mb=0.0, cores=2) < 1.0
    assert worker_load(config, 12, cpu_busy=0.0, resident_mb=0.0, cores=2) == 1.0, "full at WORKER_MAX_MEETINGS"
    assert [u.speaker_id for u in await stored_utterances(database_url, "RM_room-a")] == ["alice"]
    assert [u.speaker_id for u in await stored_utterances(database_url, "RM_room-b")] == ["bob"]


class TroubledAudio:
    """Real speech per participant, started when the test opens its gate, plus two faults:
    `bad_frame` speakers send one 48 kHz stereo frame into their 16 kHz mono stream after
    their speech (the STT stream rejects it), and `blocking` speakers hold their meeting's
    event loop in a synchronous call until released."""

    def __init__(self, playback: PlaybackAudioInput, *, bad_frame: set[str], blocking: set[str]) -> None:
        self.playback = playback
        self.bad_frame = set(bad_frame)
        self.blocking = set(blocking)
        self.gates = {name: threading.Event() for name in playback.scripts}
        self.release = threading.Event()
        self.blocked = threading.Event()  # set while a meeting's loop is held
        self.sent_bad_frame = threading.Event()

    def frames(self, participant: rtc.RemoteParticipant) -> AsyncIterator[rtc.AudioFrame]:
        return self._frames(participant)

    async def _frames(self, participant: rtc.RemoteParticipant) -> AsyncIterator[rtc.AudioFrame]:
        name = participant.identity
        while not self.gates[name].is_set():
            await asyncio.sleep(0.05)
        if name in self.blocking:
            self.blocked.set()
            self.release.wait(BLOCK_LIMIT_SECONDS)  # a handler that blocks: the whole loop stops
            self.blocked.clear()
            return
        async for frame in self.playback.frames(participant):
            yield frame
        if name in self.bad_frame and not self.sent_bad_frame.is_set():
            self.sent_bad_frame.set()
            yield rtc.AudioFrame(data=bytes(960 * 2 * 2), sample_rate=48000, num_channels=2,
                                 samples_per_channel=960)


async def test_a_failing_or_stuck_meeting_does_not_stop_another_in_the_same_process(
    rooms: dict[str, FakeRoom], speech_wav, worker_models: tuple, database_url: str,  # noqa: ANN001
) -> None:
    rooms["room-a"].add_participant("mallory", "Mallory")
    rooms["room-a"].add_participant("dave", "Dave")
    rooms["room-b"].add_participant("bob", "Bob")
    audio = TroubledAudio(PlaybackAudioInput({"mallory": [0.3, speech_wav(ALICE_SAYS), 1.5], "dave": [],
                                              "bob": [0.3, speech_wav(BOB_SAYS), 1.5]}),
                          bad_frame={"mallory"}, blocking={"dave"})
    resources = make_resources(worker_models, database_url, job_executor="thread", stall_seconds=2.0)
    audio_errors, stalls = errors_counted("audio"), errors_counted("stalled")
    async with TwoRoomWorker(resources, audio, rooms) as running:
        troubled = await running.start_job("room-a")
        healthy = await running.start_job("room-b")

        # A bad frame ends mallory's stream, after her turn is stored; it is counted, and
        # the stream starts again (her meeting goes on).
        audio.gates["mallory"].set()
        await wait_for(audio.sent_bad_frame.is_set, timeout=60, what="the bad frame")
        await wait_for(lambda: errors_counted("audio") > audio_errors, timeout=60, what="the audio error counted")
        await wait_for(lambda: troubled.manager.last_seq >= 1, timeout=120, what="mallory's turn")

        # Dave's handler holds room-a's event loop; room-b stores bob's turn meanwhile.
        audio.gates["dave"].set()
        await wait_for(audio.blocked.is_set, timeout=30, what="room-a's loop held")
        held_at = time.monotonic()
        audio.gates["bob"].set()
        await wait_for(lambda: healthy.manager.last_seq >= 1, timeout=120, what="bob's turn in room-b")
        assert audio.blocked.is_set(), "room-b stored its turn while room-a was stuck"
        await wait_for(lambda: errors_counted("stalled") > stalls, timeout=30, what="the stall counted")
        assert time.monotonic() - held_at >= resources.worker.stall_seconds
        audio.release.set()
        await wait_for(lambda: not troubled.progress.stalled_for(time.monotonic())[0] > 2.0, timeout=30,
                       what="room-a moving again")
        assert not troubled._closed and not healthy._closed

    mallory = await stored_utterances(database_url, "RM_room-a")
    bob = await stored_utterances(database_url, "RM_room-b")
    # (mallory's restarted stream plays her script again: her meeting went on)
    assert {u.speaker_id for u in mallory} == {"mallory"} and [u.speaker_id for u in bob] == ["bob"]
    assert "printer" in bob[0].text.lower()
    assert WATCHDOG.stalls >= 1


SERIES = "weekly-sync"
WEEK_ONE = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)
LAST_WEEK = [("alice", "Alice", "The design files go to the printer on Friday."),
             ("bob", "Bob", "I will check the colors with the printer first.")]


async def finished_meeting(database_url: str) -> None:
    """Last week's meeting of the series, stored and ended."""
    await store_finished_meeting(database_url, "week-1", series=SERIES, started_at=WEEK_ONE, lines=LAST_WEEK)


async def test_the_series_past_meetings_load_when_the_meeting_starts_not_at_the_first_ask(
    worker_models: tuple, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_CACHE_DIR", str(tmp_path / "memory"))
    from mithub.config import get_memory_config

    get_memory_config.cache_clear()
    await finished_meeting(database_url)
    room = FakeRoom(SERIES)
    bot = MeetingBot(room.room, "week-2", make_resources(worker_models, database_url),
                     audio=PlaybackAudioInput({}), series_id=SERIES, title=SERIES)
    try:
        await bot.start()
        await asyncio.wait_for(bot.warmed.wait(), 60)
        past = bot.builder.past
        assert bot.warm_loads == 1 and past.meeting_ids == {"week-1"}, "loaded before any call"
        loaded = dict(past.stats)

        answer = await bot.calls.run(CallRequest("IMMEDIATE_RESPONSE", "when do the design files go to the printer?"),
                                     source="chat", requested_by="bob")
        assert past.stats == loaded, "the first /ask loaded the series again"
        assert any(c.meeting_id == "week-1" for c in answer.citations), answer
    finally:
        await bot.aclose()
        get_memory_config.cache_clear()


async def test_a_hung_write_in_one_meeting_is_reported_and_the_other_meeting_keeps_storing(
    speech_wav, worker_models: tuple, database_url: str,  # noqa: ANN001
) -> None:
    """A record call that hangs (PostgreSQL: another session holds a lock on the meeting's
    row, so inserting its turn waits): the watchdog reports that meeting stalled in its
    write, the other meeting stores its turn meanwhile, and the hung turn is stored once the
    lock goes."""
    if not database_url.startswith("postgresql"):
        pytest.skip("row locks that make a write wait: PostgreSQL")
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    rooms = {name: FakeRoom(name) for name in ("room-a", "room-b")}
    rooms["room-a"].add_participant("alice", "Alice")
    rooms["room-b"].add_participant("bob", "Bob")
    audio = TroubledAudio(PlaybackAudioInput({"alice": [0.3, speech_wav(ALICE_SAYS), 1.5],
                                              "bob": [0.3, speech_wav(BOB_SAYS), 1.5]}),
                          bad_frame=set(), blocking=set())
    resources = make_resources(worker_models, database_url, stall_seconds=2.0)
    stuck = MeetingBot(rooms["room-a"].room, "RM_room-a", resources, audio=audio)
    healthy = MeetingBot(rooms["room-b"].room, "RM_room-b", resources, audio=audio)
    stalls = errors_counted("stalled")
    locker = create_async_engine(database_url)
    try:
        await stuck.start()
        await healthy.start()
        async with locker.connect() as conn:
            await conn.execute(text("SELECT id FROM meetings WHERE id = 'RM_room-a' FOR UPDATE"))
            audio.gates["alice"].set()
            await wait_for(lambda: stuck.progress.writing_since is not None, timeout=120, what="alice's write")
            audio.gates["bob"].set()
            await wait_for(lambda: errors_counted("stalled") > stalls, timeout=60, what="the stall counted")
            assert stuck.progress.stalled_for(time.monotonic())[1] == "ingest"
            await wait_for(lambda: healthy.manager.last_seq >= 1, timeout=120, what="bob's turn")
            assert [u.speaker_id for u in await stored_utterances(database_url, "RM_room-b")] == ["bob"]
            assert await stored_utterances(database_url, "RM_room-a") == [], "alice's write is held"
            await conn.rollback()
        await wait_for(lambda: stuck.progress.writing_since is None, timeout=60, what="alice's write done")
    finally:
        await locker.dispose()
        await stuck.aclose()
        await healthy.aclose()
    assert [u.speaker_id for u in await stored_utterances(database_url, "RM_room-a")] == ["alice"]
