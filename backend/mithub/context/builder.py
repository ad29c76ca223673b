"""ContextBuilder (seed 002 §4, §10.2.4, §10.3.3–10.3.4; seed 000): the context of one agent
call, assembled per call type inside a token budget.

| call type          | L0          | L1                  | evidence                          |
|--------------------|-------------|---------------------|-----------------------------------|
| IMMEDIATE_RESPONSE | last 10     | relevant, if room   | transcript search, documents      |
| SUMMARY            | last 5      | all                 | transcript search if a query      |
| ACTION_EXTRACTION  | topic buffer| all                 | transcript search if a query      |
| SEARCH             | last 5      | all                 | documents, transcript search      |

Every call with a query also searches the meeting's own transcript: a question about
something said forty minutes ago is in neither L0 nor, verbatim, in L1. The budget is split
by the query type (seed 000), each part packed best-first, and the formatted prompt is
measured at the end: it never exceeds the call type's budget.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Protocol

from mithub.budget import ModelBudget, TokenBudgetManager
from mithub.clock import Clock, utc_now
from mithub.config import ContextConfig
from mithub.context.allocation import (
    ALLOCATIONS,
    IMMEDIATE_ALLOCATION,
    classify_query,
    drop_near_duplicates,
    rerank,
    split_budget,
    terms_of,
)
from mithub.context.formatting import format_context_as_system_prompt, segment_lines, topic_label, utterance_line
from mithub.context.ledger_evidence import Ledger, consult_ledger
from mithub.context.manager import ContextManager
from mithub.context.past_cues import asks_about_past
from mithub.context.models import (
    AgentCallType,
    AgentContext,
    DocumentPassage,
    Participant,
    PastExcerpt,
    PastTopic,
    TopicSegment,
    TranscriptExcerpt,
    Utterance,
)
from mithub.context.transcript_index import TranscriptIndex, query_terms
from mithub.embedders import Embedder
from mithub.observability import record_context_built


class DocumentSearch(Protocol):
    """Documents and past meetings (the hybrid retriever, adapted by the agent layer)."""

    def search_passages(self, query: str, top_k: int) -> list[DocumentPassage]: ...


class PastMeetingSearch(Protocol):
    """Finished meetings of the series or the organisation (`mithub.memory`)."""

    def search_past(
        self, query: str, *, series_id: str | None, exclude_meeting_id: str, budget_tokens: int
    ) -> tuple[list[PastTopic], list[PastExcerpt]]: ...

    def past_tokens(self, series_id: str | None, *, exclude_meeting_id: str | None = None) -> int:
        """Tokens of the past transcripts a search for `series_id` from that meeting would cover."""
        ...

    def mentions(self, terms: list[str], series_id: str | None, *, exclude_meeting_id: str | None = None
                 ) -> set[str]:
        """The terms said in some past meeting a search for `series_id` would cover."""
        ...


class ContextBuilder:
    def __init__(
        self,
        *,
        config: ContextConfig,
        embedder: Embedder,
        budget: TokenBudgetManager | None = None,
        documents: DocumentSearch | None = None,
        past: PastMeetingSearch | None = None,
        past_share: float = 0.5,
        past_cue_share: float = 0.75,
        adaptive_past_share: bool = True,
        clock: Clock = utc_now,
    ) -> None:
        self.config = config
        self.budget = budget or TokenBudgetManager()
        self._embedder = embedder
        self._documents = documents
        self.past = past
        self.past_share = past_share
        self.past_cue_share = past_cue_share
        self.adaptive_past_share = adaptive_past_share
        self._clock = clock
        self._model = ModelBudget.for_window(config.model_context_window)
        self._segment_costs: dict[tuple, int] = {}

    def warm_up(self) -> None:
        """Load the embedding model now (its first use loads it)."""
        self._embedder.embed_queries(["warm-up"])

    def new_transcript_index(self) -> TranscriptIndex:
        """An empty index of a meeting's turns, costed as this builder formats them."""
        return TranscriptIndex(self._embedder, lambda u: self.budget.count(utterance_line(u)),
                               turn_max_tokens=self.config.excerpt_turn_max_tokens, count_text=self.budget.count)

    def lines_cost(self, lines: list[str]) -> int:
        """Tokens of `lines` as part of the prompt: one more per line for its line break and
        the rounding a per-line count loses (summed over dozens of lines, that loss would
        overshoot the budget, and `_fit` would drop whole items to make up for it)."""
        return self.budget.total(lines) + len(lines)

    def call_budget(self, call_type: AgentCallType) -> int:
        wanted = {
            "IMMEDIATE_RESPONSE": self.config.budget_immediate_response,
            "SUMMARY": self.config.budget_summary,
            "ACTION_EXTRACTION": self.config.budget_action_extraction,
            "SEARCH": self.config.budget_search,
        }[call_type]
        return min(wanted, self._model.context)

    # ------------------------------------------------------------------ per call type

    def build_context(
        self,
        call_type: AgentCallType,
        context_manager: ContextManager,
        user_query: str | None = None,
        participants: list[Participant] | None = None,
        *,
        transcript: TranscriptIndex | None = None,
        required_topics: Sequence[str] = (),
        series_id: str | None = None,
        ledger: Ledger | None = None,
    ) -> AgentContext:
        """`ledger`: the series' decisions and their changes; a quoted decision that was
        changed is marked, and the turn of its current value leads (`ledger_evidence`)."""
        started = time.perf_counter()
        manager, query = context_manager, (user_query or "").strip() or None
        total = self.call_budget(call_type)
        if call_type == "IMMEDIATE_RESPONSE" and transcript is not None and len(transcript):
            # The quick call stays quick: a share of what it searches (today's transcript and
            # the past meetings in scope), within the call type's budget.
            searched = transcript.total_tokens + (
                self.past.past_tokens(series_id, exclude_meeting_id=manager.meeting_id) if self.past else 0)
            share = int(searched * self.config.immediate_max_meeting_share)
            total = min(total, max(share, self.config.immediate_min_tokens))
        uses_recent_window = call_type != "ACTION_EXTRACTION"
        allocation = IMMEDIATE_ALLOCATION if call_type == "IMMEDIATE_RESPONSE" and query \
            else ALLOCATIONS[classify_query(query)]
        participants = participants or self._participants(manager)
        roles = dict(manager.speaker_context.infer_roles())
        kinds = split_budget(
            total - self._overhead(manager, call_type, participants, roles), allocation,
            evidence=query is not None or call_type == "SEARCH",
            summaries=call_type != "IMMEDIATE_RESPONSE" or bool(manager.get_l1_segments()),
            recent=True,
        )
        if call_type == "IMMEDIATE_RESPONSE":
            recent = self._recent(manager.get_l0_utterances(10), kinds["recent"])
        elif uses_recent_window:
            recent = self._recent(manager.get_l0_utterances(5), kinds["recent"])
        else:  # the whole current topic, newest first if it does not fit
            recent = self._recent(manager.get_topic_utterances(), kinds["recent"] + kinds["summaries"] // 2)
            kinds["summaries"] -= kinds["summaries"] // 2
        # What the recent turns leave goes to the evidence (it answers the query), and what
        # the evidence leaves to the topic summaries.
        recent_spent = self.lines_cost([utterance_line(u) for u in recent])
        evidence_budget = kinds["evidence"] + max(kinds["recent"] - recent_spent, 0)
        past_topics, past_excerpts = self._past_evidence(
            call_type, query, manager.meeting_id, series_id, transcript, evidence_budget)
        past_spent = sum(t.tokens for t in past_topics) + sum(e.tokens for e in past_excerpts)
        excerpts, documents = self._evidence(call_type, query, transcript, recent,
                                             evidence_budget - past_spent)
        past_excerpts, excerpts, changes = consult_ledger(
            ledger, manager.meeting_id, transcript.utterances if transcript is not None else [],
            {u.id for u in recent}, past_excerpts, excerpts,
            past_turn=getattr(self.past, "past_turn", None) or (lambda _m, _s: None),
            turn_cost=lambda u: self.lines_cost([utterance_line(u)]) + 1)
        past_spent = sum(t.tokens for t in past_topics) + sum(e.tokens for e in past_excerpts)
        spent = recent_spent + past_spent + sum(e.tokens for e in excerpts) \
            + self.lines_cost([f"[D0] {d.source}: {d.text}" for d in documents])
        leftover = max(kinds["recent"] + kinds["evidence"] - spent, 0)
        segments = self._segments(manager.get_l1_segments(), query, required_topics,
                                  kinds["summaries"] + leftover)
        ctx = AgentContext(
            meeting_id=manager.meeting_id,
            current_time=self._clock(),
            call_type=call_type,
            recent_utterances=recent,
            current_topic=manager.current_topic,
            topic_segments=segments or None,
            pending_items=manager.get_pending_items() if call_type != "IMMEDIATE_RESPONSE" else None,
            participants=participants,
            speaker_roles=roles,
            user_query=query,
            transcript_excerpts=excerpts,
            past_topics=past_topics,
            past_excerpts=past_excerpts,
            documents=documents,
            decision_changes=changes,
            token_budget=total,
        )
        ctx = self._fit(ctx, total)
        record_context_built(call_type, time.perf_counter() - started, ctx.token_count)
        return ctx

    # ------------------------------------------------------------------ parts

    @staticmethod
    def _participants(manager: ContextManager) -> list[Participant]:
        roles = manager.speaker_context.speaker_roles
        return [Participant(user_id=sid, name=stats.name, role=roles.get(sid))
                for sid, stats in manager.speaker_context.speaker_stats.items()]

    def _recent(self, utterances: list[Utterance], budget: int) -> list[Utterance]:
        """Newest turns that fit; the latest turn is always kept (cut if it must be)."""
        if not utterances:
            return []
        kept = self.budget.keep_newest(utterances, budget, text_of=utterance_line, per_item=1)
        if kept:
            return kept
        latest = utterances[-1]
        room = max(budget - self.budget.count(utterance_line(latest.model_copy(update={"text": ""}))), 1)
        return [latest.model_copy(update={"text": self.budget.truncate_to_budget(latest.text, room)})]

    def _segments(
        self, segments: list[TopicSegment], query: str | None, required: Sequence[str], budget: int
    ) -> list[TopicSegment]:
        """Required and query-relevant topics first, then the most recent; shown in meeting
        order. A topic that does not fit whole is shown compressed (summary cut, lists short)."""
        if not segments or budget <= 0:
            return []
        wanted = set(required)
        ranked = [s for s in segments if s.name in wanted]
        if query:
            ranked += [s for s in rerank(segments, query, text_of=_segment_text,
                                         time_of=lambda s: s.updated_at, now=self._clock())
                       if s not in ranked and _overlaps(query, _segment_text(s))]
        ranked += [s for s in reversed(segments) if s not in ranked]
        chosen: list[TopicSegment] = []
        used = 0
        for i, segment in enumerate(ranked):
            cost = self._segment_cost(segment)
            # Without a query (a summary of the whole meeting) every topic gets a fair share of
            # what is left, so the meeting's first topics are cut, not dropped, for the last.
            room = budget - used if query else (budget - used) // (len(ranked) - i)
            if cost > room:
                # A summary of the whole meeting names every topic: one left no room for its
                # summary keeps its title line (a meeting with many topics, a tight budget).
                segment = self._compress(segment, room) or (None if query else self._title_only(segment, room))
                if segment is None:
                    continue
                cost = self._segment_cost(segment)
            chosen.append(segment)
            used += cost
        return sorted(chosen, key=lambda s: s.start_utterance_id)

    def _segment_cost(self, segment: TopicSegment) -> int:
        """Tokens of a segment as formatted; cached by content (segments change only on L1
        updates, and every call type shows them)."""
        key = (segment.id, segment.version, len(segment.summary), len(segment.key_decisions),
               len(segment.key_points), len(segment.action_items), len(segment.pending_items))
        cost = self._segment_costs.get(key)
        if cost is None:
            cost = self.lines_cost(segment_lines(segment, topic_label(segment)))
            if len(self._segment_costs) > 4096:
                self._segment_costs.clear()
            self._segment_costs[key] = cost
        return cost

    def _title_only(self, segment: TopicSegment, room: int) -> TopicSegment | None:
        bare = segment.model_copy(update={"summary": "", "key_points": [], "key_decisions": [], "pending_items": [],
                                          "action_items": [], "participants": [], "keywords": []})
        return bare if self._segment_cost(bare) <= room else None

    def _compress(self, segment: TopicSegment, room: int) -> TopicSegment | None:
        if room < 60:
            return None
        lists = {"key_points": [], "keywords": segment.keywords[:5], "participants": [],
                 "key_decisions": segment.key_decisions[-2:], "pending_items": segment.pending_items[-1:],
                 "action_items": segment.action_items[-2:]}
        compact = segment.model_copy(update=lists)
        fixed = self.lines_cost(segment_lines(compact.model_copy(update={"summary": ""}), topic_label(segment)))
        if fixed >= room:
            compact = compact.model_copy(update={"key_decisions": [], "pending_items": [], "action_items": []})
            fixed = self.lines_cost(segment_lines(compact.model_copy(update={"summary": ""}), topic_label(segment)))
        summary = self.budget.truncate_to_budget(segment.summary, room - fixed - 4)
        return compact.model_copy(update={"summary": summary}) if summary else None

    def _evidence(
        self,
        call_type: AgentCallType,
        query: str | None,
        transcript: TranscriptIndex | None,
        recent: list[Utterance],
        budget: int,
    ) -> tuple[list[TranscriptExcerpt], list[DocumentPassage]]:
        if not query or budget <= 0:
            return [], []
        doc_share = 0.6 if call_type == "SEARCH" else 0.3
        documents = self._document_passages(query, int(budget * doc_share)) if self._documents else []
        spent = self.lines_cost([f"[D0] {d.source}: {d.text}" for d in documents])
        excerpts: list[TranscriptExcerpt] = []
        if transcript is not None and len(transcript):
            shown = min((u.id for u in recent), default=transcript.last_seq + 1)
            excerpts = transcript.search(query, budget_tokens=budget - spent, exclude_from_seq=shown)
        return excerpts, documents

    def _past_evidence(
        self, call_type: AgentCallType, query: str | None, meeting_id: str, series_id: str | None,
        transcript: TranscriptIndex | None, budget: int,
    ) -> tuple[list[PastTopic], list[PastExcerpt]]:
        """Past meetings get a share of the evidence budget: most of it when the question
        points at the past ("지난주", "last time"), a smaller part otherwise (the answer may
        still lie there), none for call types about today's meeting alone."""
        if self.past is None or not query or call_type not in ("IMMEDIATE_RESPONSE", "SEARCH"):
            return [], []
        share = self.past_budget_share(query, series_id, transcript, meeting_id=meeting_id)
        return self.past.search_past(query, series_id=series_id, exclude_meeting_id=meeting_id,
                                     budget_tokens=int(budget * share))

    def past_budget_share(self, query: str, series_id: str | None, transcript: TranscriptIndex | None,
                          *, meeting_id: str | None = None) -> float:
        """`past_cue_share` for a question that points at the past; otherwise between
        `past_share` and that, by how much of what the question is about was never said today
        (its terms said in past meetings but not in today's transcript)."""
        if asks_about_past(query):
            return self.past_cue_share
        if not self.adaptive_past_share:
            return self.past_share
        terms = query_terms(query)
        said_before = self.past.mentions(terms, series_id, exclude_meeting_id=meeting_id) if self.past else set()
        said_today = transcript.mentions(terms) if transcript is not None else set()
        known = said_before | said_today
        if not known:
            return self.past_share
        unseen_today = len(known - said_today) / len(known)
        return self.past_share + (self.past_cue_share - self.past_share) * unseen_today

    def _document_passages(self, query: str, budget: int) -> list[DocumentPassage]:
        assert self._documents is not None
        found = self._documents.search_passages(query, top_k=8)
        if not found:
            return []
        vectors = self._embedder.embed_documents([p.text for p in found])
        diverse = drop_near_duplicates(found, vectors)
        ranked = rerank(diverse, query, text_of=lambda p: p.text, time_of=lambda p: None, now=self._clock())
        fitted = [p.model_copy(update={"text": self.budget.truncate_to_budget(p.text, max(budget // 2, 40))})
                  for p in ranked]
        return self.budget.pack(fitted, budget, text_of=lambda p: f"[D0] {p.source}: {p.text}", per_item=1,
                                skip_oversize=True)

    def _overhead(
        self,
        manager: ContextManager,
        call_type: AgentCallType,
        participants: list[Participant] | None = None,
        roles: dict[str, str] | None = None,
    ) -> int:
        """Tokens of the prompt's fixed parts (meeting header, data notice, participants and
        their roles, section titles)."""
        empty = AgentContext(meeting_id=manager.meeting_id, current_time=self._clock(),
                             call_type=call_type, current_topic=manager.current_topic,
                             participants=participants or [], speaker_roles=roles or {})
        return self.budget.count(format_context_as_system_prompt(empty)) + _SECTION_TITLES

    def shrink(self, ctx: AgentContext, factor: float) -> AgentContext:
        """The same context cut to `factor` of its budget (used when the LLM server's exact
        token count shows the estimate was low)."""
        budget = max(int(ctx.token_budget * factor), 1)
        return self._fit(ctx.model_copy(update={"token_budget": budget}), budget)

    @property
    def model_window(self) -> int:
        return self._model.context_window

    def _fit(self, ctx: AgentContext, total: int) -> AgentContext:
        """Measure the formatted prompt and, while it is over budget, drop one item at a time
        from each part in turn (least relevant document or excerpt, oldest topic or turn), so
        no part is emptied to save another; the latest turn always stays."""
        droppers = [
            ("documents", lambda c: c.documents[:-1]),
            ("transcript_excerpts", lambda c: c.transcript_excerpts[:-1]),
            ("past_excerpts", lambda c: c.past_excerpts[:-1]),
            ("past_topics", lambda c: c.past_topics[:-1]),
            ("pending_items", lambda c: (c.pending_items or [])[1:] or None),
            ("topic_segments", lambda c: (c.topic_segments or [])[1:] or None),
            ("recent_utterances", lambda c: c.recent_utterances[1:]),
        ]
        turn = 0
        while True:
            tokens = self.budget.count(format_context_as_system_prompt(ctx))
            if tokens <= total:
                return ctx.model_copy(update={"token_count": tokens})
            candidates = [(f, drop) for f, drop in droppers if _droppable(ctx, f)]
            if not candidates:
                if ctx.speaker_roles or ctx.participants:
                    ctx = ctx.model_copy(update={"speaker_roles": {}, "participants": []})
                    continue
                return ctx.model_copy(update={"token_count": tokens})
            field, drop = candidates[turn % len(candidates)]
            ctx = ctx.model_copy(update={field: drop(ctx)})
            turn += 1

    # ------------------------------------------------------------------ two-stage planning

    def build_planning_input_context(self, ctx: ContextManager, l0_limit: int = 10) -> str:
        """Planning input (seed 002 §10.3.3): recent turns and the list of L1 topics only."""
        lines = [f"## 현재 토픽: {ctx.current_topic}", "", "## L0 최근 발화"]
        recent = ctx.get_l0_utterances(limit=l0_limit)
        lines += [utterance_line(u, with_topic=True) for u in recent] or ["- 없음"]
        lines += ["", "## L1 토픽 목록"]
        segments = ctx.get_l1_segments()
        lines += [f"- {s.name} (utterances {s.start_utterance_id}~{s.end_utterance_id})"
                  for s in segments] or ["- 없음"]
        return "\n".join(lines)

    def build_required_topic_context(
        self, ctx: ContextManager, topic_names: list[str]
    ) -> tuple[str, list[str]]:
        """Details of the topics the planner asked for, and the names it asked for that do
        not exist (seed 002 §10.3.3)."""
        if not topic_names:
            return "", []
        segment_map = {seg.name: seg for seg in ctx.get_l1_segments()}
        missing = [name for name in topic_names if name not in segment_map]
        lines = ["## L1 토픽 상세"]
        for name in topic_names:
            if name in segment_map:
                lines += segment_lines(segment_map[name], topic_label(segment_map[name])) + [""]
        if len(lines) == 1:
            return "", missing
        return "\n".join(lines).strip(), missing


_SECTION_TITLES = 40  # "## 토픽별 요약 (L1)" and the other section titles, when present


def _droppable(ctx: AgentContext, field: str) -> bool:
    value = getattr(ctx, field)
    if field == "recent_utterances":
        return bool(value) and len(value) > 1
    return bool(value)


def _segment_text(segment: TopicSegment) -> str:
    return " ".join([segment.name, segment.summary, *segment.keywords, *segment.key_decisions])


def _overlaps(query: str, text: str) -> bool:
    return bool(terms_of(query) & terms_of(text))
