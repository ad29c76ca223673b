"""`mithub minutes ID [--format md|json]`: a meeting's minutes, as stored when it ended.

A meeting without stored minutes (still running, or ended before minutes existed) gets them
composed from its record, LLM-free; an ended meeting keeps what was composed. Reading stored
minutes loads no model.
"""

from __future__ import annotations

import argparse
import asyncio
import json


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("minutes", help="a meeting's minutes as Markdown or JSON",
                                   description="Prints the minutes of a meeting: topics, decisions (with the "
                                   "changes to earlier meetings' decisions), action items and open questions, "
                                   "each citing speaker, time and transcript line.")
    parser.add_argument("meeting_id", metavar="ID", help="the meeting id (`mithub meetings list`); `deliver`: "
                        "send the minutes' pending webhook deliveries now, once each (MINUTES_WEBHOOK_*)")
    parser.add_argument("--format", choices=("md", "json"), default="md", help="Markdown (default) or JSON")
    parser.add_argument("--database-url", metavar="URL",
                        help="default: DATABASE_URL, else sqlite+aiosqlite:///./data/mithub.db")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from mithub.cli.minutes_deliver import DELIVER, run

    return run(args) if args.meeting_id == DELIVER else asyncio.run(_show(args))


async def _show(args: argparse.Namespace) -> int:
    from mithub.minutes.compose import stored_or_composed
    from mithub.minutes.render import to_markdown
    from mithub.store.open import open_database
    from mithub.store.sql import SqlRepository

    database = await open_database(args.database_url, create=False)
    try:
        minutes = await stored_or_composed(SqlRepository(database), args.meeting_id)
    finally:
        await database.dispose()
    if args.format == "json":
        print(json.dumps(minutes.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        print(to_markdown(minutes), end="")
    return 0
