"""Webhook deliveries of the minutes in SQL (table `minutes_deliveries`, migration 0006).

A delivery is stored before its first attempt and updated after each one. A process takes a
due delivery by moving its `next_attempt_at` past the attempt's time limit in one conditional
UPDATE (a claim): two processes on one database (the worker and the API) never send the same
delivery at once, and one that dies mid-attempt leaves the delivery due again when the claim
lapses.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, Field
from sqlalchemy import Table, func, insert, select, update

from mithub.store.database import Database
from mithub.store.tables import MinutesDeliveryRow

DELIVERIES: Table = MinutesDeliveryRow.__table__  # type: ignore[assignment]

DeliveryStatus = Literal["pending", "delivered", "failed"]
AttemptOutcome = Literal["delivered", "retry", "failed"]


class DeliveryAttempt(BaseModel):
    """One POST: when, what came of it, the receiver's status code or the connection error."""

    at: AwareDatetime
    outcome: AttemptOutcome
    status_code: int | None = None
    error: str | None = None
    seconds: float = Field(0.0, ge=0)


class Delivery(BaseModel):
    id: str
    meeting_id: str
    url: str = Field(repr=False)  # may hold a token
    format: str
    body: str = Field(repr=False)
    status: DeliveryStatus
    attempts: int
    attempt_log: list[DeliveryAttempt] = Field(default_factory=list)
    next_attempt_at: AwareDatetime
    last_error: str | None = None
    created_at: AwareDatetime
    delivered_at: AwareDatetime | None = None


def _delivery(row: Any) -> Delivery:
    return Delivery.model_validate(dict(row._mapping))


class SqlDeliveryStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    async def add(self, meeting_id: str, *, url: str, format: str, body: bytes, now: datetime) -> Delivery:
        values = {"id": uuid.uuid4().hex, "meeting_id": meeting_id, "url": url, "format": format,
                  "body": body.decode("utf-8"), "status": "pending", "attempts": 0, "attempt_log": [],
                  "next_attempt_at": now, "last_error": None, "created_at": now, "delivered_at": None}
        async with self.database.begin() as conn:
            await conn.execute(insert(DELIVERIES).values(values))
        return Delivery.model_validate(values)

    async def claim(self, now: datetime, *, until: datetime, limit: int = 1, due_only: bool = True,
                    exclude: Collection[str] = ()) -> list[Delivery]:
        """Take up to `limit` pending deliveries (those due at `now`, or every pending one when
        not `due_only`) but those in `exclude`, oldest first: each is this process's until
        `until`."""
        query = select(DELIVERIES).where(DELIVERIES.c.status == "pending")
        if exclude:
            query = query.where(DELIVERIES.c.id.not_in(list(exclude)))
        if due_only:
            query = query.where(DELIVERIES.c.next_attempt_at <= now)
        query = query.order_by(DELIVERIES.c.next_attempt_at, DELIVERIES.c.created_at).limit(limit)
        claimed: list[Delivery] = []
        async with self.database.begin() as conn:
            for row in (await conn.execute(query)).all():
                # Conditional: another process that claimed it first moved it past `now`.
                taken = update(DELIVERIES).where(DELIVERIES.c.id == row.id, DELIVERIES.c.status == "pending")
                if due_only:
                    taken = taken.where(DELIVERIES.c.next_attempt_at <= now)
                if (await conn.execute(taken.values(next_attempt_at=until))).rowcount == 1:
                    claimed.append(_delivery(row).model_copy(update={"next_attempt_at": until}))
        return claimed

    async def record_attempt(self, delivery: Delivery, attempt: DeliveryAttempt, *, status: DeliveryStatus,
                             next_attempt_at: datetime) -> Delivery:
        """Store one attempt of a claimed delivery and its new state, in one UPDATE."""
        log = [*delivery.attempt_log, attempt]
        values = {"status": status, "attempts": delivery.attempts + 1,
                  "attempt_log": [a.model_dump(mode="json") for a in log], "next_attempt_at": next_attempt_at,
                  "last_error": attempt.error if attempt.outcome != "delivered" else delivery.last_error,
                  "delivered_at": attempt.at if status == "delivered" else None}
        async with self.database.begin() as conn:
            await conn.execute(update(DELIVERIES).where(DELIVERIES.c.id == delivery.id).values(values))
        return delivery.model_copy(update={**values, "attempt_log": log})

    async def next_due(self) -> datetime | None:
        """When the earliest pending delivery is next due (None: nothing pending)."""
        query = select(func.min(DELIVERIES.c.next_attempt_at)).where(DELIVERIES.c.status == "pending")
        async with self.database.engine.connect() as conn:
            return (await conn.execute(query)).scalar()

    async def counts(self) -> dict[str, int]:
        """Deliveries by status."""
        query = select(DELIVERIES.c.status, func.count()).group_by(DELIVERIES.c.status)
        async with self.database.engine.connect() as conn:
            found = {status: int(count) for status, count in (await conn.execute(query)).all()}
        return {status: found.get(status, 0) for status in ("pending", "delivered", "failed")}

    async def get(self, delivery_id: str) -> Delivery | None:
        async with self.database.engine.connect() as conn:
            row = (await conn.execute(select(DELIVERIES).where(DELIVERIES.c.id == delivery_id))).first()
        return _delivery(row) if row is not None else None

    async def for_meeting(self, meeting_id: str) -> list[Delivery]:
        query = select(DELIVERIES).where(DELIVERIES.c.meeting_id == meeting_id).order_by(DELIVERIES.c.created_at)
        async with self.database.engine.connect() as conn:
            return [_delivery(row) for row in (await conn.execute(query)).all()]
