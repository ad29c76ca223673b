"""`mithub db upgrade|current`: the database schema, changed only by the Alembic migrations."""

from __future__ import annotations

import argparse
import asyncio


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("db", help="database schema (migrations)")
    actions = parser.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    upgrade = actions.add_parser("upgrade", help="apply pending migrations (creates the schema)")
    current = actions.add_parser("current", help="print the schema revision of the database")
    for action in (upgrade, current):
        action.add_argument(
            "--database-url",
            metavar="URL",
            help="default: DATABASE_URL, else sqlite+aiosqlite:///./data/mithub.db",
        )
    upgrade.set_defaults(handler=lambda args: asyncio.run(_upgrade(args)))
    current.set_defaults(handler=lambda args: asyncio.run(_current(args)))


async def _upgrade(args: argparse.Namespace) -> int:
    from mithub.store.database import create_database
    from mithub.store.migrate import upgrade
    from mithub.store.open import reach

    database = create_database(args.database_url or _default_url())
    try:
        before, after = await reach(database, upgrade(database))
    finally:
        await database.dispose()
    if before == after:
        print(f"{database.display_url}: schema is up to date (revision {after})")
    else:
        print(f"{database.display_url}: schema upgraded from {before or 'empty'} to {after}")
    return 0


async def _current(args: argparse.Namespace) -> int:
    from mithub.store.database import create_database
    from mithub.store.migrate import current_revision, head_revision
    from mithub.store.open import reach

    database = create_database(args.database_url or _default_url(), create=False)  # reads only
    try:
        current = await reach(database, current_revision(database))
    finally:
        await database.dispose()
    head = head_revision()
    state = "up to date" if current == head else f"behind {head}: run `mithub db upgrade`"
    print(f"{database.display_url}: revision {current or 'none'} ({state})")
    return 0


def _default_url() -> str:
    from mithub.config import get_database_config

    return get_database_config().url
