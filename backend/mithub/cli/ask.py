"""`mithub ask --meeting ID --type SUMMARY [--query TEXT]`: one agent call on a stored meeting."""

from __future__ import annotations

import argparse
import asyncio
import json

from mithub.context.models import AGENT_CALL_TYPES


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("ask", help="ask the agent about a stored meeting")
    parser.add_argument("--meeting", required=True, metavar="ID")
    parser.add_argument("--type", required=True, choices=AGENT_CALL_TYPES, dest="call_type")
    parser.add_argument("--query", help="the question (needed for IMMEDIATE_RESPONSE and SEARCH)")
    parser.add_argument("--database-url", metavar="URL", help="default: DATABASE_URL")
    parser.add_argument("--index", metavar="DIR", help="retrieval index (default RETRIEVAL_INDEX_DIR)")
    parser.add_argument("--json", action="store_true", help="print the Answer as JSON")
    parser.add_argument("--show-context", action="store_true",
                        help="also print the evidence items put into the prompt (meeting, seq, "
                        "speaker, time, quote, tokens)")
    parser.set_defaults(handler=lambda args: asyncio.run(_ask(args)))


async def _ask(args: argparse.Namespace) -> int:
    from mithub.config import get_api_config
    from mithub.errors import QueryTooLongError

    # Checked before anything loads, with the API's limit and words.
    QueryTooLongError.check(args.query, get_api_config().max_query_chars)
    runtime = await _open_runtime(args)
    runtime.warm_up_in_background()
    try:
        session = await runtime.registry.get(args.meeting)
        answer = await runtime.pipeline.call(session, args.call_type, args.query, source="cli",
                                             include_context=args.show_context)
    finally:
        await runtime.aclose()
    if args.json:
        print(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        korean = not answer.query or any("가" <= ch <= "힣" for ch in answer.query + answer.answer)
        print(answer.render_text(korean=korean))
        if answer.context is not None:
            print(f"\n## context ({len(answer.context)} items, {answer.context_tokens} tokens)")
            for item in answer.context:
                when = item.time.strftime("%Y-%m-%d %H:%M") if item.time else "-"
                where = f"{item.meeting_id or 'document'}#{item.seq}" if item.seq else (item.meeting_id or "document")
                print(f"- {item.kind:<9} {where:<28} {item.speaker or '-':<10} {when}  "
                      f"{item.tokens:>4} tok  {' '.join(item.quote.split())[:100]}")
    return 0


async def _open_runtime(args: argparse.Namespace):  # noqa: ANN202 - AgentRuntime, imported late
    """The store first (read-only: a missing file is an error, not a new database) and the
    meeting's existence, then the models: a wrong id fails in well under a second."""
    from mithub.errors import InputError
    from mithub.store.open import open_database
    from mithub.store.sql import SqlRepository

    database = await open_database(args.database_url, create=False)
    repository = SqlRepository(database)
    try:
        if await repository.last_seq(args.meeting) == 0:
            raise InputError(f"no meeting {args.meeting!r} in {database.display_url}; "
                             "`mithub meetings list` shows the stored ids")
        from mithub.agent.runtime import build_runtime

        return build_runtime(database, repository, index_dir=args.index)
    except BaseException:
        await database.dispose()
        raise
