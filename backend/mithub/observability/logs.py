"""Structured logging (structlog): readable in a terminal, JSON in production.

Log events are snake_case verbs with key=value fields. Transcript text and secrets are
never logged at info level. Context bound with `bind_log_context` (meeting_id, call_id)
is added to every event logged inside the block, including those of the code it calls.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import structlog


def configure_logging(*, json_logs: bool = False, level: str = "INFO") -> None:
    """JSON lines for production (log collectors parse them), colored text for a terminal."""
    numeric = getattr(logging, level.upper(), logging.INFO)
    logging.basicConfig(format="%(message)s", stream=sys.stderr, level=numeric, force=True)
    processors: list = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer = (
        structlog.processors.JSONRenderer(ensure_ascii=False)
        if json_logs
        else structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    )
    structlog.configure(
        processors=[*processors, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


@contextmanager
def bind_log_context(**fields: Any) -> Iterator[None]:
    """Add `fields` (ids only: meeting_id, call_id...) to every event logged in the block."""
    with structlog.contextvars.bound_contextvars(**fields):
        yield
