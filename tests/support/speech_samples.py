"""Spoken test audio: English WAVs made with espeak-ng at test time (22,050 Hz mono)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest


def require_espeak() -> str:
    path = shutil.which("espeak-ng")
    if path is None:
        pytest.skip("espeak-ng is not installed (apt-get install espeak-ng; .ci/run does)")
    return path


def espeak_wav(text: str, path: Path, *, voice: str = "en-us", words_per_minute: int = 150) -> Path:
    """Speak `text` into `path` (16-bit PCM WAV)."""
    subprocess.run([require_espeak(), "-v", voice, "-s", str(words_per_minute), "-w", str(path), text],
                   check=True, capture_output=True, timeout=60)
    return path
