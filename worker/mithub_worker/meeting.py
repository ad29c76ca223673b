"""One meeting in one room: the bot that transcribes every participant into the meeting
memory and answers agent calls from chat, a wake phrase or RPC (seed 002 §3.1, §10.4).

    bot = MeetingBot(room, "RM_3kQ9...", resources, series_id="weekly-sync",
                     title="weekly-sync", audio=RoomAudioInput())
    await bot.start()      # take the meeting's lease, restore it from the store, listen
    ...
    await bot.aclose()     # drain the STT streams, flush every write, finalize, release

A meeting is one session of a room: the worker keys it by the room's sid, which stays the
same while the room lives, so a job restarted mid-meeting continues it where the last
worker stopped. The same room next week is a new meeting of the same series, and the
finished meetings of the series are searched by the agent calls (`mithub.memory`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import datetime, timedelta

import structlog
from livekit import rtc
from livekit.agents.types import (
    ATTRIBUTE_TRANSCRIPTION_FINAL,
    ATTRIBUTE_TRANSCRIPTION_SEGMENT_ID,
    ATTRIBUTE_TRANSCRIPTION_TRACK_ID,
    TOPIC_CHAT,
    TOPIC_TRANSCRIPTION,
)
from pydantic import ValidationError

from mithub.agent import AgentPipeline, MeetingSession
from mithub.clock import Clock, utc_now
from mithub.agent.decision_watch import DecisionWatch, record_meeting
from mithub.agent.runtime import memory_builder
from mithub.context.factory import create_context_manager
from mithub.context.builder import ContextBuilder
from mithub.context.manager import ContextManager
from mithub.context.models import NewUtterance, Participant
from mithub.errors import BackPressureError
from mithub.llm.factory import create_llm_client
from mithub.minutes.closing import close_minutes
from mithub.minutes.models import Minutes
from mithub.minutes.render import to_chat
from mithub.observability import participant_joined, participant_left, record_meeting_error
from mithub.record.models import Decision, DecisionChange
from mithub.store.session import AttachedMeeting, attach_meeting
from mithub_worker.calls import AgentCalls
from mithub_worker.resources import WorkerResources
from mithub_worker.transcription import (
    AudioInput,
    ParticipantTranscriber,
    SpeechToText,
    Transcript,
)
from mithub_worker.watchdog import WATCHDOG, MeetingProgress

logger = structlog.get_logger(__name__)

RPC_METHOD = "mithub.call"
STOP_STREAM_SECONDS = 10.0


class MeetingBot:
    def __init__(
        self,
        room: rtc.Room,
        meeting_id: str,
        resources: WorkerResources,
        *,
        audio: AudioInput,
        series_id: str | None = None,
        title: str | None = None,
        timezone: str | None = None,
        stt_factory: Callable[[], SpeechToText] | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.room = room
        self.meeting_id = meeting_id
        self.series_id = series_id or meeting_id
        self.title = title or meeting_id
        self.timezone = timezone  # what the room names; None keeps the stored one (or the setting)
        self.resources = resources
        self._audio = audio
        self._stt_factory = stt_factory or resources.stt_factory
        self._clock = clock
        self._stack = AsyncExitStack()
        self._transcribers: dict[str, ParticipantTranscriber] = {}
        self._participants: dict[str, Participant] = {}
        self._ingest: asyncio.Queue[NewUtterance | None] = asyncio.Queue()
        self._ingest_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[object]] = set()
        self._leaving: set[asyncio.Task[None]] = set()
        self._closed = False
        self.attached: AttachedMeeting | None = None
        self.manager: ContextManager | None = None
        self.builder: ContextBuilder | None = None
        self.calls: AgentCalls | None = None
        self.meeting_start: datetime | None = None
        self.restored_seq = 0
        self.watch: DecisionWatch | None = None
        self._llm = None
        self.progress = MeetingProgress(meeting_id, resources.worker.stall_seconds)  # the watchdog reads it
        self.warmed = asyncio.Event()  # the series' past meetings and this meeting's turns are indexed
        self.warm_loads: int | None = None  # past meetings the warm-up loaded (None: not yet)

    # ------------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        config = self.resources
        attached = await self._stack.enter_async_context(attach_meeting(
            config.database_url, self.meeting_id, title=self.title, series_id=self.series_id,
            timezone=self.timezone, config=config.database))
        self.attached = attached
        llm = self._llm = create_llm_client(config.llm)
        if llm is not None:
            self._stack.push_async_callback(llm.aclose)
        embedder = await attached.meeting_embedder(config.embedder)
        self.manager = create_context_manager(self.meeting_id, attached.repository,
                                              config=config.context, llm=llm, embedder=embedder)
        self.restored_seq = await self.manager.restore_from_db()
        self.meeting_start = await self._meeting_start()
        for participant in await attached.repository.inner.list_participants(self.meeting_id):
            self._participants[participant.user_id] = participant
        # The series' finished meetings, read through this meeting's own store connection
        # (a job's event loop cannot share another's); the disk cache makes that cheap.
        builder = self.builder = memory_builder(config.context, config.embedder, attached.repository.inner,
                                                documents=config.documents, progress=False)
        pipeline = AgentPipeline(builder, llm=llm, max_output_tokens=config.llm.max_output_tokens,
                                 recorder=attached.repository.inner, records=attached.repository.inner)
        info = await attached.repository.inner.meeting_info(self.meeting_id)
        session = MeetingSession(self.manager, attached.repository, builder.new_transcript_index(),
                                 series_id=self.series_id, started_at=info.started_at if info else None)
        self.calls = AgentCalls(self.room, session, pipeline, config.worker,
                                korean=config.stt.language == "ko")
        self.watch = DecisionWatch(attached.repository.inner, config.embedder, meeting_id=self.meeting_id,
                                   series_id=self.series_id,
                                   started_at=info.started_at if info else self.meeting_start,
                                   on_change=self._post_change_notice, llm=llm)
        try:
            await self.watch.start()
        except Exception as exc:  # noqa: BLE001 - the meeting goes on; only change notices are off
            logger.warning("decision_watch_unavailable", meeting_id=self.meeting_id,
                           error=f"{type(exc).__name__}: {exc}")
            self.watch = None
        self._ingest_task = asyncio.create_task(self._ingest_loop(), name="ingest")
        self._spawn(self._warm(session), stage="warm")
        self._spawn(self.progress.heartbeat(), stage="stalled")
        WATCHDOG.watch(self.progress)
        self._listen()
        logger.info("meeting_bot_started", meeting_id=self.meeting_id,
                    restored_seq=self.restored_seq, participants=len(self.room.remote_participants))

    def _listen(self) -> None:
        self.room.on("participant_connected", self._on_participant_connected)
        self.room.on("participant_disconnected", self._on_participant_disconnected)
        self.room.register_text_stream_handler(TOPIC_CHAT, self._on_chat)
        self.room.local_participant.register_rpc_method(RPC_METHOD, self.calls.on_rpc)
        for participant in list(self.room.remote_participants.values()):
            self._on_participant_connected(participant)

    async def aclose(self) -> None:
        """Drain the STT streams, store every transcript, answer nothing more, flush the
        store and release the lease. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        WATCHDOG.forget(self.progress)
        self.room.off("participant_connected", self._on_participant_connected)
        self.room.off("participant_disconnected", self._on_participant_disconnected)
        with contextlib.suppress(Exception):
            self.room.unregister_text_stream_handler(TOPIC_CHAT)
        with contextlib.suppress(Exception):
            self.room.local_participant.unregister_rpc_method(RPC_METHOD)
        staying = list(self._transcribers.values())
        self._transcribers.clear()
        await asyncio.gather(*(self._finish_participant(t) for t in staying),
                             *self._leaving, return_exceptions=True)
        if self._ingest_task is not None:
            await self._ingest.put(None)
            await self._ingest_task
        if self.calls is not None:
            await self.calls.aclose()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        if self.manager is not None:
            await self.manager.finalize()
            await self._end_meeting()
        await self._stack.aclose()
        logger.info("meeting_bot_closed", meeting_id=self.meeting_id,
                    last_seq=self.manager.last_seq if self.manager else 0)

    async def _end_meeting(self) -> None:
        """The meeting is over (the room closed, or the job shut down): stored, it joins its
        series' memory. A crash never gets here, so a crashed meeting is not ended and the
        next job for the same room session continues it."""
        assert self.attached is not None
        try:
            await self.attached.repository.drain()
            await record_meeting(self.attached.repository.inner, self.meeting_id, llm=self._llm)
            await self.attached.repository.inner.end_meeting(self.meeting_id)
            logger.info("meeting_ended", meeting_id=self.meeting_id, series_id=self.series_id)
        except Exception as exc:  # noqa: BLE001 - everything is stored; only the end mark is missing
            logger.warning("meeting_end_not_recorded", meeting_id=self.meeting_id,
                           error=f"{type(exc).__name__}: {exc}")
        minutes = await close_minutes(self.attached.repository.inner, self.meeting_id, llm=self._llm)
        if minutes is not None:
            await self._post_minutes(minutes)

    async def _post_minutes(self, minutes: Minutes) -> None:
        """The minutes' short version in the room chat before the bot leaves, with the page's
        link when a public base URL is set."""
        text = to_chat(minutes, limit_chars=self.resources.worker.chat_max_chars,
                       page_url=self.resources.public.meeting_page(self.meeting_id))
        try:
            await self.room.local_participant.send_text(text, topic=TOPIC_CHAT)
        except Exception as exc:  # noqa: BLE001 - the minutes are stored; the room just misses the message
            logger.warning("minutes_chat_failed", meeting_id=self.meeting_id, error=f"{type(exc).__name__}: {exc}")

    async def _meeting_start(self) -> datetime:
        """Where start_ms/end_ms count from: the first stored turn's meeting clock, so a
        restored meeting keeps one time line; now for a new meeting."""
        assert self.attached is not None
        first = await self.attached.repository.inner.get_utterances(self.meeting_id, limit=1)
        if first:
            return first[0].absolute_timestamp - timedelta(milliseconds=first[0].start_ms)
        return self._clock()

    # ------------------------------------------------------------------ participants

    def _on_participant_connected(self, participant: rtc.RemoteParticipant) -> None:
        if self._closed or participant.identity in self._transcribers:
            return
        if participant.kind == rtc.ParticipantKind.PARTICIPANT_KIND_AGENT:
            return  # other bots (and ourselves) are not meeting speakers
        transcriber = ParticipantTranscriber(
            participant, audio=self._audio, stt_factory=self._stt_factory,
            on_transcript=self._on_transcript, provider=self.resources.stt_provider_label)
        self._transcribers[participant.identity] = transcriber
        transcriber.start()
        participant_joined()
        self._spawn(self._save_participant(participant, joined=True))
        logger.info("participant_joined", meeting_id=self.meeting_id, speaker_id=participant.identity)

    def _on_participant_disconnected(self, participant: rtc.RemoteParticipant) -> None:
        if self._closed:
            return
        # Forget the stream now, so a quick reconnect gets a fresh one while this one drains.
        transcriber = self._transcribers.pop(participant.identity, None)
        if transcriber is None:
            return  # left before we ever saw them, or a bot
        task = asyncio.create_task(self._finish_participant(transcriber))
        self._leaving.add(task)
        task.add_done_callback(self._leaving.discard)

    async def _finish_participant(self, transcriber: ParticipantTranscriber) -> None:
        """Drain the stream (its last words are stored), then record the leave."""
        await transcriber.stop(STOP_STREAM_SECONDS)
        participant_left()
        if transcriber.identity not in self._transcribers:  # not back in the meantime
            await self._save_participant(transcriber.participant, joined=False)
        logger.info("participant_left", meeting_id=self.meeting_id, speaker_id=transcriber.identity)

    async def _save_participant(self, participant: rtc.RemoteParticipant, *, joined: bool) -> None:
        now = self._clock()
        known = self._participants.get(participant.identity)
        record = Participant(
            user_id=participant.identity,
            name=participant.name or participant.identity,
            role=known.role if known else None,
            joined_at=(known.joined_at if known and known.joined_at else now),
            left_at=None if joined else now,
        )
        self._participants[participant.identity] = record
        assert self.attached is not None
        try:
            await self.attached.repository.inner.upsert_participant(self.meeting_id, record)
        except Exception as exc:  # noqa: BLE001 - attendance is kept in memory and saved next time
            logger.warning("participant_save_failed", meeting_id=self.meeting_id,
                           speaker_id=participant.identity, error=f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ speech

    async def _on_transcript(self, transcript: Transcript) -> None:
        if self.resources.worker.captions:
            await self._publish_caption(transcript)
        if not transcript.final:
            return
        utterance = self._utterance(transcript)
        if utterance is not None:
            self._ingest.put_nowait(utterance)
        assert self.calls is not None
        self.calls.on_speech(transcript)

    def _utterance(self, transcript: Transcript) -> NewUtterance | None:
        assert self.meeting_start is not None
        start_ms = max(int((transcript.started_at - self.meeting_start).total_seconds() * 1000), 0)
        end_ms = max(int((transcript.ended_at - self.meeting_start).total_seconds() * 1000), start_ms)
        try:
            return NewUtterance(
                speaker_id=transcript.speaker_id[:200],
                speaker_name=transcript.speaker_name[:200],
                text=transcript.text,
                start_ms=start_ms,
                end_ms=end_ms,
                confidence=transcript.confidence,
                absolute_timestamp=transcript.started_at,
            )
        except ValidationError as exc:
            logger.warning("transcript_rejected", meeting_id=self.meeting_id,
                           speaker_id=transcript.speaker_id, error=str(exc.errors()[0]["msg"]))
            return None

    async def _ingest_loop(self) -> None:
        """The single writer of the meeting memory: transcripts in arrival order."""
        assert self.manager is not None and self.attached is not None
        while (utterance := await self._ingest.get()) is not None:
            while True:
                try:
                    self.progress.writing_since = time.monotonic()
                    stored = await self.manager.add_utterance(utterance)
                    self.progress.writing_since = None
                    await self._check_decisions(stored)
                    break
                except BackPressureError as exc:  # the database is down and the queue is full
                    logger.warning("ingest_waiting_for_database", meeting_id=self.meeting_id,
                                   error=str(exc))
                    await self.attached.repository.drain()
                except Exception as exc:  # noqa: BLE001 - never lose the rest of the meeting
                    record_meeting_error("ingest")
                    logger.error("ingest_failed", meeting_id=self.meeting_id,
                                 speaker_id=utterance.speaker_id, error=f"{type(exc).__name__}: {exc}")
                    break
                finally:
                    self.progress.writing_since = None

    async def _check_decisions(self, stored: list) -> None:
        if self.watch is None:
            return
        try:
            await self.watch.observe(stored)
        except Exception as exc:  # noqa: BLE001 - the utterance is stored; only the check is lost
            record_meeting_error("decision_check")
            logger.warning("decision_check_failed", meeting_id=self.meeting_id,
                           error=f"{type(exc).__name__}: {exc}")

    async def _post_change_notice(self, change: DecisionChange, _decision: Decision, notice: str) -> None:
        """Tell the room, with both quotes, that a past decision was just changed."""
        try:
            await self.room.local_participant.send_text(notice, topic=TOPIC_CHAT)
        except Exception as exc:  # noqa: BLE001 - the change is stored and counted anyway
            logger.warning("change_notice_failed", meeting_id=self.meeting_id, seq=change.seq,
                           error=f"{type(exc).__name__}: {exc}")

    async def _publish_caption(self, transcript: Transcript) -> None:
        """Live captions on lk.transcription, attributed to the speaker's microphone track,
        as LiveKit front ends expect."""
        attributes = {
            ATTRIBUTE_TRANSCRIPTION_FINAL: "true" if transcript.final else "false",
            ATTRIBUTE_TRANSCRIPTION_SEGMENT_ID: transcript.segment_id,
        }
        if transcript.track_sid:
            attributes[ATTRIBUTE_TRANSCRIPTION_TRACK_ID] = transcript.track_sid
        try:
            writer = await self.room.local_participant.stream_text(
                topic=TOPIC_TRANSCRIPTION, sender_identity=transcript.speaker_id,
                attributes=attributes)
            await writer.write(transcript.text)
            await writer.aclose()
        except Exception as exc:  # noqa: BLE001 - captions are best effort; the transcript is stored
            record_meeting_error("caption")
            logger.warning("caption_publish_failed", meeting_id=self.meeting_id,
                           error=f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ chat

    def _on_chat(self, reader: rtc.TextStreamReader, participant_identity: str) -> None:
        if self._closed or self.calls is None:
            return
        self._spawn(self.calls.on_chat(reader, participant_identity), stage="chat")

    def _spawn(self, coroutine: object, *, stage: str = "ingest") -> None:
        """A task of this meeting; its failure is logged and counted under `stage`, and
        touches nothing else."""
        task = asyncio.create_task(coroutine)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(lambda done: self._task_done(done, stage))

    def _task_done(self, task: asyncio.Task[object], stage: str) -> None:
        if task.cancelled() or task.exception() is None:
            return
        exc = task.exception()
        record_meeting_error(stage)
        logger.error("meeting_task_failed", meeting_id=self.meeting_id, stage=stage,
                     error=f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ warm-up

    async def _warm(self, session: MeetingSession) -> None:
        """Load what the first agent call would otherwise load: the series' finished meetings
        (OrganisationMemory.sync) and the index of this meeting's stored turns. In the
        background, so the first utterance is not held up."""
        started = time.perf_counter()
        past = self.builder.past
        self.warm_loads = await past.sync(force=True) if past is not None else 0
        await session.sync_transcript()
        self.warmed.set()
        logger.info("meeting_warmed", meeting_id=self.meeting_id, past_meetings=self.warm_loads,
                    seconds=round(time.perf_counter() - started, 3))

    @property
    def participants(self) -> dict[str, Participant]:
        return dict(self._participants)
