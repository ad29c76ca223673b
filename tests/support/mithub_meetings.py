"""Meetings for the tests: the Korean sample meeting, repeated and varied to any length,
with a few over-long lines so oversize splitting is part of every replay."""

from __future__ import annotations

import json
from pathlib import Path

from mithub.budget import TokenBudgetManager
from mithub.config import ContextConfig
from mithub.context.models import NewUtterance
from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript
from mithub.jsonl import LineErrors
from mithub.store.resume import settled_pieces

SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "meetings" / "ko_product_planning.jsonl"


def sample_lines() -> list[NewUtterance]:
    return [
        u for _, u in read_transcript(SAMPLE, LineErrors(), meeting_start=DEFAULT_MEETING_START)
    ]


def varied_meeting(utterances: int) -> list[dict]:
    """Transcript lines whose replay stores exactly `utterances` utterances: the sample in
    rounds (later rounds marked and shifted in time), every 97th line a long monologue made
    of the next eight lines, which the replay splits into several utterances."""
    base = sample_lines()
    span = base[-1].end_ms + 5000
    budget, limit = TokenBudgetManager(), ContextConfig().utterance_max_tokens
    lines: list[dict] = []
    stored = 0
    i = 0
    while stored < utterances:
        line = base[i % len(base)]
        round_, shift = i // len(base), (i // len(base)) * span
        text = line.text if round_ == 0 else f"{line.text} ({round_ + 1}회차 확인)"
        if i % 97 == 96:
            text = " ".join(b.text for b in (base * 2)[i % len(base) : i % len(base) + 8]) * 3
        record = {
            "speaker_id": line.speaker_id,
            "speaker_name": line.speaker_name,
            "text": text,
            "start_ms": line.start_ms + shift,
            "end_ms": line.end_ms + shift,
        }
        probe = line.model_copy(update={"text": text})
        count = len(settled_pieces(probe, limit, budget))
        if stored + count > utterances:
            record["text"] = line.text  # a normal line fills the last slot exactly
            count = 1
        lines.append(record)
        stored += count
        i += 1
    return lines


def write_meeting(path: Path, lines: list[dict]) -> Path:
    path.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    return path


def sample_meeting_file(path: Path, *, lines: int, offset: int = 0) -> Path:
    """`lines` lines of the sample meeting, starting at line `offset`, as a transcript file."""
    picked = sample_lines()[offset : offset + lines]
    return write_meeting(
        path,
        [
            {
                "speaker_id": u.speaker_id,
                "speaker_name": u.speaker_name,
                "text": u.text,
                "start_ms": u.start_ms,
                "end_ms": u.end_ms,
            }
            for u in picked
        ],
    )
