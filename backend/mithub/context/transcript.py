"""Transcript files (JSONL) turned into NewUtterances with absolute UTC timestamps.

A line is `{"speaker_id","speaker_name","text","start_ms","end_ms"}`; `{"speaker","text"}`
alone is accepted too (timings are then estimated from the text length).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

from pydantic import BaseModel, Field, model_validator

from mithub.context.models import NewUtterance
from mithub.jsonl import LineErrors, iter_models
from mithub.text import has_hangul

DEFAULT_MEETING_START = datetime(2026, 1, 1, 9, 0, tzinfo=timezone.utc)


class TranscriptLine(BaseModel):
    speaker_id: str | None = Field(None, max_length=200)
    speaker_name: str | None = Field(None, max_length=200)
    speaker: str | None = Field(None, max_length=200)
    text: str
    start_ms: int | None = Field(None, ge=0)
    end_ms: int | None = Field(None, ge=0)
    confidence: float = Field(1.0, ge=0, le=1)

    @model_validator(mode="after")
    def _needs_speaker_and_text(self) -> "TranscriptLine":
        if not (self.speaker_id or self.speaker_name or self.speaker):
            raise ValueError("needs speaker_id, speaker_name or speaker")
        if not self.text.strip():
            raise ValueError("text is blank")
        if self.start_ms is not None and self.end_ms is not None and self.end_ms < self.start_ms:
            raise ValueError("end_ms is before start_ms")
        return self


def _estimated_ms(text: str) -> int:
    """Speaking time: ~6 Korean syllables or ~15 English characters per second."""
    return max(800, int(len(text) * (170 if has_hangul(text) else 65)))


def read_transcript(
    path: Path, errors: LineErrors, *, meeting_start: datetime = DEFAULT_MEETING_START
) -> Iterator[tuple[int, NewUtterance]]:
    """(line number, utterance) for each valid line; invalid lines go to `errors`."""
    clock_ms = 0
    for number, line in iter_models(path, TranscriptLine, errors):
        speaker_id = line.speaker_id or line.speaker or line.speaker_name or ""
        name = line.speaker_name or line.speaker or speaker_id
        start = line.start_ms if line.start_ms is not None else clock_ms
        end = line.end_ms if line.end_ms is not None else start + _estimated_ms(line.text)
        clock_ms = max(clock_ms, end + 300)
        yield number, NewUtterance(
            speaker_id=speaker_id,
            speaker_name=name,
            text=line.text,
            start_ms=start,
            end_ms=max(end, start),
            confidence=line.confidence,
            absolute_timestamp=meeting_start + timedelta(milliseconds=start),
        )
