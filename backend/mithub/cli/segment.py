"""`mithub segment --batch MEETINGS.jsonl`: topic boundaries of whole meetings, offline.

Each meeting runs through the same online TopicDetector and ContextConfig the live
ContextManager uses (`detect_boundaries`), so the output is what a live meeting would get.
The file holds one meeting a line, or is a transcript (one turn a line, the format `mithub
replay` reads): then it is one meeting, named after the file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from mithub.context.models import Utterance
    from mithub.jsonl import LineErrors

# Turns of a batch file carry no times; consecutive turns are this far apart.
SYNTHETIC_TURN_SECONDS = 5

EXPECTED_FORMATS = (
    'one meeting a line, {"meeting_id": ..., "turns": [{"speaker": ..., "text": ...}, ...]}, '
    'or a transcript, one turn a line, {"speaker": ..., "text": ...} (as `mithub replay` reads)'
)


class SegmentationTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    speaker: str = ""
    text: str = ""


class SegmentationMeeting(BaseModel):
    """One line of a batch file (extra keys such as gold `boundaries` are ignored)."""

    model_config = ConfigDict(extra="ignore")

    meeting_id: str = Field(min_length=1)
    turns: list[SegmentationTurn]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "segment",
        help="find topic boundaries in whole meetings (batch)",
        description="Reads MEETINGS.jsonl, one meeting a line: "
        '{"meeting_id": ..., "turns": [{"speaker": ..., "text": ...}, ...]} (extra keys are '
        "ignored), or a transcript file, one turn a line (as `mithub replay` reads), as one "
        "meeting named after the file; writes one line per meeting: "
        '{"meeting_id": ..., "boundaries": [0-based indices of turns that start a new topic]}. '
        "The detector is the live one: the topic boundary model fitted on data (embedding shift, "
        "lexical cohesion, speakers, Korean/English cue phrases), plus the LLM check when "
        "LLM_BASE_URL is set (LLM-free otherwise). Malformed lines are reported "
        "with their line number and skipped.",
    )
    parser.add_argument("--batch", type=Path, required=True, metavar="MEETINGS.jsonl",
                        help="meetings to segment")
    parser.add_argument("--out", type=Path, help="output JSONL file (default: stdout)")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def utterances_from_turns(turns: Sequence[SegmentationTurn]) -> list[Utterance]:
    """Turns as utterances with seq = index + 1 and synthetic, evenly spaced timestamps."""
    from mithub.context.models import Utterance
    from mithub.context.transcript import DEFAULT_MEETING_START

    out = []
    for index, turn in enumerate(turns):
        speaker = turn.speaker.strip() or "unknown"
        out.append(Utterance(
            id=index + 1, speaker_id=speaker, speaker_name=speaker, text=turn.text,
            start_ms=index * SYNTHETIC_TURN_SECONDS * 1000,
            end_ms=(index + 1) * SYNTHETIC_TURN_SECONDS * 1000,
            absolute_timestamp=DEFAULT_MEETING_START + timedelta(seconds=index * SYNTHETIC_TURN_SECONDS),
        ))
    return out


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_segment(args))


def file_format(path: Path) -> str:
    """"batch" or "transcript", from the first JSON object line (before any model loads, so a
    wrong file fails at once). Raises InputError naming the expected formats."""
    from mithub.errors import InputError
    from mithub.jsonl import LineErrors, iter_json_lines

    for number, value in iter_json_lines(path, LineErrors()):
        if "turns" in value or "meeting_id" in value:
            return "batch"
        if "text" in value:
            return "transcript"
        raise InputError(f"line {number} is neither a meeting nor a turn; expected {EXPECTED_FORMATS}",
                         source=path)
    raise InputError(f"no JSON object in the file (empty?); expected {EXPECTED_FORMATS}", source=path)


def read_meetings(path: Path, errors: LineErrors) -> Iterator[SegmentationMeeting]:
    """The file's meetings: each valid batch line, or the whole transcript as one meeting."""
    from mithub.jsonl import iter_models

    if file_format(path) == "batch":
        for _line, meeting in iter_models(path, SegmentationMeeting, errors):
            yield meeting
        return
    from mithub.context.transcript import TranscriptLine

    turns = [SegmentationTurn(speaker=line.speaker_name or line.speaker or line.speaker_id or "",
                              text=line.text)
             for _line, line in iter_models(path, TranscriptLine, errors)]
    if turns:
        yield SegmentationMeeting(meeting_id=path.stem, turns=turns)


async def _segment(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from mithub.config import get_context_config
    from mithub.embedders import load_embedder
    from mithub.errors import InputError
    from mithub.jsonl import LineErrors, nothing_read
    from mithub.llm.factory import create_llm_client
    from mithub.topics.detector import TopicDetector, detect_boundaries

    errors = LineErrors(report=lambda e: tqdm.write(f"warning: {e}", file=sys.stderr))
    file_format(args.batch)  # a wrong or empty file fails before the models load
    config = get_context_config()
    embedder = load_embedder(config.embedding_model)
    llm = create_llm_client()
    meetings = read_meetings(args.batch, errors)
    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    processed = 0
    try:
        with tqdm(meetings, unit="meeting", desc="segment", file=sys.stderr,
                  disable=args.no_progress or None) as progress:
            for meeting in progress:
                detector = TopicDetector(config, embedder, llm)
                changes = await detect_boundaries(detector, utterances_from_turns(meeting.turns))
                boundaries = [change.boundary_seq - 1 for change in changes]
                out.write(json.dumps({"meeting_id": meeting.meeting_id, "boundaries": boundaries},
                                     ensure_ascii=False) + "\n")
                out.flush()
                processed += 1
    finally:
        if args.out:
            out.close()
    if errors:
        print(f"{len(errors)} malformed line(s) skipped", file=sys.stderr)
    if processed == 0:
        raise InputError(nothing_read(errors, "meeting"), source=args.batch)
    return 0
