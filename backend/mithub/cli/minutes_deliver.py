"""`mithub minutes deliver [--database-url URL]`: send the minutes' pending webhook deliveries
now, one attempt each whatever their backoff says (a receiver is back up, a process was down).

Each delivery goes to the URL stored with it, signed with today's MINUTES_WEBHOOK_SECRET; one
that fails again stays pending with its next attempt scheduled, or fails for good past
MINUTES_WEBHOOK_MAX_ATTEMPTS. Exit status 0 when every attempted delivery was delivered.
"""

from __future__ import annotations

import argparse
import asyncio

from mithub.clock import stamp

DELIVER = "deliver"


def run(args: argparse.Namespace) -> int:
    return asyncio.run(deliver(getattr(args, "database_url", None)))


async def deliver(database_url: str | None) -> int:
    from mithub.minutes.delivery import deliver_pending
    from mithub.minutes.webhook import webhook_host
    from mithub.store.open import open_database

    database = await open_database(database_url, create=False)
    try:
        report = await deliver_pending(database)
    finally:
        await database.dispose()
    if not report.attempted:
        print(f"no pending deliveries in {database.display_url}")
    for delivery in report.attempted:
        state = delivery.status
        if state == "pending":
            state = f"pending, next attempt {stamp(delivery.next_attempt_at, seconds=True)}"
        reason = f" ({delivery.last_error})" if delivery.status != "delivered" and delivery.last_error else ""
        print(f"{delivery.id} meeting {delivery.meeting_id} -> {webhook_host(delivery.url)}: {state}, "
              f"attempt {delivery.attempts}{reason}")
    counts = report.counts
    print(f"pending {counts['pending']} · delivered {counts['delivered']} · failed {counts['failed']}")
    return 0 if all(d.status == "delivered" for d in report.attempted) else 1
