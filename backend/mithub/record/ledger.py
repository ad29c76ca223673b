"""The ledger of a series: every meeting's decisions, `active` or `changed` (with a link to
the change that replaced it), the changes themselves, and the action items across meetings.
Built from the meetings' records and the stored changes; the store is the source of truth."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from mithub.record.meeting_record import MeetingRecord
from mithub.record.models import ActionItem, Decision, DecisionChange


class SeriesLedger(BaseModel):
    series_id: str
    decisions: list[Decision] = Field(default_factory=list)
    changes: list[DecisionChange] = Field(default_factory=list)
    actions: list[ActionItem] = Field(default_factory=list)
    # Items below the commitment model's threshold: stored, shown only on request.
    candidates: list[ActionItem] = Field(default_factory=list)

    def active(self) -> list[Decision]:
        return [d for d in self.decisions if d.status == "active"]


def change_id(change: DecisionChange) -> str:
    return f"{change.meeting_id}:{change.seq}"


def build_ledger(series_id: str, records: Sequence[MeetingRecord],
                 changes: Sequence[DecisionChange]) -> SeriesLedger:
    """Meetings in order of their start; a decision is `changed` once a later line changed
    it, and `changed_by` names that line (`meeting_id:seq`)."""
    ordered = sorted(records, key=lambda r: (r.started_at, r.meeting_id))
    changed_by = {c.decision_id: change_id(c) for c in sorted(changes, key=lambda c: (c.time, c.seq))}
    decisions = [
        d.model_copy(update={"status": "changed", "changed_by": changed_by[d.id]}) if d.id in changed_by else d
        for r in ordered for d in r.decisions
    ]
    return SeriesLedger(series_id=series_id, decisions=decisions,
                        changes=sorted(changes, key=lambda c: (c.time, c.meeting_id, c.seq)),
                        actions=[a for r in ordered for a in r.action_items if not a.candidate],
                        candidates=[a for r in ordered for a in r.action_items if a.candidate])


def decisions_document(ledger: SeriesLedger) -> dict:
    """`mithub decisions --json` and `GET /v1/series/{id}/decisions`."""
    return {"series_id": ledger.series_id,
            "decisions": [d.model_dump(mode="json") for d in ledger.decisions],
            "changes": [c.model_dump(mode="json") for c in ledger.changes]}


def actions_document(ledger: SeriesLedger, *, candidates: bool = False) -> dict:
    """`mithub actions --json` and `GET /v1/series/{id}/actions`; the candidates (below the
    model's threshold) only when asked for, in their own list."""
    document = {"series_id": ledger.series_id, "actions": [a.model_dump(mode="json") for a in ledger.actions]}
    if candidates:
        document["candidates"] = [a.model_dump(mode="json") for a in ledger.candidates]
    return document
