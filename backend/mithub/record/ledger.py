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
    # Decisions and changes below their model's threshold: stored, shown only on request.
    decision_candidates: list[Decision] = Field(default_factory=list)
    change_candidates: list[DecisionChange] = Field(default_factory=list)

    def active(self) -> list[Decision]:
        return [d for d in self.decisions if d.status == "active"]


def change_id(change: DecisionChange) -> str:
    return f"{change.meeting_id}:{change.seq}"


def build_ledger(series_id: str, records: Sequence[MeetingRecord],
                 changes: Sequence[DecisionChange]) -> SeriesLedger:
    """Meetings in order of their start; a decision is `changed` once a later line changed
    it, and `changed_by` names that line (`meeting_id:seq`)."""
    ordered = sorted(records, key=lambda r: (r.started_at, r.meeting_id))
    shown = [c for c in changes if not c.candidate]
    changed_by = {c.decision_id: change_id(c) for c in sorted(shown, key=lambda c: (c.time, c.seq))}
    decisions = [
        d.model_copy(update={"status": "changed", "changed_by": changed_by[d.id]}) if d.id in changed_by else d
        for r in ordered for d in r.decisions
    ]
    order = lambda c: (c.time, c.meeting_id, c.seq)  # noqa: E731
    return SeriesLedger(series_id=series_id, decisions=[d for d in decisions if not d.candidate],
                        decision_candidates=[d for d in decisions if d.candidate],
                        changes=sorted(shown, key=order),
                        change_candidates=sorted((c for c in changes if c.candidate), key=order),
                        actions=[a for r in ordered for a in r.action_items if not a.candidate],
                        candidates=[a for r in ordered for a in r.action_items if a.candidate])


def decisions_document(ledger: SeriesLedger, *, candidates: bool = False) -> dict:
    """`mithub decisions --json` and `GET /v1/series/{id}/decisions`; the candidates (below the
    models' thresholds) only when asked for, in their own lists."""
    document: dict = {"series_id": ledger.series_id,
                      "decisions": [d.model_dump(mode="json") for d in ledger.decisions],
                      "changes": [c.model_dump(mode="json") for c in ledger.changes]}
    if candidates:
        document["candidates"] = {"decisions": [d.model_dump(mode="json") for d in ledger.decision_candidates],
                                  "changes": [c.model_dump(mode="json") for c in ledger.change_candidates]}
    return document


def actions_document(ledger: SeriesLedger, *, candidates: bool = False) -> dict:
    """`mithub actions --json` and `GET /v1/series/{id}/actions`; the candidates (below the
    model's threshold) only when asked for, in their own list."""
    document = {"series_id": ledger.series_id, "actions": [a.model_dump(mode="json") for a in ledger.actions]}
    if candidates:
        document["candidates"] = [a.model_dump(mode="json") for a in ledger.candidates]
    return document
