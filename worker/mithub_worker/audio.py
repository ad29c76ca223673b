"""Audio frames for the worker's tests, benchmarks and bot: 16-bit PCM WAV files cut into
`rtc.AudioFrame` chunks, silence, and the duration of a list of frames."""

from __future__ import annotations

import wave
from collections.abc import Sequence
from pathlib import Path

from livekit import rtc

from mithub.errors import InputError

FRAME_MS = 20


def read_wav_frames(path: str | Path, *, frame_ms: int = FRAME_MS) -> list[rtc.AudioFrame]:
    """A 16-bit PCM WAV file as frames of `frame_ms` at the file's own sample rate and channel
    count (the last frame may be shorter)."""
    try:
        with wave.open(str(path), "rb") as wav:
            if wav.getsampwidth() != 2:
                raise InputError(
                    f"{8 * wav.getsampwidth()}-bit samples; convert the file to 16-bit PCM",
                    source=path,
                )
            rate, channels = wav.getframerate(), wav.getnchannels()
            pcm = wav.readframes(wav.getnframes())
    except (wave.Error, EOFError) as exc:
        raise InputError(f"not a PCM WAV file ({exc})", source=path) from exc
    return pcm_frames(pcm, sample_rate=rate, num_channels=channels, frame_ms=frame_ms)


def pcm_frames(
    pcm: bytes, *, sample_rate: int, num_channels: int = 1, frame_ms: int = FRAME_MS
) -> list[rtc.AudioFrame]:
    """Interleaved 16-bit PCM bytes as frames of `frame_ms` (the last one may be shorter)."""
    bytes_per_sample = 2 * num_channels
    step = sample_rate * frame_ms // 1000 * bytes_per_sample
    frames = []
    for start in range(0, len(pcm) - len(pcm) % bytes_per_sample, step):
        chunk = pcm[start : start + step]
        frames.append(
            rtc.AudioFrame(
                data=chunk,
                sample_rate=sample_rate,
                num_channels=num_channels,
                samples_per_channel=len(chunk) // bytes_per_sample,
            )
        )
    return frames


def resample_frames(frames: Sequence[rtc.AudioFrame], sample_rate: int) -> list[rtc.AudioFrame]:
    """The frames at `sample_rate` through livekit's high-quality resampler (the output frames
    come in the resampler's own sizes; `pcm_frames` re-cuts them)."""
    if not frames or frames[0].sample_rate == sample_rate:
        return list(frames)
    first = frames[0]
    resampler = rtc.AudioResampler(first.sample_rate, sample_rate, num_channels=first.num_channels,
                                   quality=rtc.AudioResamplerQuality.HIGH)
    out = [part for frame in frames for part in resampler.push(frame)]
    return out + list(resampler.flush())


def silence_frames(
    seconds: float, *, sample_rate: int = 16000, num_channels: int = 1, frame_ms: int = FRAME_MS
) -> list[rtc.AudioFrame]:
    """`seconds` of digital silence as frames of `frame_ms`."""
    samples = round(seconds * sample_rate)
    return pcm_frames(
        b"\x00\x00" * samples * num_channels,
        sample_rate=sample_rate,
        num_channels=num_channels,
        frame_ms=frame_ms,
    )


def frames_duration(frames: Sequence[rtc.AudioFrame]) -> float:
    """Total duration of the frames, in seconds."""
    return sum(frame.samples_per_channel / frame.sample_rate for frame in frames)
