"""Prepared audio played as participants' microphones, at real-time pace: the `AudioInput`
of the offline tests and the worker benchmark (no LiveKit server needed)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from livekit import rtc

from mithub_worker.audio import read_wav_frames, silence_frames

Script = Sequence["Path | float"]  # WAV files and seconds of silence, in order


class PlaybackAudioInput:
    """Each participant identity speaks its script: WAV paths and pauses (seconds). Silence
    takes the sample rate of the script's first WAV, so the stream keeps one format."""

    def __init__(self, scripts: dict[str, Script], *, speed: float = 1.0) -> None:
        self.scripts = dict(scripts)
        self.speed = speed
        self.finished: set[str] = set()

    def frames(self, participant: rtc.RemoteParticipant) -> AsyncIterator[rtc.AudioFrame]:
        return self._play(participant.identity)

    async def _play(self, identity: str) -> AsyncIterator[rtc.AudioFrame]:
        frames = script_frames(self.scripts.get(identity, ()))
        started = time.monotonic()
        played = 0.0
        for frame in frames:
            yield frame
            played += frame.samples_per_channel / frame.sample_rate
            ahead = played / self.speed - (time.monotonic() - started)
            if ahead > 0:
                await asyncio.sleep(ahead)
        self.finished.add(identity)


def script_frames(script: Script) -> list[rtc.AudioFrame]:
    wavs = [item for item in script if isinstance(item, (str, Path))]
    rate = read_wav_frames(wavs[0])[0].sample_rate if wavs else 16000
    frames: list[rtc.AudioFrame] = []
    for item in script:
        if isinstance(item, (str, Path)):
            frames += read_wav_frames(item)
        else:
            frames += silence_frames(float(item), sample_rate=rate)
    return frames
