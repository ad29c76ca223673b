"""The agent call pipeline: plan -> build context -> generate -> attribute -> persist.

Generation degrades instead of failing: a cached answer to the same prompt, else the LLM
(behind a circuit breaker), else a template answer built from the context, else the
retrieved evidence itself. The answer's `mode` says which one it is.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter
from typing import Protocol

import structlog

from mithub.agent.answer import LLM_ANSWER_SCHEMA, Answer, AnswerMode, Citation, LLMAnswer
from mithub.agent.attribution import attribute
from mithub.agent.context_items import context_items
from mithub.agent.prompts import answer_instructions, user_message
from mithub.agent.session import MeetingSession
from mithub.agent.templates import retrieval_only_answer, template_answer
from mithub.clock import Clock, utc_now
from mithub.context.builder import ContextBuilder
from mithub.context.formatting import format_context_as_system_prompt
from mithub.context.models import AgentCallType, AgentContext, Utterance
from mithub.errors import LLMError, LLMOutputError
from mithub.llm import LLMClient
from mithub.llm.breaker import CircuitBreaker
from mithub.llm.cache import ResponseCache
from mithub.llm.json_output import parse_into
from mithub.record.meeting_record import MeetingRecord
from mithub.record.ledger import SeriesLedger, build_ledger
from mithub.record.models import DecisionChange
from mithub.observability import bind_log_context, record_agent_call
from mithub.store.records import AgentCallRecord
from mithub.text import content_tokens

logger = structlog.get_logger(__name__)

MAX_QUERY_CHARS = 2000
_WINDOW_MARGIN = 64  # chat template tokens around the messages


class AgentCallRecorder(Protocol):
    async def record_agent_call(self, call: AgentCallRecord) -> None: ...


class ChangeSource(Protocol):
    async def series_changes(self, series_id: str) -> list[DecisionChange]: ...

    async def series_records(self, series_id: str) -> list[MeetingRecord]: ...

    async def get_utterances(self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
                             limit: int | None = None) -> list[Utterance]: ...


class AgentPipeline:
    def __init__(
        self,
        builder: ContextBuilder,
        *,
        llm: LLMClient | None = None,
        max_output_tokens: int = 512,
        cache: ResponseCache | None = None,
        breaker: CircuitBreaker | None = None,
        recorder: AgentCallRecorder | None = None,
        records: ChangeSource | None = None,
        clock: Clock = utc_now,
    ) -> None:
        self.builder = builder
        self._llm = llm
        self._max_output_tokens = max_output_tokens
        self.cache = cache or ResponseCache()
        self.breaker = breaker or CircuitBreaker()
        self._recorder = recorder
        self._records = records
        self._clock = clock
        self.modes: Counter[str] = Counter()

    async def call(
        self,
        session: MeetingSession,
        call_type: AgentCallType,
        query: str | None = None,
        *,
        source: str = "http",
        requested_by: str | None = None,
        include_context: bool = False,
    ) -> Answer:
        # Every event logged while answering (LLM retries, store warnings) carries these ids.
        with bind_log_context(meeting_id=session.meeting_id, call_id=uuid.uuid4().hex[:12],
                              call_type=call_type):
            return await self._call(session, call_type, query, source, requested_by, include_context)

    async def _call(self, session: MeetingSession, call_type: AgentCallType, query: str | None,
                    source: str, requested_by: str | None, include_context: bool) -> Answer:
        started = time.perf_counter()
        query = (query or "").strip()[:MAX_QUERY_CHARS] or None
        sync = getattr(self.builder.past, "sync", None)
        if sync is not None:  # meetings finished anywhere since the last call (throttled)
            await sync()
        # After the memory: a finished meeting's turns come indexed from it (`prepared`).
        await session.sync_transcript()
        required = self.plan_topics(session, query)
        ledger = await self._ledger(session, call_type, query)
        ctx = await asyncio.to_thread(
            self.builder.build_context, call_type, session.manager, query,
            transcript=session.transcript, required_topics=required, series_id=session.series_id,
            ledger=ledger,
        )
        if session.started_at is not None:  # what the prompt and the citations show: the meeting's clock
            ctx = ctx.model_copy(update={"current_time": ctx.current_time.astimezone(session.started_at.tzinfo)})
        ctx = await self._fit_exactly(ctx)
        record, changes = await self._record(session, call_type)
        text, citations, mode = await self._generate(ctx, record, changes)
        answer = Answer(
            meeting_id=session.meeting_id, call_type=call_type, query=query, answer=text,
            citations=citations, mode=mode, context_tokens=ctx.token_count,
            latency_ms=round((time.perf_counter() - started) * 1000, 1), created_at=self._clock(),
            context=context_items(ctx, self.builder.budget.count) if include_context else None,
        )
        self.modes[mode] += 1
        record_agent_call(call_type, mode, time.perf_counter() - started)
        logger.info("agent_call_answered", meeting_id=session.meeting_id, call_type=call_type,
                    mode=mode, context_tokens=ctx.token_count, latency_ms=answer.latency_ms,
                    citations=len(citations))
        await self._persist(answer, session, source, requested_by)
        return answer

    def plan_topics(self, session: MeetingSession, query: str | None) -> list[str]:
        """Topics that need detail for this query (seed 002 §10.3.3's first stage): those whose
        name, keywords or decisions share words with the query. LLM-free, so planning never
        costs a second model call on a CPU."""
        if not query:
            return []
        words = set(content_tokens(query))
        return [
            s.name for s in session.manager.get_l1_segments()
            if words & set(content_tokens(" ".join([s.name, *s.keywords, *s.key_decisions])))
        ]

    async def _fit_exactly(self, ctx: AgentContext) -> AgentContext:
        """With a server that can tokenize, count the real prompt and, if it would not leave
        room for the answer in the model's window, cut the context to fit (once); the
        context's token count becomes the exact one."""
        count = getattr(self._llm, "count_tokens", None)
        if count is None or not self.breaker.allow_probe():
            return ctx
        exact = await count(self._prompt(ctx))
        if exact is None:
            return ctx
        limit = self.builder.model_window - self._max_output_tokens - _WINDOW_MARGIN
        if exact > limit:
            logger.info("context_cut_to_exact_count", exact=exact, limit=limit, call_type=ctx.call_type)
            ctx = await asyncio.to_thread(self.builder.shrink, ctx, limit / exact * 0.95)
            exact = await count(self._prompt(ctx)) or exact
        return ctx.model_copy(update={"token_count": exact})

    @staticmethod
    def _prompt(ctx: AgentContext) -> str:
        system = f"{answer_instructions(ctx.call_type)}\n\n{format_context_as_system_prompt(ctx)}"
        return f"{system}\n{user_message(ctx.call_type, ctx.user_query)}"

    async def _ledger(self, session: MeetingSession, call_type: AgentCallType, query: str | None
                      ) -> SeriesLedger | None:
        """The series ledger, for the calls that quote past meetings (the builder marks the
        changed decisions they quote); None without a store or when it cannot be read."""
        if self._records is None or not query or call_type not in ("IMMEDIATE_RESPONSE", "SEARCH"):
            return None
        try:
            series = session.series_id or session.meeting_id
            return build_ledger(series, await self._records.series_records(series),
                                await self._records.series_changes(series))
        except Exception as exc:  # noqa: BLE001 - the answer goes out without the ledger's marks
            logger.warning("series_ledger_unavailable", meeting_id=session.meeting_id, error=str(exc))
            return None

    async def _record(self, session: MeetingSession, call_type: AgentCallType
                      ) -> tuple[MeetingRecord | None, list[DecisionChange]]:
        """The meeting's record for the template answers that list what it settled, and the
        past decisions it changed (from the store, when the pipeline has one)."""
        if call_type not in ("SUMMARY", "ACTION_EXTRACTION"):
            return None, []
        record = await session.meeting_record(self._records)
        changes: list[DecisionChange] = []
        if self._records is not None and call_type == "SUMMARY":
            try:
                changes = [c for c in await self._records.series_changes(session.series_id or session.meeting_id)
                           if c.meeting_id == session.meeting_id]
            except Exception as exc:  # noqa: BLE001 - the summary goes out without them
                logger.warning("decision_changes_unavailable", meeting_id=session.meeting_id, error=str(exc))
        return record, changes

    async def _generate(self, ctx: AgentContext, record: MeetingRecord | None = None,
                        changes: list[DecisionChange] | None = None) -> tuple[str, list[Citation], AnswerMode]:
        system = f"{answer_instructions(ctx.call_type)}\n\n{format_context_as_system_prompt(ctx)}"
        user = user_message(ctx.call_type, ctx.user_query)
        key = ResponseCache.key(getattr(self._llm, "model", "none"), system, user)
        if (cached := self.cache.get(key)) is not None:
            parsed = _parse(cached)
            if parsed is not None:
                return parsed.answer, attribute(parsed.answer, parsed.citations, ctx), "cache"
        if self._llm is not None and self.breaker.allow():
            try:
                raw = await self._llm.complete_json(system=system, user=user, schema=LLM_ANSWER_SCHEMA,
                                                    max_tokens=self._max_output_tokens)
                parsed = parse_into(raw, LLMAnswer)
            except LLMOutputError as exc:
                self.breaker.record_success()  # the server answered; only its output was unusable
                logger.warning("llm_answer_unparseable", call_type=ctx.call_type, error=str(exc))
            except LLMError as exc:
                self.breaker.record_failure()
                logger.warning("llm_answer_failed", call_type=ctx.call_type, error=str(exc),
                               breaker=self.breaker.state)
            else:
                self.breaker.record_success()
                self.cache.put(key, raw)
                return parsed.answer, attribute(parsed.answer, parsed.citations, ctx), "llm"
        templated = template_answer(ctx, record, changes or [])
        if templated is not None:
            return templated[0], templated[1], "template"
        text, citations = retrieval_only_answer(ctx)
        return text, citations, "retrieval_only"

    async def _persist(self, answer: Answer, session: MeetingSession, source: str,
                       requested_by: str | None) -> None:
        if self._recorder is None:
            return
        record = AgentCallRecord(
            meeting_id=answer.meeting_id, call_type=answer.call_type, source=source,
            query=answer.query or "", requested_by=requested_by, at_seq=session.manager.last_seq,
            status="answered", mode=answer.mode, answer=answer.answer,
            citations=[c.model_dump(mode="json") for c in answer.citations],
            details={"context_tokens": answer.context_tokens}, latency_ms=answer.latency_ms,
            completed_at=self._clock(),
        )
        try:
            await self._recorder.record_agent_call(record)
        except Exception as exc:  # an answered call is not failed by its bookkeeping
            logger.warning("agent_call_not_recorded", meeting_id=answer.meeting_id, error=str(exc))


def _parse(raw: str) -> LLMAnswer | None:
    try:
        return parse_into(raw, LLMAnswer)
    except LLMOutputError:
        return None
