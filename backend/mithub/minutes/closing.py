"""The end of a meeting, for its minutes: compose them from the stored record, keep them, and
hand them on. The worker's close and the replay CLI call this once the record is stored; a
failure is logged and never blocks the meeting's end (the minutes can be composed again from
the store: `mithub minutes ID`)."""

from __future__ import annotations

import structlog

from mithub.llm import LLMClient
from mithub.minutes.compose import MinutesStore, compose_minutes
from mithub.minutes.delivery import enqueue_delivery
from mithub.minutes.models import Minutes

logger = structlog.get_logger(__name__)


async def close_minutes(repository: MinutesStore, meeting_id: str, *, llm: LLMClient | None = None
                        ) -> Minutes | None:
    """Compose and store the meeting's minutes; None when nothing was said or it failed."""
    try:
        minutes = await compose_minutes(repository, meeting_id, llm=llm)
        if not minutes.participants:
            return None  # nobody spoke: no minutes to keep or send
        await repository.save_minutes(meeting_id, minutes)
    except Exception as exc:  # noqa: BLE001 - the meeting ends anyway; its record and transcript are stored
        logger.error("minutes_not_composed", meeting_id=meeting_id, error=f"{type(exc).__name__}: {exc}")
        return None
    logger.info("minutes_saved", meeting_id=meeting_id, mode=minutes.mode, language=minutes.language,
                decisions=len(minutes.decisions), changes=len(minutes.changes()),
                action_items=len(minutes.action_items))
    # Delivery to the team's tools (minutes.delivery, issue 20 part 3) is enqueued here, after
    # the minutes are stored, so a webhook that is down never loses them.
    await enqueue_delivery(repository, minutes)
    return minutes
