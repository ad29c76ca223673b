"""Live notice of changes to past decisions (DESIGN §5, seed 002 §1.1): every stored line of
today's meeting is checked against the active decisions of its series; a line that changes
or contradicts one is stored, counted, marks the old decision changed in the ledger, and is
announced (the worker posts the notice in the room chat).

    watch = DecisionWatch(store, embedder, meeting_id=..., series_id=..., started_at=...,
                          on_change=post_notice)
    await watch.start()               # the series' ledger, embedded once
    await watch.observe(stored)       # after each add_utterance
    ...
    await record_meeting(store, meeting_id)   # when the meeting ends: its record, stored
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, tzinfo
from typing import Protocol

import structlog

from mithub.agent.change_check import llm_confirms
from mithub.clock import local_date, local_time
from mithub.context.models import Utterance
from mithub.embedders.base import Embedder
from mithub.errors import ModelLoadError
from mithub.llm import LLMClient
from mithub.observability import record_change_check, record_decision_change
from mithub.record.changes import ChangeDetector, PairCheck
from mithub.record.ledger import SeriesLedger, build_ledger
from mithub.record.llm_record import extract_record_with_llm
from mithub.record.meeting_record import MeetingRecord, earlier_meetings, extract_record
from mithub.record.models import Decision, DecisionChange
from mithub.store.records import MeetingInfo
from mithub.text import has_hangul

logger = structlog.get_logger(__name__)

ChangeCallback = Callable[[DecisionChange, Decision, str], Awaitable[None]]
CONTEXT_LINES = 3  # lines before a checked one that it may lean on ("그럼 그걸로 하죠")


class RecordStore(Protocol):
    async def meeting_info(self, meeting_id: str) -> MeetingInfo | None: ...

    async def get_utterances(self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
                             limit: int | None = None) -> list[Utterance]: ...

    async def save_meeting_record(self, record: MeetingRecord) -> None: ...

    async def series_records(self, series_id: str) -> list[MeetingRecord]: ...

    async def save_decision_change(self, series_id: str, change: DecisionChange) -> None: ...

    async def series_changes(self, series_id: str) -> list[DecisionChange]: ...


async def record_meeting(store: RecordStore, meeting_id: str, *, llm: LLMClient | None = None
                         ) -> MeetingRecord | None:
    """Extract and store the record of a meeting (at its end): its decisions join the
    series' ledger, where later meetings are checked against them. With an LLM, the model
    extracts it (the LLM-free rules where it fails)."""
    info = await store.meeting_info(meeting_id)
    utterances = await store.get_utterances(meeting_id)
    if info is None or not utterances:
        return None
    earlier = await earlier_meetings(store, info.series_id, meeting_id, info.started_at)
    try:
        if llm is not None:
            record = await extract_record_with_llm(llm, meeting_id, info.series_id, info.started_at, utterances,
                                                   earlier=earlier)
        else:
            record = await asyncio.to_thread(extract_record, meeting_id, info.series_id, info.started_at, utterances,
                                             earlier=earlier)
    except ModelLoadError as exc:
        # The record's fitted weights are missing or damaged: the meeting is kept, without its
        # record; the error names the command that rebuilds them.
        logger.error("meeting_record_not_extracted", meeting_id=meeting_id, error=str(exc))
        return None
    await store.save_meeting_record(record)
    logger.info("meeting_record_saved", meeting_id=meeting_id, mode=record.mode, decisions=len(record.decisions),
                action_items=len(record.action_items), pending=len(record.pending_items))
    return record


async def series_ledger(store: RecordStore, series_id: str) -> SeriesLedger:
    return build_ledger(series_id, await store.series_records(series_id), await store.series_changes(series_id))


class DecisionWatch:
    def __init__(
        self,
        store: RecordStore,
        embedder: Embedder,
        *,
        meeting_id: str,
        series_id: str,
        started_at: datetime,
        on_change: ChangeCallback | None = None,
        pair_check: PairCheck | None = None,
        llm: LLMClient | None = None,
    ) -> None:
        self._store = store
        self._embedder = embedder
        self.meeting_id = meeting_id
        self.series_id = series_id
        self.started_at = started_at
        self._on_change = on_change
        self._pair_check = pair_check
        self._llm = llm
        self.vetoed: list[DecisionChange] = []
        self._detector: ChangeDetector | None = None
        self._labels: dict[str, str] = {}
        self._zones: dict[str, tzinfo] = {}  # each past meeting's own clock
        self._recent: deque[Utterance] = deque(maxlen=CONTEXT_LINES)
        self._seen: set[int] = set()
        self.changes: list[DecisionChange] = []
        self.candidates: list[DecisionChange] = []  # below the change model's threshold: stored, not announced
        self.disabled: str | None = None  # why the watch is off (missing or corrupt model weights)

    async def start(self) -> int:
        """Load the active decisions of the series' other meetings; returns how many."""
        records = [r for r in await self._store.series_records(self.series_id) if r.meeting_id != self.meeting_id]
        changes = await self._store.series_changes(self.series_id)
        ledger = build_ledger(self.series_id, records, changes)
        self._seen = {c.seq for c in changes if c.meeting_id == self.meeting_id}  # a restored meeting
        dates = {r.meeting_id: local_date(r.started_at, r.zone) for r in records}
        self._labels = {r.meeting_id: _label(r.local(r.started_at), r) for r in records}
        self._zones = {r.meeting_id: r.zone for r in records}
        names = sorted({d.speaker for r in records for d in r.decisions} | {a.owner for r in records for a in r.action_items})
        # Decisions this meeting already changed (a restored meeting) stay in view, so a line
        # about them is not taken for a change of another decision.
        mine = f"{self.meeting_id}:"
        # Candidate decisions are checked too: the change model weighs each decision's confidence.
        active = [d if d.status == "active" else d.model_copy(update={"status": "active"})
                  for d in [*ledger.decisions, *ledger.decision_candidates]
                  if d.status == "active" or (d.changed_by or "").startswith(mine)]
        try:
            self._detector = await asyncio.to_thread(
                ChangeDetector, self._embedder, active, meeting_id=self.meeting_id, started_at=self.started_at,
                names=names, meeting_dates=dates, pair_check=self._pair_check)
        except ModelLoadError as exc:
            # The meeting goes on without change notices; the error names the rebuild command.
            logger.error("decision_watch_disabled", meeting_id=self.meeting_id, error=str(exc))
            self.disabled = str(exc)
            return 0
        for change in changes:
            if change.meeting_id == self.meeting_id:
                self._detector.mark_changed(change.decision_id)
        shown = sum(not d.candidate for d in active)
        logger.info("decision_watch_started", meeting_id=self.meeting_id, series_id=self.series_id,
                    active_decisions=shown, candidate_decisions=len(active) - shown)
        return shown

    async def observe(self, utterances: Sequence[Utterance]) -> list[DecisionChange]:
        """Check newly stored lines; store and announce the changes they make."""
        found = []
        for utterance in utterances:
            previous = list(self._recent)
            self._recent.append(utterance)
            if self._detector is None or not self._detector.decisions or utterance.id in self._seen:
                continue
            started = time.perf_counter()
            change = await asyncio.to_thread(self._detector.check, utterance, previous)
            record_change_check(time.perf_counter() - started)
            if change is not None and change.candidate:
                await self._keep_candidate(change)
            elif change is not None and await self._confirmed(change):
                await self._accept(change)
                found.append(change)
        return found

    async def _keep_candidate(self, change: DecisionChange) -> None:
        """A possible change below the threshold: stored (shown on request), not announced."""
        self.candidates.append(change)
        logger.info("decision_change_candidate", meeting_id=self.meeting_id, seq=change.seq,
                    decision_id=change.decision_id, confidence=change.confidence)
        try:
            await self._store.save_decision_change(self.series_id, change)
        except Exception as exc:  # noqa: BLE001 - a candidate is never announced; losing one costs little
            logger.warning("decision_change_not_stored", meeting_id=self.meeting_id, seq=change.seq,
                           error=f"{type(exc).__name__}: {exc}")

    async def _confirmed(self, change: DecisionChange) -> bool:
        """With an LLM configured, its "no" vetoes the candidate; no answer keeps it."""
        if self._llm is None:
            return True
        assert self._detector is not None
        decision = next(d for d in self._detector.decisions if d.id == change.decision_id)
        verdict = await llm_confirms(self._llm, decision, change)
        if verdict is False:
            self.vetoed.append(change)
            logger.info("decision_change_vetoed", meeting_id=self.meeting_id, seq=change.seq,
                        decision_id=change.decision_id)
        return verdict is not False

    async def _accept(self, change: DecisionChange) -> None:
        assert self._detector is not None
        decision = next(d for d in self._detector.decisions if d.id == change.decision_id)
        self._detector.mark_changed(change.decision_id)
        self.changes.append(change)
        record_decision_change(change.kind)
        logger.info("decision_changed", meeting_id=self.meeting_id, seq=change.seq, kind=change.kind,
                    decision_id=change.decision_id)
        try:
            await self._store.save_decision_change(self.series_id, change)
        except Exception as exc:  # noqa: BLE001 - the notice still goes out; the ledger misses it
            logger.warning("decision_change_not_stored", meeting_id=self.meeting_id, seq=change.seq,
                           error=f"{type(exc).__name__}: {exc}")
        if self._on_change is not None:
            await self._on_change(change, decision, self.notice(change, decision))

    def notice(self, change: DecisionChange, decision: Decision) -> str:
        """The room notice: both quotes, who said them, which meeting and when."""
        korean = has_hangul(change.quote + decision.quote)
        label = self._labels.get(decision.meeting_id, decision.meeting_id)
        now = local_time(change.time, self.started_at.tzinfo or "UTC").strftime("%H:%M")
        then = local_time(decision.time, self._zones.get(decision.meeting_id, "UTC")).strftime("%H:%M")
        if korean:
            kind = "명시적 변경" if change.kind == "explicit" else "지난 결정과 다른 내용"
            return (f"⚠ 지난 결정 변경 알림 ({kind}: {decision.subject}, 신뢰도 {change.confidence:.2f})\n"
                    f"- 지난 결정 ({label}) {decision.speaker} {then}: \"{decision.quote}\"\n"
                    f"- 오늘 {change.speaker} {now}: \"{change.quote}\"")
        kind = "explicit change" if change.kind == "explicit" else "differs from a past decision"
        return (f"⚠ Past decision changed ({kind}: {decision.subject}, confidence {change.confidence:.2f})\n"
                f"- decided ({label}) {decision.speaker} {then}: \"{decision.quote}\"\n"
                f"- today {change.speaker} {now}: \"{change.quote}\"")


def _label(started: datetime, record: MeetingRecord) -> str:
    korean = any(has_hangul(d.quote) for d in record.decisions)
    return f"{started.month}월 {started.day}일 회의" if korean else f"meeting of {started:%b} {started.day}"
