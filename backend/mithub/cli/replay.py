"""`mithub replay MEETING.jsonl`: feed a transcript through the live pipeline as if spoken."""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="replay a transcript through the meeting memory and print topics and summaries",
        description="Feeds each line of MEETING.jsonl to the ContextManager as a live utterance "
        "(lines: {speaker_id, speaker_name, text, start_ms, end_ms}, or {speaker, text}). "
        "Malformed lines are reported with their line number and skipped.",
    )
    parser.add_argument("transcript", type=Path, help="JSONL transcript file")
    parser.add_argument("--meeting-id", help="meeting id (default: the file name)")
    parser.add_argument("--start", type=datetime.fromisoformat, default=None,
                        help="meeting start as ISO time with zone (default 2026-01-01T09:00Z)")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    return asyncio.run(_replay(args))


async def _replay(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from mithub.clock import ManualClock
    from mithub.context.factory import create_context_manager
    from mithub.context.report import meeting_report, render_report, report_json
    from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript
    from mithub.errors import InputError
    from mithub.jsonl import LineErrors
    from mithub.llm.factory import create_llm_client
    from mithub.store.memory import InMemoryRepository

    start = args.start or DEFAULT_MEETING_START
    if start.tzinfo is None:
        raise InputError("--start needs a time zone, e.g. 2026-03-02T14:00+09:00")
    meeting_id = args.meeting_id or args.transcript.stem
    errors = LineErrors(report=lambda e: print(f"warning: {e}", file=sys.stderr))
    clock = ManualClock(start)
    llm = create_llm_client()
    manager = create_context_manager(meeting_id, InMemoryRepository(), clock=clock, llm=llm)

    total = sum(1 for _ in args.transcript.open(encoding="utf-8", errors="replace")) if args.transcript.is_file() else 0
    progress = tqdm(total=total, unit="utt", desc=f"replay {meeting_id}", file=sys.stderr,
                    disable=args.no_progress or args.json and not sys.stderr.isatty())
    for _, utterance in read_transcript(args.transcript, errors, meeting_start=start):
        clock.set(utterance.absolute_timestamp)
        await manager.add_utterance(utterance)
        progress.update(1)
    progress.close()
    await manager.finalize()

    if manager.last_seq == 0:
        raise InputError("no valid utterance in the file; see the warnings above", source=args.transcript)
    report = meeting_report(manager)
    if args.json:
        print(report_json(report))
    else:
        mode = "LLM summaries" if any(t["summary_mode"] == "llm" for t in report["topics"]) else \
            "LLM-free mode: extractive summaries"
        print(render_report(report, mode=mode))
    if errors:
        print(f"{len(errors)} malformed line(s) skipped", file=sys.stderr)
    return 0
