"""Notices a stuck meeting from outside it: a meeting whose event loop stops turning (a
handler that blocks) or whose stored-turn write hangs (a record call that never returns).

Each meeting of a thread-executor worker runs on its own thread and event loop, so a stuck
meeting holds up only itself; but from inside, it cannot tell. This thread, one per worker
process, reads each meeting's heartbeat and the age of its pending write, logs
`meeting_stalled` and counts `mithub_meeting_errors_total{stage="stalled"}` once per stall,
and `meeting_resumed` when it moves again.

    progress = MeetingProgress("RM_3kQ9...", stall_seconds=20)
    WATCHDOG.watch(progress)              # MeetingBot.start; its loop runs progress.heartbeat()
    progress.writing_since = time.monotonic()   # around each stored-turn write
    WATCHDOG.forget(progress)             # MeetingBot.aclose
"""

from __future__ import annotations

import asyncio
import threading
import time

import structlog

from mithub.observability import record_meeting_error

logger = structlog.get_logger(__name__)

CHECK_SECONDS = 1.0
HEARTBEAT_SECONDS = 1.0


class MeetingProgress:
    """One meeting's signs of life: its loop's heartbeat and its pending write's start."""

    def __init__(self, meeting_id: str, stall_seconds: float) -> None:
        self.meeting_id = meeting_id
        self.stall_seconds = stall_seconds
        self.beat = time.monotonic()  # the event loop's last turn
        self.writing_since: float | None = None  # the pending stored-turn write's start

    async def heartbeat(self) -> None:
        while True:
            self.beat = time.monotonic()
            await asyncio.sleep(HEARTBEAT_SECONDS)

    def stalled_for(self, now: float) -> tuple[float, str]:
        loop = now - self.beat - HEARTBEAT_SECONDS
        writing = self.writing_since
        ingest = now - writing if writing is not None else 0.0
        return (loop, "loop") if loop >= ingest else (ingest, "ingest")


class MeetingWatchdog:
    def __init__(self) -> None:
        self._watched: dict[int, MeetingProgress] = {}
        self._stalled: set[int] = set()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self.stalls = 0  # since the process started, for status and tests

    def watch(self, meeting: MeetingProgress) -> None:
        with self._lock:
            self._watched[id(meeting)] = meeting
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="meeting-watchdog", daemon=True)
                self._thread.start()

    def forget(self, meeting: MeetingProgress) -> None:
        with self._lock:
            self._watched.pop(id(meeting), None)
            self._stalled.discard(id(meeting))

    def check(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        with self._lock:
            watched = list(self._watched.items())
        for key, meeting in watched:
            seconds, what = meeting.stalled_for(now)
            if seconds > meeting.stall_seconds and key not in self._stalled:
                self._stalled.add(key)
                self.stalls += 1
                record_meeting_error("stalled")
                logger.error("meeting_stalled", meeting_id=meeting.meeting_id, stuck=what,
                             seconds=round(seconds, 1))
            elif seconds <= meeting.stall_seconds and key in self._stalled:
                self._stalled.discard(key)
                logger.info("meeting_resumed", meeting_id=meeting.meeting_id)

    def _run(self) -> None:
        while True:
            time.sleep(CHECK_SECONDS)
            try:
                self.check()
            except Exception as exc:  # noqa: BLE001 - the watchdog itself must not die
                logger.warning("watchdog_check_failed", error=f"{type(exc).__name__}: {exc}")


WATCHDOG = MeetingWatchdog()
