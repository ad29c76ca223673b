"""OrganisationMemory: every finished meeting, by series, searchable during a meeting.

    memory = OrganisationMemory(store, embedder, config=get_memory_config())
    await memory.sync()                    # picks up meetings finished anywhere since
    topics, excerpts = memory.search_past("지난주에 예산 얼마로 했죠?", series_id="weekly",
                                          exclude_meeting_id=today, budget_tokens=600)

The store is the source of truth. `sync()` asks it which meetings are finished (one small
query, at most every `MEMORY_SYNC_SECONDS`), adds the new ones from the disk cache or, when
that is missing or stale, from the store (turns, topics and the vectors the live meeting
stored; a turn is embedded only if its vector was never stored), and drops meetings that are
no longer finished. Every process (worker, API) does this on its own, so a meeting finalized
by one is searchable in another within seconds, without a restart.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import structlog
from tqdm import tqdm

from mithub.config import MemoryConfig, get_memory_config
from mithub.context.models import PastExcerpt, PastMeetingRef, PastTopic
from mithub.context.transcript_index import turn_tokens
from mithub.embedders.base import Embedder, text_key
from mithub.embedders.vector_cache import VECTORS_DIR, PersistentCachedEmbedder
from mithub.memory.cache import CachedMeeting, load_meeting, save_meeting
from mithub.memory.series import SeriesMemory
from mithub.memory.source import MemorySource
from mithub.store.records import MeetingInfo
from mithub.text import has_hangul

logger = structlog.get_logger(__name__)

_MAX_VIEWS = 8  # finished meetings asked about, whose series views are kept built


class OrganisationMemory:
    """Implements the ContextBuilder's `PastMeetingSearch` port."""

    def __init__(
        self,
        source: MemorySource,
        embedder: Embedder,
        *,
        config: MemoryConfig | None = None,
        count_text: Callable[[str], int],
        turn_max_tokens: int = 0,
        progress: bool | None = None,
    ) -> None:
        self.config = config or get_memory_config()
        self._source = source
        self._embedder = embedder
        self._count_text = count_text
        self._turn_max_tokens = turn_max_tokens
        self._root = Path(self.config.cache_dir) if self.config.cache_dir else None
        # What the store never had a vector for goes through the same content-hash cache as an
        # index build (`DIR/vectors`), so it is encoded once, whatever restarts or rebuilds follow.
        self._encoder = PersistentCachedEmbedder(embedder, self._root / VECTORS_DIR) if self._root else embedder
        self._progress = sys.stderr.isatty() if progress is None else progress
        self.series: dict[str, SeriesMemory] = {}
        self._indexed: dict[str, MeetingInfo] = {}
        # Series as a finished meeting saw them while it ran (`_as_of`), by what they leave out.
        self._views: dict[tuple[str, frozenset[str]], SeriesMemory] = {}
        self._lock = threading.Lock()
        self._sync_lock = asyncio.Lock()
        self._synced_at = float("-inf")
        self.stats = {"from_cache": 0, "from_store": 0, "embedded": 0}

    @property
    def meeting_ids(self) -> set[str]:
        return set(self._indexed)

    @property
    def enabled(self) -> bool:
        return self.config.scope != "off"

    # ------------------------------------------------------------------ keeping current

    async def sync(self, *, force: bool = False) -> int:
        """Bring the index in step with the store; returns how many meetings were added."""
        if not self.enabled:
            return 0
        async with self._sync_lock:
            if not force and time.monotonic() - self._synced_at < self.config.sync_seconds:
                return 0
            self._synced_at = time.monotonic()
            finished = {m.id: m for m in await self._source.finished_meetings()}
            for meeting_id, info in list(self._indexed.items()):
                if finished.get(meeting_id) != info:  # reopened, finished again, or deleted
                    await asyncio.to_thread(self._remove, info)
            fresh = [m for m in finished.values() if m.id not in self._indexed]
            if not fresh:
                return 0
            started = time.perf_counter()
            for info in tqdm(fresh, desc="memory index", unit="meeting", file=sys.stderr,
                             disable=not self._progress or len(fresh) < 2):
                cached = await self._load(info)
                await asyncio.to_thread(self._add, info, cached)
            logger.info("memory_synced", added=len(fresh), meetings=len(self._indexed),
                        series=len(self.series), seconds=round(time.perf_counter() - started, 3),
                        **self.stats)
            return len(fresh)

    def prepared(self, meeting_id: str, model_id: str) -> CachedMeeting | None:
        """A finished meeting as indexed here: its turns with their vectors (of `model_id`,
        else None) and search tokens, so a call on it indexes its transcript without embedding
        or analysing a turn again. None if the meeting is not held."""
        if model_id != self._embedder.model_id:
            return None
        with self._lock:
            info = self._indexed.get(meeting_id)
            series = self.series.get(info.series_id) if info else None
            return series.prepared(meeting_id) if series else None

    async def _load(self, info: MeetingInfo) -> CachedMeeting:
        model_id = self._embedder.model_id
        if self._root is not None:
            cached = await asyncio.to_thread(load_meeting, self._root, model_id, info)
            if cached is not None:
                self.stats["from_cache"] += 1
                return cached
        utterances = await self._source.get_utterances(info.id)
        _, segments = await self._source.load_state(info.id)
        stored = await self._source.stored_vectors(info.id, model_id)
        vectors = await asyncio.to_thread(self._vectors, [u.text for u in utterances], stored)
        tokens = await asyncio.to_thread(lambda: [turn_tokens(u) for u in utterances])
        cached = CachedMeeting(info=info, utterances=utterances, segments=segments,
                               vectors=vectors, model_id=model_id, tokens=tokens)
        self.stats["from_store"] += 1
        if self._root is not None:
            try:
                await asyncio.to_thread(save_meeting, self._root, cached)
            except OSError as exc:  # a cache: searching works without it
                logger.warning("memory_cache_write_failed", meeting_id=info.id, error=str(exc))
        return cached

    def _vectors(self, texts: list[str], stored: dict[bytes, np.ndarray]) -> np.ndarray:
        out = np.empty((len(texts), self._embedder.dim), dtype=np.float32)
        missing = []
        for i, text in enumerate(texts):
            vector = stored.get(text_key("d", text))
            if vector is None or len(vector) != self._embedder.dim:
                missing.append(i)
            else:
                out[i] = vector
        if missing:
            persistent = self._encoder if isinstance(self._encoder, PersistentCachedEmbedder) else None
            before = persistent.encoded if persistent else 0
            out[missing] = self._encoder.embed_documents([texts[i] for i in missing])
            self.stats["embedded"] += persistent.encoded - before if persistent else len(missing)
        return out

    def _add(self, info: MeetingInfo, cached: CachedMeeting) -> None:
        with self._lock:
            series = self.series.get(info.series_id)
            if series is None:
                series = self.series[info.series_id] = SeriesMemory(
                    info.series_id, self._encoder, self._count_text, self._turn_max_tokens)
            series.add(self._ref(info, cached), cached)
            self._indexed[info.id] = info
            self._views.clear()

    def _remove(self, info: MeetingInfo) -> None:
        with self._lock:
            series = self.series.get(info.series_id)
            if series is not None:
                series.remove(info.id)
            self._indexed.pop(info.id, None)
            self._views.clear()
        logger.info("memory_meeting_dropped", meeting_id=info.id, series_id=info.series_id)

    def _ref(self, info: MeetingInfo, cached: CachedMeeting) -> PastMeetingRef:
        started = info.started_at  # on the meeting's own clock (its zone, from the store)
        korean = any(has_hangul(u.text) for u in cached.utterances[:20])
        label = f"{started.month}월 {started.day}일 회의" if korean else f"meeting of {started:%b} {started.day}"
        return PastMeetingRef(meeting_id=info.id, series_id=info.series_id, title=info.title,
                              started_at=started, label=label)

    # ------------------------------------------------------------------ search

    def mentions(self, terms: list[str], series_id: str | None, *, exclude_meeting_id: str | None = None) -> set[str]:
        """The terms said in some past meeting in scope."""
        with self._lock:
            pool = self._pool(series_id, exclude_meeting_id)
            return set().union(*(s.mentions(terms) for s in pool)) if pool else set()

    def _pool(self, series_id: str | None, meeting_id: str | None = None) -> list[SeriesMemory]:
        if self.config.scope == "series":
            pool = [self.series[series_id]] if series_id in self.series else []
        else:
            pool = list(self.series.values())
        later = self._as_of(meeting_id)
        return [self._view(s, later) for s in pool] if later else pool

    def _as_of(self, meeting_id: str | None) -> frozenset[str]:
        """What a call in `meeting_id` must not see: for a finished meeting, itself and the
        meetings that finished after it (a call made afterwards sees the memory its live calls
        saw, so it gets the same context); nothing for a meeting still running."""
        info = self._indexed.get(meeting_id) if meeting_id else None
        if info is None:
            return frozenset()
        end = info.ended_at or info.started_at
        return frozenset(m.id for m in self._indexed.values()
                         if m.id == info.id or (m.ended_at or m.started_at) > end)

    def _view(self, series: SeriesMemory, left_out: frozenset[str]) -> SeriesMemory:
        hidden = frozenset(left_out & set(series.meetings))
        if not hidden:
            return series
        key = (series.series_id, hidden)
        view = self._views.get(key)
        if view is None:
            if len(self._views) >= _MAX_VIEWS:
                self._views.clear()
            view = self._views[key] = series.without(set(hidden))
        return view

    def past_tokens(self, series_id: str | None, *, exclude_meeting_id: str | None = None) -> int:
        if not self.enabled:
            return 0
        with self._lock:
            return sum(s.total_tokens for s in self._pool(series_id, exclude_meeting_id))

    def past_turn(self, meeting_id: str, seq: int) -> PastExcerpt | None:
        """A turn of a finished meeting, whole; None when the meeting is not held."""
        with self._lock:
            info = self._indexed.get(meeting_id)
            series = self.series.get(info.series_id) if info else None
            return series.turn(meeting_id, seq) if series else None

    def search_past(
        self, query: str, *, series_id: str | None, exclude_meeting_id: str, budget_tokens: int
    ) -> tuple[list[PastTopic], list[PastExcerpt]]:
        """Past topics and turns for `query` within `budget_tokens`: the meeting's series
        (scope `series`) or every series (scope `organisation`), never the meeting itself."""
        if not self.enabled or budget_tokens <= 0:
            return [], []
        with self._lock:
            found = [s.search(query, budget_tokens) for s in self._pool(series_id, exclude_meeting_id) if len(s)]
        topics = sorted((t for f in found for t in f[0]), key=lambda t: -t.score)
        excerpts = sorted((e for f in found for e in f[1]), key=lambda e: -e.score)
        excerpts = [e for e in excerpts if e.meeting.meeting_id != exclude_meeting_id]
        topics = [t for t in topics if t.meeting.meeting_id != exclude_meeting_id]
        return _within(topics[:1], excerpts, budget_tokens)


def _within(topics: list[PastTopic], excerpts: list[PastExcerpt], budget: int
            ) -> tuple[list[PastTopic], list[PastExcerpt]]:
    used = sum(t.tokens for t in topics)
    kept = []
    for excerpt in excerpts:
        if used + excerpt.tokens <= budget:
            kept.append(excerpt)
            used += excerpt.tokens
    return topics, kept
