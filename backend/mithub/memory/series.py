"""One series' finished meetings as one searchable transcript: the same search as today's
meeting (BM25 over Korean morphemes and English words fused with embedding similarity, the
best stretch of discussion plus the best single turns), run over every past turn of the
series, plus the past topic segments.

Two things differ from today's search, because the hard part of a past question is finding
which meeting, and which part of it, discussed the answer. Turns also score by their region
(`SeriesIndex`), and the past budget is spread wider: a shorter stretch (`SPAN_SHARE`) and
past turns condensed tighter (`PAST_TURN_MAX_TOKENS`), so more places of the series are
quoted. On benchmarks/meeting_series.py the stretch share and the region weight are chosen
by cross-validation over series; the condensing was set there by hand: the shorter the past
lines, the more was found (8 to 20 tokens tried), and 12 still keeps a clause of each turn.

Turns get running row ids in the index (it wants increasing ids); each row maps back to its
meeting and seq, and an excerpt never runs across two meetings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from mithub.context.formatting import past_topic_lines, past_utterance_line
from mithub.context.models import PastExcerpt, PastMeetingRef, PastTopic, TopicSegment, Utterance
from mithub.context.transcript_index import query_terms
from mithub.embedders.base import Embedder, text_key
from mithub.memory.cache import CachedMeeting
from mithub.memory.series_index import REGION_WEIGHT, SeriesIndex
from mithub.memory.vectors import StoredVectors
from mithub.text import content_tokens

# A past topic is shown when it is about the query: cosine above this, or shared key terms.
TOPIC_MIN_COSINE = 0.35
TOPIC_SHARE = 0.2  # of the past budget, at most, for the best past topic
SPAN_SHARE = 0.4  # of the turns' budget for the best stretch; the rest for single turns elsewhere
PAST_TURN_MAX_TOKENS = 12  # text kept of a condensed past turn (its key turn keeps four times that)


@dataclass
class _Meeting:
    ref: PastMeetingRef
    cached: CachedMeeting
    first_row: int = 0


@dataclass
class SeriesMemory:
    series_id: str
    embedder: Embedder
    count_text: Callable[[str], int]
    turn_max_tokens: int = 0  # 0: past turns quoted whole; else condensed, to PAST_TURN_MAX_TOKENS at most
    span_share: float = SPAN_SHARE
    region_weight: float = REGION_WEIGHT
    meetings: dict[str, _Meeting] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._feed = StoredVectors(self.embedder)
        self._reset()

    def _reset(self) -> None:
        self._rows: list[tuple[_Meeting, Utterance]] = []
        condensed = min(self.turn_max_tokens, PAST_TURN_MAX_TOKENS) if self.turn_max_tokens > 0 else 0
        self._index = SeriesIndex(self._feed, self._row_cost, region_weight=self.region_weight,
                                  turn_max_tokens=condensed, count_text=self.count_text)
        self._topics: list[tuple[_Meeting, TopicSegment]] = []
        self._topic_vectors = np.zeros((0, self.embedder.dim), dtype=np.float32)
        self._topic_terms: list[set[str]] = []
        self._tokens = 0

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def total_tokens(self) -> int:
        return self._tokens

    def add(self, ref: PastMeetingRef, cached: CachedMeeting) -> None:
        meeting = _Meeting(ref, cached, first_row=len(self._rows))
        self.meetings[ref.meeting_id] = meeting
        self._feed.known = {text_key("d", u.text): v for u, v in zip(cached.utterances, cached.vectors, strict=True)}
        rows = []
        for u in cached.utterances:
            self._rows.append((meeting, u))
            rows.append(u.model_copy(update={"id": len(self._rows)}))
        self._index.add(rows, tokens=cached.tokens)  # one meeting: its regions stay inside it
        self._tokens = self._index.total_tokens
        self._feed.known = {}
        # The index holds the vectors now; a second copy would double the memory's size.
        meeting.cached = replace(cached, vectors=np.zeros((0, self.embedder.dim), dtype=np.float32))
        texts = [_topic_text(s) for s in cached.segments]
        if texts:
            self._topics += [(meeting, s) for s in cached.segments]
            self._topic_vectors = np.concatenate([self._topic_vectors, self.embedder.embed_documents(texts)])
            self._topic_terms += [set(content_tokens(t)) for t in texts]

    def remove(self, meeting_id: str) -> None:
        """Drop a meeting (reopened, or gone from the store): rebuilt from what is held."""
        kept = self._held(lambda m: m != meeting_id)
        self.meetings = {}
        self._reset()
        for meeting, vectors in kept:
            self.add(meeting.ref, replace(meeting.cached, vectors=vectors))

    def without(self, meeting_ids: set[str]) -> SeriesMemory:
        """A copy of this series without `meeting_ids`, indexed in the same order: what a
        search saw before those meetings had finished (its BM25 statistics, regions and
        budgets are those of the meetings it holds, not a filter over a bigger index)."""
        view = SeriesMemory(self.series_id, self.embedder, self.count_text, self.turn_max_tokens,
                            span_share=self.span_share, region_weight=self.region_weight)
        for meeting, vectors in self._held(lambda m: m not in meeting_ids):
            view.add(meeting.ref, replace(meeting.cached, vectors=vectors))
        return view

    def prepared(self, meeting_id: str) -> CachedMeeting | None:
        """The meeting's turns, their vectors (from the index) and search tokens."""
        meeting = self.meetings.get(meeting_id)
        if meeting is None:
            return None
        vectors = self._index.vector_rows(meeting.first_row, meeting.first_row + len(meeting.cached.utterances))
        return replace(meeting.cached, vectors=vectors)

    def _held(self, keep: Callable[[str], bool]) -> list[tuple[_Meeting, np.ndarray]]:
        return [(m, self._index.vector_rows(m.first_row, m.first_row + len(m.cached.utterances)))
                for m in self.meetings.values() if keep(m.ref.meeting_id)]

    def _row_cost(self, row: Utterance) -> int:
        meeting, _ = self._rows[row.id - 1]
        return self.count_text(past_utterance_line(meeting.ref, row, "P00"))

    # ------------------------------------------------------------------ search

    def mentions(self, terms: list[str]) -> set[str]:
        return self._index.mentions(terms)

    def search(self, query: str, budget_tokens: int) -> tuple[list[PastTopic], list[PastExcerpt]]:
        if not self._rows or budget_tokens <= 0:
            return [], []
        topics = self._best_topic(query, int(budget_tokens * TOPIC_SHARE))
        room = budget_tokens - sum(t.tokens for t in topics)
        self._index.region_weight = self.region_weight
        excerpts = []
        for found in self._index.search(query, budget_tokens=room, span_share=self.span_share):
            excerpts += self._split_by_meeting(found.utterances, found.score)
        return topics, excerpts

    def turn(self, meeting_id: str, seq: int) -> PastExcerpt | None:
        """One turn of a meeting held here, quoted whole (a decision's current value)."""
        meeting = self.meetings.get(meeting_id)
        found = next((u for u in meeting.cached.utterances if u.id == seq), None) if meeting else None
        if meeting is None or found is None:
            return None
        tokens = self.count_text(past_utterance_line(meeting.ref, found, "P00")) + 2
        return PastExcerpt(meeting=meeting.ref, utterances=[found], said=[found.text], score=1.0, tokens=tokens)

    def _split_by_meeting(self, rows: list[Utterance], score: float) -> list[PastExcerpt]:
        out: list[PastExcerpt] = []
        for row in rows:
            meeting, original = self._rows[row.id - 1]
            shown = row.model_copy(update={"id": original.id})
            if not out or out[-1].meeting.meeting_id != meeting.ref.meeting_id:
                out.append(PastExcerpt(meeting=meeting.ref, utterances=[], score=score, tokens=1))
            out[-1].utterances.append(shown)
            out[-1].said.append(original.text)
            out[-1].tokens += self.count_text(past_utterance_line(meeting.ref, shown, "P00")) + 1
        return out

    def _best_topic(self, query: str, budget: int) -> list[PastTopic]:
        if not self._topics or budget <= 0:
            return []
        vector = self.embedder.embed_queries([query])[0].astype(np.float32)
        cosine = self._topic_vectors @ vector
        terms = set(query_terms(query))
        overlap = np.array([len(terms & t) / max(len(terms), 1) for t in self._topic_terms])
        score = 0.5 * cosine + 0.5 * overlap
        best = int(np.argmax(score))
        if cosine[best] < TOPIC_MIN_COSINE and overlap[best] < 0.5:
            return []
        meeting, segment = self._topics[best]
        tokens = sum(self.count_text(line) + 1 for line in past_topic_lines(meeting.ref, segment))
        if tokens > budget:
            return []
        return [PastTopic(meeting=meeting.ref, segment=segment, score=float(score[best]), tokens=tokens)]


def _topic_text(segment: TopicSegment) -> str:
    return " ".join([segment.name, segment.summary, *segment.key_decisions, *segment.action_items])
