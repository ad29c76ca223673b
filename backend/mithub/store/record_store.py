"""The meeting record in SQL: each finished meeting's record and the changes to past
decisions detected live; the series ledger is built from both (`record.ledger`). And the
minutes composed from them when the meeting ended (`minutes.compose`)."""

from __future__ import annotations

from sqlalchemy import Table, select

from mithub.clock import on_meeting_clock
from mithub.minutes.models import Minutes
from mithub.record.meeting_record import MeetingRecord
from mithub.record.models import DecisionChange, PastRef
from mithub.store.catalog import MEETINGS, SqlCatalog
from mithub.store.tables import DecisionChangeRow, MeetingMinutesRow, MeetingRecordRow

RECORDS: Table = MeetingRecordRow.__table__  # type: ignore[assignment]
CHANGES: Table = DecisionChangeRow.__table__  # type: ignore[assignment]
MINUTES: Table = MeetingMinutesRow.__table__  # type: ignore[assignment]


class SqlRecordStore(SqlCatalog):
    async def save_meeting_record(self, record: MeetingRecord) -> None:
        data = record.model_dump(mode="json")
        values = {
            "meeting_id": record.meeting_id, "series_id": record.series_id,
            "started_at": record.started_at, "timezone": record.timezone, "last_seq": record.last_seq,
            "decisions": data["decisions"], "action_items": data["action_items"],
            "pending_items": data["pending_items"], "extracted_at": self._clock(),
        }
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, record.meeting_id)
            await conn.execute(self._upsert(RECORDS, values, ("meeting_id",)))

    async def series_records(self, series_id: str) -> list[MeetingRecord]:
        query = select(RECORDS).where(RECORDS.c.series_id == series_id)
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return sorted((MeetingRecord.model_validate({k: v for k, v in r._mapping.items() if k != "extracted_at"})
                       for r in rows), key=lambda r: (r.started_at, r.meeting_id))

    async def save_decision_change(self, series_id: str, change: DecisionChange) -> None:
        values = {
            "meeting_id": change.meeting_id, "seq": change.seq, "series_id": series_id,
            "decision_id": change.decision_id, "kind": change.kind, "speaker": change.speaker,
            "time": change.time, "quote": change.quote,
            # The change model's confidence rides in the JSON column (no schema change).
            "past": {**change.past.model_dump(mode="json"), "confidence": change.confidence,
                     "candidate": change.candidate},
            "detected_at": self._clock(),
        }
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, change.meeting_id)
            await conn.execute(self._upsert(CHANGES, values, ("meeting_id", "seq")))

    async def series_changes(self, series_id: str) -> list[DecisionChange]:
        query = (select(CHANGES, MEETINGS.c.timezone).join(MEETINGS, MEETINGS.c.id == CHANGES.c.meeting_id)
                 .where(CHANGES.c.series_id == series_id))
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        changes = [DecisionChange(meeting_id=r.meeting_id, seq=r.seq, speaker=r.speaker, time=r.time,
                                  quote=r.quote, kind=r.kind, decision_id=r.decision_id,
                                  past=PastRef.model_validate(r.past), confidence=r.past.get("confidence", 1.0),
                                  candidate=r.past.get("candidate", False)) for r in rows]
        zones = {r.meeting_id: r.timezone for r in rows}
        for change in changes:  # each on its own meeting's clock
            on_meeting_clock(change, zones[change.meeting_id])
        return sorted(changes, key=lambda c: (c.time, c.meeting_id, c.seq))

    async def save_minutes(self, meeting_id: str, minutes: Minutes) -> None:
        """Store (or replace) the meeting's minutes: the JSON body and its Markdown."""
        from mithub.minutes.render import to_markdown

        values = {"meeting_id": meeting_id, "composed_at": minutes.composed_at, "language": minutes.language,
                  "mode": minutes.mode, "body": minutes.model_dump(mode="json"), "markdown": to_markdown(minutes)}
        async with self.database.begin() as conn:
            await self._ensure_meeting(conn, meeting_id)
            await conn.execute(self._upsert(MINUTES, values, ("meeting_id",)))

    async def get_minutes(self, meeting_id: str) -> Minutes | None:
        query = select(MINUTES.c.body).where(MINUTES.c.meeting_id == meeting_id)
        async with self.database.engine.connect() as conn:
            body = (await conn.execute(query)).scalar()
        return None if body is None else Minutes.model_validate(body)
