"""`mithub replay MEETING.jsonl`: feed a transcript through the live pipeline as if spoken.

Without a database the meeting lives in memory. With `--database-url` (or DATABASE_URL) it
is persisted as it goes, and running the same command again after a crash resumes after
the last stored utterance (see `mithub.store.resume`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mithub.context.manager import ContextManager
    from mithub.context.repository import MeetingRepository
    from mithub.embedders import Embedder


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
    parser.add_argument("--started-at", "--start", dest="start", type=datetime.fromisoformat,
                        default=None, metavar="ISO8601",
                        help="meeting start as ISO time with zone (default 2026-01-01T09:00Z); its "
                        "offset is the meeting's time zone, else MEETING_TIMEZONE; utterance times are "
                        "this plus each line's start_ms")
    parser.add_argument("--series", default=None,
                        help="the series (recurring meeting) this meeting belongs to; its "
                        "finished meetings are searched by the agent calls (default: its own)")
    parser.add_argument("--title", default=None, help="meeting title (default: the file name)")
    parser.add_argument("--database-url", nargs="?", const="", default=None, metavar="URL",
                        help="persist the meeting; rerun after a crash to resume. Without URL: "
                        "DATABASE_URL, else the embedded sqlite+aiosqlite:///./data/mithub.db. "
                        "Default: DATABASE_URL if set, else in memory only")
    parser.add_argument("--json", action="store_true", help="print the final state as JSON")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--calls", action="store_true",
                        help="then run the four agent calls (IMMEDIATE_RESPONSE, SUMMARY, "
                        "ACTION_EXTRACTION, SEARCH) and print the answers with citations")
    parser.add_argument("--question", default="Q3 클라우드 예산은 얼마로 확정했나요?",
                        help="question for the IMMEDIATE_RESPONSE and SEARCH calls of --calls")
    parser.add_argument("--metrics-port", type=int, default=None, metavar="PORT",
                        help="serve Prometheus /metrics on this port while the replay runs")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.metrics_port is None:
        return asyncio.run(_replay(args))
    from mithub.observability import start_metrics_server

    server = start_metrics_server(args.metrics_port)
    print(f"metrics on http://127.0.0.1:{server.server_port}/metrics", file=sys.stderr)
    try:
        return asyncio.run(_replay(args))
    finally:
        server.shutdown()
        server.server_close()


def _database_url(flag: str | None) -> str | None:
    """None keeps the meeting in memory: only an explicit flag or DATABASE_URL persists."""
    from mithub.config import get_database_config

    config = get_database_config()
    if flag is None:
        return config.url if "url" in config.model_fields_set else None
    return flag or config.url


async def _replay(args: argparse.Namespace) -> int:
    from mithub.errors import InputError
    from mithub.store.memory import InMemoryRepository

    from mithub.clock import display_zone, meeting_timezone

    if args.start is not None and args.start.tzinfo is None:
        raise InputError("--start needs a time zone, e.g. 2026-03-02T14:00+09:00")
    zone = meeting_timezone(args.start)  # its offset, else MEETING_TIMEZONE
    start = (args.start or _default_start()).astimezone(display_zone(zone))
    meeting_id = args.meeting_id or args.transcript.stem
    if not args.transcript.is_file():
        raise InputError("file not found; check the path", source=args.transcript)
    _require_utterances(args.transcript)
    url = _database_url(args.database_url)
    if url is None:
        memory = InMemoryRepository()
        await memory.ensure_meeting(meeting_id, title=args.title or args.transcript.name,
                                    series_id=args.series, started_at=start, timezone=zone)
        return await _run(args, meeting_id, start, memory, persisted=False, catalog=memory)

    from mithub.config import get_context_config
    from mithub.embedders import load_embedder
    from mithub.minutes.delivery import close_deliveries
    from mithub.store.session import attach_meeting

    async with attach_meeting(url, meeting_id, title=args.title or args.transcript.name,
                              series_id=args.series, started_at=start, timezone=zone) as attached:
        model = load_embedder(get_context_config().embedding_model)
        code = await _run(args, meeting_id, start, attached.repository, persisted=True,
                          embedder=await attached.meeting_embedder(model), catalog=attached.repository.inner)
        await attached.repository.drain()
        await _record(attached.repository.inner, meeting_id)
        # The end of its file ends the meeting: it joins its series' memory.
        last = await attached.repository.inner.get_last_utterances(meeting_id, 1)
        ended = last[0].absolute_timestamp + timedelta(milliseconds=last[0].end_ms - last[0].start_ms) \
            if last else None
        await attached.repository.inner.end_meeting(meeting_id, at=ended)
        await _minutes(attached.repository.inner, meeting_id)
        await close_deliveries()  # the webhook's first attempt: at most MINUTES_WEBHOOK_SHUTDOWN_WAIT_SECONDS
        return code


def _require_utterances(path: Path) -> None:
    """Fail before any model loads or any meeting is stored when the file holds no valid turn,
    saying whether it is empty or every line was malformed (those are printed then)."""
    from mithub.context.transcript import read_transcript
    from mithub.errors import InputError
    from mithub.jsonl import LineErrors, nothing_read

    errors = LineErrors()
    if next(read_transcript(path, errors), None) is not None:
        return  # the replay reads the file again and reports its malformed lines as it goes
    for error in errors.errors:
        print(f"warning: {error}", file=sys.stderr)
    raise InputError(nothing_read(errors, "utterance"), source=path)


async def _record(store: Any, meeting_id: str) -> None:
    """The meeting's record (decisions, action items) into the series ledger, after every
    write is stored; a failure is reported, the transcript is safe and the record can be
    made again by replaying the same file."""
    from mithub.agent.decision_watch import record_meeting
    from mithub.llm.factory import create_llm_client

    llm = create_llm_client()
    try:
        await record_meeting(store, meeting_id, llm=llm)
    except Exception as exc:  # noqa: BLE001 - everything said is stored already
        print(f"warning: the meeting's record was not stored ({type(exc).__name__}: {exc}); "
              "rerun the same replay to store it", file=sys.stderr)
    finally:
        if llm is not None:
            await llm.aclose()


async def _minutes(store: Any, meeting_id: str) -> None:
    """The ended meeting's minutes, composed from its record and stored (`mithub minutes ID`
    prints them); a failure is logged and reported, the meeting stays ended and stored."""
    from mithub.llm.factory import create_llm_client
    from mithub.minutes.closing import close_minutes

    llm = create_llm_client()
    try:
        if await close_minutes(store, meeting_id, llm=llm) is None:
            print(f"warning: no minutes stored for {meeting_id} (see the log); `mithub minutes {meeting_id}` "
                  "composes them from the stored record", file=sys.stderr)
    finally:
        if llm is not None:
            await llm.aclose()


def _default_start() -> datetime:
    from mithub.context.transcript import DEFAULT_MEETING_START

    return DEFAULT_MEETING_START


async def _run(
    args: argparse.Namespace, meeting_id: str, start: datetime, repository: MeetingRepository,
    *, persisted: bool, embedder: Embedder | None = None, catalog: Any = None,
) -> int:
    from mithub.clock import ManualClock
    from mithub.context.factory import create_context_manager
    from mithub.context.report import meeting_report, render_report, report_json
    from mithub.context.transcript import read_transcript
    from mithub.errors import InputError
    from mithub.jsonl import LineErrors, nothing_read
    from mithub.llm.factory import create_llm_client
    from mithub.store.resume import replay_pieces, resume_after

    errors = LineErrors(report=lambda e: print(f"warning: {e}", file=sys.stderr))
    clock = ManualClock(start)
    llm = create_llm_client()
    manager = create_context_manager(meeting_id, repository, clock=clock, llm=llm, embedder=embedder)
    pieces = replay_pieces(read_transcript(args.transcript, errors, meeting_start=start),
                           manager.config.utterance_max_tokens, manager.budget)
    if persisted and await manager.restore_from_db():
        last = (await repository.get_last_utterances(meeting_id, 1))[0]
        print(f"resuming meeting {meeting_id} after utterance {last.id}", file=sys.stderr)
        pieces = resume_after(pieces, last, meeting_id=meeting_id, source=args.transcript)
    watch = await _decision_watch(args, meeting_id, start, catalog, embedder, llm)
    await _feed(args, manager, repository, pieces, clock, watch)
    await manager.finalize()
    if not persisted:  # a stored meeting gets its record once every write is in (see _replay)
        from mithub.agent.decision_watch import record_meeting

        await record_meeting(catalog, meeting_id, llm=llm)
        await _minutes(catalog, meeting_id)

    if manager.last_seq == 0:
        raise InputError(nothing_read(errors, "utterance"), source=args.transcript)
    report = meeting_report(manager)
    if args.json:
        print(report_json(report))
    else:
        mode = "LLM summaries" if any(t["summary_mode"] == "llm" for t in report["topics"]) else \
            "LLM-free mode: extractive summaries"
        print(render_report(report, mode=mode))
    if errors:
        print(f"{len(errors)} malformed line(s) skipped", file=sys.stderr)
    if args.calls:
        await _agent_calls(manager, repository, llm, args.question, as_json=args.json,
                           catalog=catalog, series_id=args.series or meeting_id, started_at=start)
    return 0


async def _agent_calls(manager: ContextManager, repository: MeetingRepository, llm: Any,
                       question: str, *, as_json: bool, catalog: Any, series_id: str,
                       started_at: datetime) -> None:
    """The four call types on the replayed meeting, as a participant would see them; with a
    store, IMMEDIATE_RESPONSE and SEARCH also search the series' finished meetings."""
    import json

    from mithub.agent import AgentPipeline, MeetingSession
    from mithub.agent.runtime import memory_builder
    from mithub.config import get_llm_config
    from mithub.context.models import AGENT_CALL_TYPES
    from mithub.embedders import load_embedder

    builder = memory_builder(manager.config, load_embedder(manager.config.embedding_model), catalog)
    pipeline = AgentPipeline(builder, llm=llm, max_output_tokens=get_llm_config().max_output_tokens,
                             records=catalog)
    session = MeetingSession(manager, repository, builder.new_transcript_index(), series_id=series_id,
                             started_at=started_at)
    for call_type in AGENT_CALL_TYPES:
        query = question if call_type in ("IMMEDIATE_RESPONSE", "SEARCH") else None
        answer = await pipeline.call(session, call_type, query, source="cli")
        if as_json:
            print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False))
            continue
        title = f"{call_type}" + (f": {query}" if query else "")
        print(f"\n=== {title} ({answer.context_tokens} context tokens, {answer.latency_ms:.0f} ms)")
        print(answer.render_text())


async def _decision_watch(args: argparse.Namespace, meeting_id: str, start: datetime, catalog: Any,
                          embedder: Any, llm: Any) -> Any:
    """Checks each line against the active decisions of the series' earlier meetings and
    prints a notice when one is changed, as the bot posts it in the room."""
    from mithub.agent.decision_watch import DecisionWatch
    from mithub.embedders import load_embedder

    async def announce(_change: Any, _decision: Any, notice: str) -> None:
        if not args.json:
            print(f"\n{notice}\n", flush=True)

    watch = DecisionWatch(catalog, embedder or load_embedder(), meeting_id=meeting_id,
                          series_id=args.series or meeting_id, started_at=start, on_change=announce,
                          llm=llm)
    await watch.start()
    return watch


async def _feed(
    args: argparse.Namespace, manager: ContextManager, repository: Any, pieces: Any, clock: Any,
    watch: Any = None,
) -> None:
    from tqdm import tqdm

    from mithub.errors import BackPressureError

    with args.transcript.open(encoding="utf-8", errors="replace") as handle:
        total = sum(1 for _ in handle)
    progress = tqdm(total=total, unit="line", desc=f"replay {manager.meeting_id}", file=sys.stderr,
                    disable=True if args.no_progress else None)  # None: off unless a terminal
    for piece in pieces:
        clock.set(piece.line_timestamp)
        while True:
            try:
                stored = await manager.add_utterance(piece.utterance)
                break
            except BackPressureError as exc:  # the database is down and the queue is full
                print(f"warning: {exc}; waiting for the database", file=sys.stderr)
                await repository.drain()
        if watch is not None:
            await watch.observe(stored)
        progress.update(piece.line - progress.n)
    progress.close()
