"""Telling "the database is unreachable, try again later" from "this write is wrong"."""

from __future__ import annotations

import asyncio

from sqlalchemy import exc as sa_exc

# SQLSTATE classes and codes that mean the server is gone or not serving yet:
# 08 connection exception, 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect
# now (starting up or shutting down), 53300 too many connections.
_UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300")
# SQLite reports a busy lock and a missing table with the same exception class.
_SQLITE_PERMANENT = ("no such table", "no such column", "syntax error", "constraint failed")


def _sqlstate(exc: BaseException) -> str | None:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        state = getattr(current, "sqlstate", None) or getattr(current, "pgcode", None)
        if isinstance(state, str):
            return state
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return None


def is_unavailable(exc: BaseException) -> bool:
    """True for errors a retry can cure: refused or dropped connections, timeouts, a server
    restarting, SQLite's lock timeout. False for bad data, lost leases, programming errors."""
    if isinstance(exc, (OSError, asyncio.TimeoutError, sa_exc.TimeoutError)):
        return True
    if isinstance(exc, (sa_exc.OperationalError, sa_exc.InterfaceError)):
        return not any(text in str(exc.orig) for text in _SQLITE_PERMANENT)
    if isinstance(exc, sa_exc.DBAPIError):
        if exc.connection_invalidated:
            return True
        state = _sqlstate(exc)
        return state is not None and state.startswith(_UNAVAILABLE_STATES)
    return False
