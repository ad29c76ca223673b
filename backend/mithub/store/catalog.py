"""Meetings, participants and agent calls in SQL (the `MeetingCatalog` port), and the
helpers every SQL store class shares (dialect-specific upserts, the meeting row)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Table, func, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from mithub.clock import Clock, meeting_timezone, utc_now
from mithub.context.models import Participant
from mithub.store.database import Database
from mithub.store.records import AgentCallRecord, MeetingInfo, MeetingOverview, SeriesOverview
from mithub.store.tables import (
    AgentCallRow,
    ManagerStateRow,
    MeetingLeaseRow,
    MeetingRow,
    ParticipantRow,
    TopicSegmentRow,
    UtteranceRow,
)

MEETINGS: Table = MeetingRow.__table__  # type: ignore[assignment]
PARTICIPANTS: Table = ParticipantRow.__table__  # type: ignore[assignment]
UTTERANCES: Table = UtteranceRow.__table__  # type: ignore[assignment]
SEGMENTS: Table = TopicSegmentRow.__table__  # type: ignore[assignment]
STATES: Table = ManagerStateRow.__table__  # type: ignore[assignment]
AGENT_CALLS: Table = AgentCallRow.__table__  # type: ignore[assignment]
LEASES: Table = MeetingLeaseRow.__table__  # type: ignore[assignment]


class SqlCatalog:
    """Shared base of the SQL store: the database, a clock, and upsert helpers."""

    def __init__(self, database: Database, *, clock: Clock = utc_now) -> None:
        self.database = database
        self._clock = clock
        self._known_meetings: set[str] = set()

    def _insert(self, table: Table) -> Any:
        """INSERT with ON CONFLICT support; both dialects spell it the same way."""
        module = postgresql if self.database.dialect == "postgresql" else sqlite
        return module.insert(table)

    def _upsert(self, table: Table, values: dict[str, Any], keys: Sequence[str]) -> Any:
        statement = self._insert(table).values(values)
        update = {c: statement.excluded[c] for c in values if c not in keys}
        return statement.on_conflict_do_update(index_elements=list(keys), set_=update)

    async def _ensure_meeting(
        self,
        conn: AsyncConnection,
        meeting_id: str,
        title: str | None = None,
        *,
        series_id: str | None = None,
        started_at: datetime | None = None,
        timezone: str | None = None,
    ) -> None:
        """The meeting row every other row points at; checked once per process and meeting.
        A new meeting is its own series unless one is named, starts now unless told, and
        keeps the zone it is given (else `meeting_timezone`: MEETING_TIMEZONE)."""
        named = title is not None or series_id is not None or timezone is not None
        if meeting_id in self._known_meetings and not named:
            return
        values = {"id": meeting_id, "title": title, "series_id": series_id or meeting_id,
                  "created_at": self._clock(), "started_at": started_at or self._clock(),
                  "timezone": timezone or meeting_timezone()}
        statement = self._insert(MEETINGS).values(values)
        update = {k: v for k, v in (("title", title), ("series_id", series_id), ("timezone", timezone))
                  if v is not None}
        if update:
            statement = statement.on_conflict_do_update(index_elements=["id"], set_=update)
        else:
            statement = statement.on_conflict_do_nothing(index_elements=["id"])
        await conn.execute(statement)
        self._known_meetings.add(meeting_id)

    async def ensure_meeting(
        self,
        meeting_id: str,
        *,
        title: str | None = None,
        series_id: str | None = None,
        started_at: datetime | None = None,
        timezone: str | None = None,
        reopen: bool = False,
    ) -> None:
        """Create the meeting (or name its title, series and zone). `reopen` clears `ended_at`:
        a writer attaching to a finalized meeting continues it (a restarted job in a room
        that still lives), so it leaves the organisation's memory until it ends again."""
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, meeting_id, title, series_id=series_id,
                                       started_at=started_at, timezone=timezone)
            if reopen:
                await conn.execute(MEETINGS.update().where(
                    (MEETINGS.c.id == meeting_id) & MEETINGS.c.ended_at.is_not(None)
                ).values(ended_at=None))

    async def end_meeting(self, meeting_id: str, *, at: datetime | None = None) -> None:
        """Finalize the meeting: from now on it is part of its series' memory."""
        async with self.database.begin() as conn:
            await conn.execute(
                MEETINGS.update().where(MEETINGS.c.id == meeting_id)
                .values(ended_at=at or self._clock())
            )

    async def finished_meetings(self, series_id: str | None = None) -> list[MeetingInfo]:
        """Finalized meetings (all series, or one), oldest first: what the memory indexes."""
        query = select(MEETINGS.c.id, MEETINGS.c.series_id, MEETINGS.c.title,
                       MEETINGS.c.started_at, MEETINGS.c.created_at, MEETINGS.c.ended_at,
                       MEETINGS.c.timezone) \
            .where(MEETINGS.c.ended_at.is_not(None))
        if series_id is not None:
            query = query.where(MEETINGS.c.series_id == series_id)
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        infos = [MeetingInfo(id=r.id, series_id=r.series_id, title=r.title, timezone=r.timezone,
                             started_at=r.started_at or r.created_at, ended_at=r.ended_at)
                 for r in rows]
        return sorted(infos, key=lambda m: (m.started_at, m.id))

    async def meeting_info(self, meeting_id: str) -> MeetingInfo | None:
        query = select(MEETINGS).where(MEETINGS.c.id == meeting_id)
        async with self.database.engine.connect() as conn:
            row = (await conn.execute(query)).first()
        if row is None:
            return None
        return MeetingInfo(id=row.id, series_id=row.series_id, title=row.title, timezone=row.timezone,
                           started_at=row.started_at or row.created_at, ended_at=row.ended_at)

    async def list_series(self) -> list[SeriesOverview]:
        """Every series with its meetings in order (the API's `GET /v1/series`)."""
        series: dict[str, list[MeetingOverview]] = {}
        for meeting in await self.list_meetings():
            series.setdefault(meeting.series_id, []).append(meeting)
        return [SeriesOverview(id=sid, meetings=sorted(ms, key=lambda m: (m.started_at, m.id)))
                for sid, ms in sorted(series.items())]

    async def list_meetings(self, series_id: str | None = None) -> list[MeetingOverview]:
        meetings = await self._overviews(None)
        return [m for m in meetings if series_id is None or m.series_id == series_id]

    async def get_meeting(self, meeting_id: str) -> MeetingOverview | None:
        found = await self._overviews(meeting_id)
        return found[0] if found else None

    async def _overviews(self, meeting_id: str | None) -> list[MeetingOverview]:
        counts = (
            select(
                UTTERANCES.c.meeting_id,
                func.count().label("n"),
                func.max(UTTERANCES.c.absolute_timestamp).label("last_at"),
            )
            .group_by(UTTERANCES.c.meeting_id)
            .subquery()
        )
        topics = (
            select(SEGMENTS.c.meeting_id, func.count().label("n"))
            .group_by(SEGMENTS.c.meeting_id)
            .subquery()
        )
        query = (
            select(
                MEETINGS,
                counts.c.n.label("utterances"),
                counts.c.last_at,
                topics.c.n.label("topics"),
                STATES.c.current_topic,
                LEASES.c.owner,
                LEASES.c.expires_at,
            )
            .outerjoin(counts, counts.c.meeting_id == MEETINGS.c.id)
            .outerjoin(topics, topics.c.meeting_id == MEETINGS.c.id)
            .outerjoin(STATES, STATES.c.meeting_id == MEETINGS.c.id)
            .outerjoin(LEASES, LEASES.c.meeting_id == MEETINGS.c.id)
            .order_by(MEETINGS.c.started_at, MEETINGS.c.created_at, MEETINGS.c.id)
        )
        if meeting_id is not None:
            query = query.where(MEETINGS.c.id == meeting_id)
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [self._overview(row._mapping) for row in rows]

    def _overview(self, row: Any) -> MeetingOverview:
        now = self._clock()
        live_lease = row["expires_at"] is not None and row["expires_at"] > now
        return MeetingOverview(
            id=row["id"],
            series_id=row["series_id"],
            title=row["title"],
            timezone=row["timezone"],
            created_at=row["created_at"],
            started_at=row["started_at"] or row["created_at"],
            ended_at=row["ended_at"],
            utterance_count=row["utterances"] or 0,
            last_utterance_at=row["last_at"],
            topic_count=row["topics"] or 0,
            current_topic=row["current_topic"],
            lease_owner=row["owner"] if live_lease else None,
            lease_expires_at=row["expires_at"] if live_lease else None,
        )

    async def upsert_participant(self, meeting_id: str, participant: Participant) -> None:
        values = {"meeting_id": meeting_id, **participant.model_dump()}
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, meeting_id)
            await conn.execute(self._upsert(PARTICIPANTS, values, ("meeting_id", "user_id")))

    async def list_participants(self, meeting_id: str) -> list[Participant]:
        query = (
            select(PARTICIPANTS)
            .where(PARTICIPANTS.c.meeting_id == meeting_id)
            .order_by(PARTICIPANTS.c.joined_at, PARTICIPANTS.c.user_id)
        )
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [
            Participant.model_validate({k: v for k, v in r._mapping.items() if k != "meeting_id"})
            for r in rows
        ]

    async def record_agent_call(self, call: AgentCallRecord) -> None:
        values = call.model_dump(mode="python")
        values["citations"] = call.model_dump(mode="json")["citations"]
        values["details"] = call.model_dump(mode="json")["details"]
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, call.meeting_id)
            await conn.execute(self._upsert(AGENT_CALLS, values, ("id",)))

    async def list_agent_calls(self, meeting_id: str) -> list[AgentCallRecord]:
        query = (
            select(AGENT_CALLS)
            .where(AGENT_CALLS.c.meeting_id == meeting_id)
            .order_by(AGENT_CALLS.c.created_at, AGENT_CALLS.c.id)
        )
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [AgentCallRecord.model_validate(dict(r._mapping)) for r in rows]
