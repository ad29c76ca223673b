"""`mithub meetings list|show`: what the store holds.

`show` restores the meeting exactly as a worker attaching now would (through a read-only
view, so it never writes) and prints the same report as `mithub replay`; `--json` is that
report alone, stable across runs of the same input, so two runs can be compared.
"""

from __future__ import annotations

import argparse
import asyncio
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("meetings", help="list stored meetings, show one")
    actions = parser.add_subparsers(dest="meetings_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="one line per stored meeting")
    show = actions.add_parser("show", help="topics, summaries, roles, current topic of a meeting")
    show.add_argument("meeting_id", metavar="ID")
    listing.add_argument("--series", metavar="S", help="only the meetings of this series")
    for action in (listing, show):
        action.add_argument(
            "--database-url",
            metavar="URL",
            help="default: DATABASE_URL, else sqlite+aiosqlite:///./data/mithub.db",
        )
        action.add_argument("--json", action="store_true", help="machine-readable output")
    listing.set_defaults(handler=lambda args: asyncio.run(_list(args)))
    show.set_defaults(handler=lambda args: asyncio.run(_show(args)))


async def _list(args: argparse.Namespace) -> int:
    from mithub.clock import stamp
    from mithub.store.open import open_database
    from mithub.store.sql import SqlRepository

    database = await open_database(args.database_url, create=False)
    try:
        repository = SqlRepository(database)
        meetings = await repository.list_meetings(series_id=args.series)
        # An unknown series is not an empty store: name the series there are.
        series = [] if meetings or args.series is None or args.json else await repository.list_series()
    finally:
        await database.dispose()
    if args.json:
        print(
            json.dumps([m.model_dump(mode="json") for m in meetings], ensure_ascii=False, indent=2)
        )
        return 0
    if not meetings:
        print(_nothing_listed(args.series, series, database.display_url))
        return 0
    header = ("ID", "SERIES", "STARTED", "UTTERANCES", "TOPICS", "WRITER", "TITLE")
    print("{:<24} {:<16} {:<23} {:>10} {:>6}  {:<24} {}".format(*header))
    for m in meetings:
        started = stamp(m.started_at)  # on the meeting's own clock
        writer = m.lease_owner or ("ended" if m.ended_at else "-")
        print(
            f"{m.id:<24} {m.series_id:<16} {started:<23} {m.utterance_count:>10} "
            f"{m.topic_count:>6}  {writer:<24} {m.title or '-'}"
        )
    return 0


def _nothing_listed(series_id: str | None, series: list, where: str) -> str:  # noqa: ANN001
    """Why the listing is empty: no meeting at all, or none in the series asked for."""
    if series_id is None or not series:
        return f"no meetings in {where}"
    known = ", ".join(f"{s.id} ({len(s.meetings)})" for s in series)
    return f"no meetings in series {series_id}; series (meetings): {known}"


async def _show(args: argparse.Namespace) -> int:
    from mithub.clock import stamp
    from mithub.context.factory import create_context_manager
    from mithub.context.report import meeting_report, render_report, report_json
    from mithub.errors import InputError
    from mithub.llm.factory import create_llm_client
    from mithub.store.open import open_database
    from mithub.store.readonly import ReadOnlyRepository
    from mithub.store.sql import SqlRepository

    database = await open_database(args.database_url, create=False)
    try:
        repository = SqlRepository(database)
        overview = await repository.get_meeting(args.meeting_id)
        if overview is None:
            raise InputError(
                f"no meeting {args.meeting_id!r} in {database.display_url}; "
                "`mithub meetings list` shows the stored ids"
            )
        manager = create_context_manager(
            args.meeting_id, ReadOnlyRepository(repository), llm=create_llm_client()
        )
        await manager.restore_from_db(warm_detector=False)  # shown, never continued
        calls = await repository.list_agent_calls(args.meeting_id)
    finally:
        await database.dispose()
    report = meeting_report(manager)
    if args.json:
        print(report_json(report))
        return 0
    mode = (
        "LLM summaries"
        if any(t["summary_mode"] == "llm" for t in report["topics"])
        else "extractive summaries"
    )
    print(render_report(report, mode=mode))
    writer = overview.lease_owner or ("none (meeting ended)" if overview.ended_at else "none")
    print(
        f"Stored: {overview.title or '-'}, created {stamp(overview.created_at, seconds=True)}, "
        f"{len(calls)} agent call(s), writer {writer}"
    )
    return 0
