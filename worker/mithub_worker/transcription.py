"""One participant's speech to final transcripts: microphone frames -> STT stream -> Transcript.

The frames come from an `AudioInput` (the room's microphone track in production; WAV files
in tests and benchmarks). Each participant gets its own stream, so a failing stream is
retried and logged without touching anyone else's.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

import structlog
from livekit import rtc
from livekit.agents import APIError, stt

from mithub.observability import record_meeting_error, record_stt_error

logger = structlog.get_logger(__name__)

MAX_STREAM_RESTARTS = 3
RESTART_DELAY_SECONDS = 1.0
INPUT_SAMPLE_RATE = 16000


class AudioInput(Protocol):
    """Where a participant's microphone audio comes from."""

    def frames(self, participant: rtc.RemoteParticipant) -> AsyncIterator[rtc.AudioFrame]: ...


class SpeechToText(Protocol):
    """The narrow part of livekit-agents' `stt.STT` the transcriber uses."""

    def stream(self) -> stt.RecognizeStream: ...


class RoomAudioInput:
    """The participant's microphone track as 16 kHz mono frames (waits for the track)."""

    async def frames(self, participant: rtc.RemoteParticipant) -> AsyncIterator[rtc.AudioFrame]:
        stream = rtc.AudioStream.from_participant(
            participant=participant,
            track_source=rtc.TrackSource.SOURCE_MICROPHONE,
            sample_rate=INPUT_SAMPLE_RATE,
            num_channels=1,
        )
        try:
            async for event in stream:
                yield event.frame
        finally:
            await stream.aclose()


@dataclass(frozen=True)
class Transcript:
    """A recognized piece of one participant's speech, with wall-clock (UTC) times."""

    speaker_id: str
    speaker_name: str
    text: str
    started_at: datetime
    ended_at: datetime
    confidence: float
    final: bool
    segment_id: str
    track_sid: str = ""


TranscriptHandler = Callable[[Transcript], Awaitable[None]]


def microphone_track_sid(participant: rtc.RemoteParticipant) -> str:
    for publication in participant.track_publications.values():
        if publication.source == rtc.TrackSource.SOURCE_MICROPHONE:
            return publication.sid
    return ""


class ParticipantTranscriber:
    """Runs one participant's STT stream until their audio ends or `stop()` is called."""

    def __init__(
        self,
        participant: rtc.RemoteParticipant,
        *,
        audio: AudioInput,
        stt_factory: Callable[[], SpeechToText],
        on_transcript: TranscriptHandler,
        provider: str,
    ) -> None:
        self.participant = participant
        self._audio = audio
        self._stt_factory = stt_factory
        self._on_transcript = on_transcript
        self._provider = provider
        self._segments = 0
        self._input_done = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def identity(self) -> str:
        return self.participant.identity

    @property
    def speaker_name(self) -> str:
        return self.participant.name or self.participant.identity

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name=f"transcribe-{self.identity}")

    async def stop(self, timeout: float) -> None:
        """End the audio input and wait up to `timeout` s for the last transcripts."""
        if self._task is None:
            return
        self._input_done.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout)
        except (TimeoutError, asyncio.CancelledError):
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            logger.warning("transcription_stop_timed_out", speaker_id=self.identity)

    async def wait(self) -> None:
        if self._task is not None:
            await self._task

    async def _run(self) -> None:
        for attempt in range(MAX_STREAM_RESTARTS + 1):
            try:
                await self._transcribe_once()
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - isolate this participant, retry, log
                if not isinstance(exc, APIError):  # the STT counted its own failure already
                    record_stt_error(self._provider)
                record_meeting_error("audio")  # this participant's stream only; the meeting goes on
                logger.error("transcription_stream_failed", speaker_id=self.identity,
                             attempt=attempt + 1, error=f"{type(exc).__name__}: {exc}")
                if self._input_done.is_set():
                    return
                await asyncio.sleep(RESTART_DELAY_SECONDS)
        logger.error("transcription_stream_abandoned", speaker_id=self.identity,
                     restarts=MAX_STREAM_RESTARTS)

    async def _transcribe_once(self) -> None:
        stream = self._stt_factory().stream()
        started = time.time()
        pump = asyncio.create_task(self._pump(stream), name=f"audio-{self.identity}")
        try:
            async for event in stream:
                transcript = self._transcript(event, started)
                if transcript is not None:
                    await self._on_transcript(transcript)
            await pump  # surfaces an audio input error
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
            await stream.aclose()

    async def _pump(self, stream: stt.RecognizeStream) -> None:
        """Frames into the STT stream until the audio ends or stop() is called."""
        frames = self._audio.frames(self.participant)
        done = asyncio.create_task(self._input_done.wait())
        try:
            while True:
                next_frame = asyncio.ensure_future(anext(frames))
                finished, _ = await asyncio.wait({next_frame, done}, return_when=asyncio.FIRST_COMPLETED)
                if next_frame not in finished:
                    next_frame.cancel()
                    with contextlib.suppress(asyncio.CancelledError, StopAsyncIteration):
                        await next_frame
                    break
                try:
                    stream.push_frame(next_frame.result())
                except StopAsyncIteration:
                    break
        finally:
            done.cancel()
            with contextlib.suppress(Exception):
                await frames.aclose()  # type: ignore[attr-defined]
            stream.end_input()

    def _transcript(self, event: stt.SpeechEvent, stream_started: float) -> Transcript | None:
        if event.type not in (stt.SpeechEventType.FINAL_TRANSCRIPT,
                              stt.SpeechEventType.INTERIM_TRANSCRIPT):
            return None
        if not event.alternatives or not event.alternatives[0].text.strip():
            return None
        final = event.type == stt.SpeechEventType.FINAL_TRANSCRIPT
        data = event.alternatives[0]
        started_at, ended_at = _speech_times(event, data, stream_started)
        segment_id = f"{self.identity}-{self._segments}"
        if final:
            self._segments += 1
        return Transcript(
            speaker_id=self.identity,
            speaker_name=self.speaker_name,
            text=data.text.strip(),
            started_at=started_at,
            ended_at=ended_at,
            confidence=min(max(float(data.confidence or 0.0), 0.0), 1.0),
            final=final,
            segment_id=segment_id,
            track_sid=microphone_track_sid(self.participant),
        )


def _speech_times(
    event: stt.SpeechEvent, data: stt.SpeechData, stream_started: float
) -> tuple[datetime, datetime]:
    """Wall-clock start and end of the speech. A VAD-segmented recognizer (StreamAdapter)
    reports when speech ended and the segment's own length; a streaming recognizer reports
    offsets from the start of its stream."""
    duration = max(data.end_time - data.start_time, 0.0)
    if event.speech_end_time is not None:
        end = event.speech_end_time
        start = end - duration
    elif data.end_time > 0:
        start = stream_started + data.start_time
        end = stream_started + data.end_time
    else:
        end = time.time()
        start = end - duration
    return _utc(start), _utc(max(end, start))


def _utc(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)
