"""Riding out database outages: write-through while the database answers, write-behind while
it does not.

Healthy: every write goes straight to the SQL repository and is committed before the call
returns (one immediate retry covers a pooled connection that died with a database restart).

Outage: a write that fails because the database is unreachable is kept in an in-memory FIFO
queue and the call returns; the meeting goes on. Later writes join the queue behind it, so
order is kept. A background task retries the head of the queue with exponential backoff
and, once the database answers, flushes everything in order (consecutive utterances of a
meeting in one transaction) and returns to write-through.

The trade-off, stated plainly: during an outage an accepted utterance lives only in this
process's memory until the flush; if the process dies before the database returns, those
utterances are lost. The alternative, refusing input while the database is down, loses the
same speech at the source (a live meeting does not pause). The queue is bounded
(`DB_WRITE_QUEUE_MAX` utterances): past it `append_utterances` raises BackPressureError
before anything changes, so the caller knows that utterance was not taken. L1 updates are
always queued (at most one or two per accepted utterance), so an accepted utterance never
loses its summary. Everything is logged (`db_outage_started`, `db_write_retry`,
`db_outage_ended`) and counted (see `mithub.store.metrics`).

Errors that are not about reachability (a lost writer lease, a constraint violation) are not
retried: they are raised to the caller, or, when they happen during a flush, kept and
raised by every later call, since the queued writes can no longer be stored.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import structlog

from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.errors import BackPressureError, StoreError
from mithub.store.availability import is_unavailable
from mithub.store.metrics import DB_BACKPRESSURE, DB_OUTAGES, DB_WRITE_QUEUE_DEPTH, DB_WRITE_RETRIES
from mithub.store.sql import SqlRepository

logger = structlog.get_logger(__name__)

FLUSH_BATCH = 500


@dataclass
class _Write:
    meeting_id: str
    utterances: list[Utterance]
    l1: tuple[Utterance | None, list[TopicSegment], ManagerState] | None = None


class ResilientRepository:
    """A MeetingRepository around a SqlRepository that survives database outages."""

    def __init__(
        self,
        inner: SqlRepository,
        *,
        max_queued_utterances: int = 10_000,
        retry_initial_seconds: float = 0.2,
        retry_max_seconds: float = 5.0,
    ) -> None:
        self.inner = inner
        self._max_queued = max_queued_utterances
        self._retry_initial = retry_initial_seconds
        self._retry_max = retry_max_seconds
        self._queue: deque[_Write] = deque()
        self._queued_utterances = 0
        self._flusher: asyncio.Task[None] | None = None
        self._failure: StoreError | None = None
        self._outage_started = 0.0
        self.outages = 0
        self.retries = 0

    @property
    def queued(self) -> int:
        """Utterances accepted but not yet stored."""
        return self._queued_utterances

    # ------------------------------------------------------------------ writes

    async def append_utterances(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        write = _Write(meeting_id, list(utterances))
        if self._queue and self._queued_utterances + len(write.utterances) > self._max_queued:
            DB_BACKPRESSURE.inc()
            raise BackPressureError(
                f"meeting {meeting_id}: the database has been unreachable for "
                f"{time.monotonic() - self._outage_started:.0f} s and {self._queued_utterances} "
                "utterances are waiting in memory (DB_WRITE_QUEUE_MAX); this utterance was not "
                "accepted: retry it when the database is back"
            )
        await self._submit(write)

    async def save_l1_update(
        self,
        meeting_id: str,
        *,
        utterance: Utterance | None,
        segments: Sequence[TopicSegment],
        state: ManagerState,
    ) -> None:
        await self._submit(_Write(meeting_id, [], (utterance, list(segments), state)))

    async def _submit(self, write: _Write) -> None:
        if self._failure is not None:
            raise self._failure
        if self._queue:
            self._enqueue(write)
            return
        try:
            await self._apply_with_one_retry(write)
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            self._begin_outage(write, exc)

    async def _apply_with_one_retry(self, write: _Write) -> None:
        try:
            await self._apply(write)
        except Exception as exc:
            if not is_unavailable(exc):
                raise
            await self._apply(write)

    async def _apply(self, write: _Write) -> None:
        if write.l1 is None:
            await self.inner.append_utterances(write.meeting_id, write.utterances)
            return
        utterance, segments, state = write.l1
        await self.inner.save_l1_update(
            write.meeting_id, utterance=utterance, segments=segments, state=state
        )

    def _enqueue(self, write: _Write) -> None:
        self._queue.append(write)
        self._queued_utterances += len(write.utterances)
        DB_WRITE_QUEUE_DEPTH.set(self._queued_utterances)

    def _begin_outage(self, write: _Write, exc: BaseException) -> None:
        self._enqueue(write)
        if self._flusher is not None and not self._flusher.done():
            return  # a concurrent write (another meeting) already started the flush
        self.outages += 1
        DB_OUTAGES.inc()
        self._outage_started = time.monotonic()
        logger.error(
            "db_outage_started",
            meeting_id=write.meeting_id,
            error=_describe(exc),
            queued=self._queued_utterances,
            retry_initial_seconds=self._retry_initial,
        )
        self._flusher = asyncio.create_task(self._flush(), name="db-outage-flush")

    # ------------------------------------------------------------------ flush

    def _next_batch(self) -> tuple[_Write, int]:
        """The head write, merged with the utterance writes of the same meeting behind it."""
        head = self._queue[0]
        if head.l1 is not None:
            return head, 1
        merged = _Write(head.meeting_id, list(head.utterances))
        taken = 1
        for write in list(self._queue)[1:]:
            if (
                write.l1 is not None
                or write.meeting_id != head.meeting_id
                or len(merged.utterances) + len(write.utterances) > FLUSH_BATCH
            ):
                break
            merged.utterances += write.utterances
            taken += 1
        return merged, taken

    async def _flush(self) -> None:
        delay, attempts, flushed = self._retry_initial, 0, 0
        while self._queue:
            batch, taken = self._next_batch()
            try:
                await self._apply(batch)
            except Exception as exc:
                if not is_unavailable(exc):
                    self._fail(exc)
                    return
                attempts += 1
                self.retries += 1
                DB_WRITE_RETRIES.inc()
                logger.warning(
                    "db_write_retry",
                    attempt=attempts,
                    delay_seconds=round(delay, 2),
                    queued=self._queued_utterances,
                    error=_describe(exc),
                )
                await asyncio.sleep(delay)
                delay = min(delay * 2, self._retry_max)
                continue
            for _ in range(taken):
                self._queue.popleft()
            self._queued_utterances -= len(batch.utterances)
            flushed += len(batch.utterances)
            DB_WRITE_QUEUE_DEPTH.set(self._queued_utterances)
        logger.warning(
            "db_outage_ended",
            duration_seconds=round(time.monotonic() - self._outage_started, 2),
            flushed_utterances=flushed,
            retries=attempts,
        )

    def _fail(self, exc: Exception) -> None:
        message = (
            f"{self._queued_utterances} accepted utterance(s) could not be stored after "
            f"the database came back: {_describe(exc)}"
        )
        self._failure = exc if isinstance(exc, StoreError) else StoreError(message)
        logger.error(
            "db_write_failed", error=_describe(exc), unstored_utterances=self._queued_utterances
        )

    async def drain(self) -> None:
        """Wait until every accepted write is stored (returns at once when healthy)."""
        if self._flusher is not None:
            await asyncio.shield(self._flusher)
            self._flusher = None
        if self._failure is not None:
            raise self._failure

    # ------------------------------------------------------------------ reads (after a drain,
    # so a reader always sees its own writes)

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]:
        await self.drain()
        return await self.inner.load_state(meeting_id)

    async def get_utterances(
        self,
        meeting_id: str,
        *,
        after_seq: int = 0,
        until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]:
        await self.drain()
        return await self.inner.get_utterances(
            meeting_id, after_seq=after_seq, until_seq=until_seq, limit=limit
        )

    async def get_last_utterances(
        self,
        meeting_id: str,
        limit: int,
        *,
        until_seq: int | None = None,
        speaker_id: str | None = None,
    ) -> list[Utterance]:
        await self.drain()
        return await self.inner.get_last_utterances(
            meeting_id, limit, until_seq=until_seq, speaker_id=speaker_id
        )

    async def get_speaker_ids(self, meeting_id: str, *, until_seq: int | None = None) -> list[str]:
        await self.drain()
        return await self.inner.get_speaker_ids(meeting_id, until_seq=until_seq)

    async def last_seq(self, meeting_id: str) -> int:
        await self.drain()
        return await self.inner.last_seq(meeting_id)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300]
