"""ContextManager (seed 002 §3.2–3.3.1, §10.2.3): live meeting memory for one meeting.

L0 is the raw window of the last turns; the topic buffer holds the current topic's turns;
L1 is one TopicSegment per topic whose summary is updated recursively. Triggers: a topic
change reported by the TopicDetector, the turn limit, the time limit and the hard token limit.

Every utterance is stored before `add_utterance` returns, and every L1 change is saved with
the manager state in one transaction, so `restore_from_db()` rebuilds an identical manager.
The detector may place a boundary up to `lookahead` turns in the past; turn, time and token
triggers therefore summarize only "settled" turns (older than the lookahead), so a turn is
never summarized into a topic it turns out not to belong to, and never summarized twice.
At the end (`finalize`) the detector decides the turns still inside its lookahead, so a
topic that starts in the last turns gets its segment, as in batch segmentation.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from datetime import datetime, timedelta

import structlog

from mithub.budget import TokenBudgetManager
from mithub.clock import Clock, utc_now
from mithub.config import ContextConfig
from mithub.context.buffers import TokenWindow
from mithub.context.models import L1UpdateReason, NewUtterance, TopicSegment, Utterance
from mithub.context.repository import ManagerState, MeetingRepository
from mithub.context.restore import RestoreSizes, StoredMeeting, load_stored_meeting
from mithub.context.speaker_context import SpeakerContext
from mithub.context.splitting import split_oversize
from mithub.context.summary import Summarizer, SummaryResult
from mithub.context.titles import opening_title, summary_title
from mithub.observability import record_ingest, record_l1_update, record_topic_change, track_meeting
from mithub.topics.detector import TopicChange, TopicDetector

logger = structlog.get_logger(__name__)

FIRST_TOPIC = "Opening"


class ContextManager:
    def __init__(
        self,
        meeting_id: str,
        *,
        repository: MeetingRepository,
        topic_detector: TopicDetector,
        summarizer: Summarizer,
        config: ContextConfig | None = None,
        budget: TokenBudgetManager | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.meeting_id = meeting_id
        self.config = config or ContextConfig()
        self.budget = budget or TokenBudgetManager()
        self._repository = repository
        self._detector = topic_detector
        self._summarizer = summarizer
        self._clock = clock
        self._lock = asyncio.Lock()

        cfg = self.config
        self.l0_buffer = TokenWindow(cfg.l0_max_turns, self.budget.count, cfg.l0_max_tokens)
        self.l0_topic_buffer = TokenWindow(cfg.l0_topic_buffer_max_turns, self.budget.count)
        self.l1_segments: list[TopicSegment] = []
        self.speaker_context = SpeakerContext(cfg.speaker_buffer_max_per_speaker)

        self.current_topic = FIRST_TOPIC
        self.current_topic_id = self._topic_id(1)
        self._topic_index = 1
        self._topic_start_seq = 1
        self._topic_buffer_start_seq = 1
        self._last_summarized_utterance_id = 0
        self._turn_count_since_l1 = 0
        self._last_l1_update: datetime | None = None
        self._l1_update_count = 0
        self._next_seq = 1
        # A restore that will only be read (a finished meeting, a replica) leaves the detector
        # cold: its window costs morphology and embeddings, and only a new turn needs it.
        self._detector_backlog: tuple[dict, list[Utterance]] | None = None
        self._gauges = track_meeting(self)

    # ------------------------------------------------------------------ ingest

    async def add_utterance(self, utterance: NewUtterance) -> list[Utterance]:
        """Store and process one final transcript. An utterance longer than
        `utterance_max_tokens` is split into several; all pieces are returned."""
        async with self._lock:
            started = time.perf_counter()
            stored: list[Utterance] = []
            for piece in split_oversize(utterance, self.config.utterance_max_tokens, self.budget):
                item = Utterance(
                    id=self._next_seq, topic=self.current_topic, topic_id=self.current_topic_id,
                    **piece.model_dump(),
                )
                await self._repository.append_utterances(self.meeting_id, [item])
                self._next_seq += 1
                await self._process(item, self._clock())
                stored.append(item)
            record_ingest(len(stored), time.perf_counter() - started)
            self.publish_gauges()
            return stored

    async def tick(self) -> bool:
        """Evaluate the time trigger without a new utterance (a quiet meeting still gets its
        15-minute summary). Returns whether L1 was updated."""
        async with self._lock:
            last = self.l0_buffer.utterances()[-1] if len(self.l0_buffer) else None
            if last is None:
                return False
            now = self._clock()
            if self._time_trigger_due(self._settled(last.id), now):
                await self._summarize_and_save("time_limit", self._settled(last.id), None, now)
                self.publish_gauges()
                return True
            return False

    async def finalize(self) -> TopicSegment | None:
        """End of meeting: the detector decides the turns still inside its lookahead (as batch
        segmentation does), each boundary it places there is a topic change like a live one,
        and every remaining turn is summarized into the last topic's segment. A finalized
        meeting has no unsummarized turn, so a second call changes nothing."""
        async with self._lock:
            if self._last_summarized_utterance_id >= self.last_seq:
                return self._current_segment()
            now = self._clock()
            self._warm_detector()
            for change in await self._detector.finish():
                if change.boundary_seq > self._topic_start_seq:
                    await self._change_topic(change, None, now)
            pending = [u for u in self.l0_topic_buffer if u.id > self._last_summarized_utterance_id]
            segment = await self._summarize_and_save("final", pending, None, now)
            self.publish_gauges()
            return segment

    def _warm_detector(self) -> None:
        if self._detector_backlog is not None:
            state, history = self._detector_backlog
            self._detector_backlog = None
            self._detector.load_state(state, history)

    async def _process(self, utterance: Utterance, now: datetime) -> None:
        self._warm_detector()
        if self._last_l1_update is None:
            self._last_l1_update = now
        self.l0_buffer.append(utterance)
        self.l0_topic_buffer.append(utterance)
        self.speaker_context.add_utterance(utterance)
        self._turn_count_since_l1 += 1

        change = await self._detector.observe(
            utterance, current_topic=self.current_topic, current_summary=self._current_summary()
        )
        if change is not None:
            await self._change_topic(change, utterance, now)
            return
        reason = self._l1_trigger(utterance, now)
        if reason is not None:
            await self._summarize_and_save(reason, self._settled(utterance.id), utterance, now)

    # ---------------------------------------------------------------- triggers

    def _settled(self, last_seq: int) -> list[Utterance]:
        """Unsummarized turns of the current topic that no pending boundary can move."""
        horizon = last_seq - self._detector.lookahead - 1
        return [
            u for u in self.l0_topic_buffer
            if self._last_summarized_utterance_id < u.id <= horizon
        ]

    def _time_trigger_due(self, settled: Sequence[Utterance], now: datetime) -> bool:
        assert self._last_l1_update is not None
        elapsed = now - self._last_l1_update
        return (
            elapsed >= timedelta(minutes=self.config.l1_update_interval_minutes)
            and len(settled) >= self.config.l1_min_new_utterances_for_time_trigger
        )

    def _l1_trigger(self, latest: Utterance, now: datetime) -> L1UpdateReason | None:
        settled = self._settled(latest.id)
        if not settled:
            return None
        if len(settled) >= self.config.l1_update_turn_threshold:
            return "turn_limit"
        if self.l0_topic_buffer.tokens > self.config.l0_topic_buffer_max_tokens:
            return "token_limit"
        if self._time_trigger_due(settled, now):
            return "time_limit"
        return None

    # ---------------------------------------------------------------- L1 updates

    async def _change_topic(
        self, change: TopicChange, trigger: Utterance | None, now: datetime
    ) -> None:
        """Close the current topic before `change.boundary_seq` and open the next one there.
        `trigger` is the turn whose arrival settled the boundary (None: the meeting's end)."""
        last_seq = trigger.id if trigger is not None else self.last_seq
        boundary = max(change.boundary_seq, self._last_summarized_utterance_id + 1)
        if boundary <= self._topic_start_seq or boundary > last_seq:
            logger.warning("topic_change_ignored", meeting_id=self.meeting_id,
                           boundary_seq=change.boundary_seq, topic_start_seq=self._topic_start_seq)
            return
        old = [u for u in self.l0_topic_buffer
               if self._last_summarized_utterance_id < u.id < boundary]
        changed = [await self._summarize(old, "topic_change", now)] if old else []
        previous_topic = self.current_topic

        self._topic_index += 1
        self.current_topic_id = self._topic_id(self._topic_index)
        buffer = self.l0_topic_buffer.utterances()
        opening = opening_title(change.topic_name, [u.text for u in buffer if u.id >= boundary],
                                [s.name for s in self.speaker_context.speaker_stats.values()])
        self.current_topic = opening or change.topic_name.strip() or f"Topic {self._topic_index}"
        self._topic_start_seq = boundary
        overlap_turns = self.config.topic_overlap_turns
        overlap = [u for u in buffer if u.id < boundary][-overlap_turns:] if overlap_turns else []
        self._topic_buffer_start_seq = overlap[0].id if overlap else boundary
        self.l0_topic_buffer.replace([*overlap, *(u for u in buffer if u.id >= boundary)])
        for window in (self.l0_topic_buffer, self.l0_buffer):
            window.relabel(boundary, self.current_topic, self.current_topic_id)
        self._turn_count_since_l1 = last_seq - boundary + 1

        logger.info("topic_changed", meeting_id=self.meeting_id, detector=change.detector,
                    boundary_seq=boundary, confidence=round(change.confidence, 3),
                    previous_topic=previous_topic, topic=self.current_topic)
        record_topic_change(change.detector)
        await self._repository.save_l1_update(
            self.meeting_id, utterance=trigger, segments=changed, state=self.state()
        )

    async def _summarize_and_save(
        self, reason: L1UpdateReason, utterances: list[Utterance], trigger: Utterance | None,
        now: datetime,
    ) -> TopicSegment:
        segment = await self._summarize(utterances, reason, now)
        await self._repository.save_l1_update(
            self.meeting_id, utterance=trigger, segments=[segment], state=self.state()
        )
        return segment

    async def _summarize(
        self, utterances: list[Utterance], reason: L1UpdateReason, now: datetime
    ) -> TopicSegment:
        """Summarize `utterances` into the current topic's segment: create it on the topic's
        first summary, otherwise update it recursively (previous summary + new turns)."""
        existing = self._current_segment()
        names = [s.name for s in self.speaker_context.speaker_stats.values()]
        started = time.perf_counter()
        result = await self._summarizer.summarize(self.current_topic, utterances, existing, names)
        record_l1_update(reason, result.mode, time.perf_counter() - started)
        title = summary_title(result, names, named=self.current_topic != FIRST_TOPIC,
                              texts=[u.text for u in utterances])
        if title and title != self.current_topic:
            self._rename_current_topic(title)
        segment = self._segment_from(result, existing, utterances[-1].id, now)
        if existing is None:
            self.l1_segments.append(segment)
        else:
            self.l1_segments[self.l1_segments.index(existing)] = segment

        self._last_summarized_utterance_id = utterances[-1].id
        self._last_l1_update = now
        self._turn_count_since_l1 = 0
        self._l1_update_count += 1
        logger.info(
            "l1_segment_created" if existing is None else "l1_segment_updated",
            meeting_id=self.meeting_id, topic_name=self.current_topic, reason=reason,
            summarized=len(utterances), end_seq=segment.end_utterance_id, mode=result.mode,
            l0_buffer_size=len(self.l0_buffer), l1_segments_count=len(self.l1_segments),
        )
        return segment

    def _segment_from(
        self, result: SummaryResult, existing: TopicSegment | None, end_seq: int, now: datetime
    ) -> TopicSegment:
        return TopicSegment(
            id=self.current_topic_id,
            name=self.current_topic,
            summary=result.summary,
            start_utterance_id=self._topic_start_seq,
            end_utterance_id=end_seq,
            key_points=result.key_points,
            keywords=result.keywords,
            key_decisions=result.decisions,
            pending_items=result.pending,
            action_items=result.action_items,
            participants=result.participants,
            summary_mode=result.mode,
            version=(existing.version + 1) if existing else 1,
            updated_at=now,
        )

    def _rename_current_topic(self, name: str) -> None:
        self.current_topic = name
        for window in (self.l0_topic_buffer, self.l0_buffer):
            window.relabel(self._topic_start_seq, name, self.current_topic_id)

    def publish_gauges(self) -> None:
        """This meeting's share of the L0/L1 gauges (mithub.observability)."""
        self._gauges.update((u.text for u in self.l0_buffer), topics=len(self.l1_segments),
                            unsummarized=self.last_seq - self._last_summarized_utterance_id)

    # ---------------------------------------------------------------- reads

    def _topic_id(self, index: int) -> str:
        return f"{self.meeting_id}:t{index}"

    def _current_segment(self) -> TopicSegment | None:
        for segment in reversed(self.l1_segments):
            if segment.id == self.current_topic_id:
                return segment
        return None

    def _current_summary(self) -> str:
        segment = self._current_segment()
        return segment.summary if segment else ""

    def get_l0_utterances(self, limit: int | None = None) -> list[Utterance]:
        utterances = self.l0_buffer.utterances()
        return utterances[-limit:] if limit else utterances

    def get_topic_utterances(self) -> list[Utterance]:
        return self.l0_topic_buffer.utterances()

    def get_l1_segments(self) -> list[TopicSegment]:
        return list(self.l1_segments)

    def get_pending_items(self) -> list[str]:
        return [item for segment in self.l1_segments for item in segment.pending_items]

    @property
    def last_seq(self) -> int:
        return self._next_seq - 1

    @property
    def last_summarized_utterance_id(self) -> int:
        return self._last_summarized_utterance_id

    def state(self) -> ManagerState:
        self._warm_detector()  # a cold detector's state is its stored one, not a blank one
        return ManagerState(
            meeting_id=self.meeting_id,
            last_seq=self.last_seq,
            current_topic=self.current_topic,
            current_topic_id=self.current_topic_id,
            topic_index=self._topic_index,
            topic_start_seq=self._topic_start_seq,
            topic_buffer_start_seq=self._topic_buffer_start_seq,
            last_summarized_seq=self._last_summarized_utterance_id,
            turn_count_since_l1=self._turn_count_since_l1,
            last_l1_update=self._last_l1_update or self._clock(),
            l1_update_count=self._l1_update_count,
            detector_state=self._detector.state_dict(),
            speaker_state=self.speaker_context.state_dict(),
        )

    # ---------------------------------------------------------------- restore

    async def restore_from_db(self, *, warm_detector: bool = True) -> int:
        """Rebuild this (fresh) manager from the repository (context/restore.py reads what it
        is rebuilt from). Returns the number of stored utterances found (0: a new meeting).
        `warm_detector=False` defers the topic detector's window to the first turn processed
        (none, for a meeting that is only read)."""
        async with self._lock:
            cfg = self.config
            sizes = RestoreSizes(cfg.l0_max_turns, cfg.l0_topic_buffer_max_turns,
                                 self._detector.history_turns, cfg.speaker_buffer_max_per_speaker)
            meeting = await load_stored_meeting(self._repository, self.meeting_id, sizes)
            if meeting.stored == 0:
                return 0
            if meeting.state is not None:
                self._apply_stored(meeting, meeting.state)
                if warm_detector:
                    self._warm_detector()
            for utterance in meeting.tail:
                self._next_seq = utterance.id + 1
                await self._process(utterance, utterance.absolute_timestamp)
            logger.info("meeting_restored", meeting_id=self.meeting_id, utterances=meeting.stored,
                        segments=len(self.l1_segments), replayed=len(meeting.tail),
                        topic=self.current_topic)
            self.publish_gauges()
            return meeting.stored

    def _apply_stored(self, meeting: StoredMeeting, state: ManagerState) -> None:
        self.l1_segments = list(meeting.segments)
        self.current_topic = state.current_topic
        self.current_topic_id = state.current_topic_id
        self._topic_index = state.topic_index
        self._topic_start_seq = state.topic_start_seq
        self._topic_buffer_start_seq = state.topic_buffer_start_seq
        self._last_summarized_utterance_id = state.last_summarized_seq
        self._turn_count_since_l1 = state.turn_count_since_l1
        self._last_l1_update = state.last_l1_update
        self._l1_update_count = state.l1_update_count
        self._next_seq = state.last_seq + 1
        self.l0_buffer.replace(meeting.l0)
        self.l0_topic_buffer.replace(meeting.topic_buffer)
        self._detector_backlog = (state.detector_state, meeting.detector_history)
        self.speaker_context.load_state(state.speaker_state, meeting.speaker_turns)
