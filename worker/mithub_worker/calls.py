"""Agent calls in the room: chat commands and mentions on `lk.chat`, a spoken wake phrase,
and the `mithub.call` RPC method. Calls run beside transcription (never blocking it), at
most `WORKER_MAX_CONCURRENT_CALLS` at once per meeting; replies go to `lk.chat` with the
answer's citations (speaker, time) and its mode."""

from __future__ import annotations

import asyncio
import json
from collections import deque

import structlog
from livekit import rtc
from livekit.agents.types import TOPIC_CHAT

from mithub.agent import AgentPipeline, MeetingSession
from mithub.agent.answer import Answer
from mithub.config import WorkerConfig
from mithub.observability import record_meeting_error
from mithub_worker.commands import (
    CallRequest,
    CommandError,
    help_text,
    parse_chat,
    parse_rpc_payload,
    parse_wake_phrase,
)
from mithub_worker.transcription import Transcript

logger = structlog.get_logger(__name__)

RPC_MAX_RESPONSE_BYTES = 14_000  # LiveKit caps an RPC response at 15 KiB


class AgentCalls:
    def __init__(
        self,
        room: rtc.Room,
        session: MeetingSession,
        pipeline: AgentPipeline,
        config: WorkerConfig,
        *,
        korean: bool,
    ) -> None:
        self.room = room
        self.session = session
        self.pipeline = pipeline
        self.config = config
        self.korean = korean
        self._slots = asyncio.Semaphore(config.max_concurrent_calls)
        self._tasks: set[asyncio.Task[None]] = set()
        self._bot_names = [config.bot_name, *config.wake_phrase_list]
        # the latest answers, for logs and tests; every answer is stored with its call record
        self.answers: deque[Answer] = deque(maxlen=20)

    async def run(self, request: CallRequest, *, source: str, requested_by: str | None) -> Answer:
        async with self._slots:
            answer = await self.pipeline.call(self.session, request.call_type, request.query,
                                              source=source, requested_by=requested_by)
        self.answers.append(answer)
        logger.info("agent_call_answered", meeting_id=self.session.meeting_id, source=source,
                    call_type=request.call_type, mode=answer.mode,
                    latency_ms=round(answer.latency_ms))
        return answer

    def render(self, answer: Answer) -> str:
        return answer.render_text(korean=self.korean)

    # ------------------------------------------------------------------ chat

    async def on_chat(self, reader: rtc.TextStreamReader, sender: str) -> None:
        if sender == self.room.local_participant.identity:
            return
        text = await reader.read_all()
        parsed = parse_chat(text, bot_names=self._bot_names)
        if parsed is None:
            return
        reply_to = reader.info.stream_id or None
        if isinstance(parsed, CommandError):
            message = (help_text(self.config.bot_name, self.config.wake_phrase_list)
                       if parsed.message == "help" else parsed.message)
            await self._send_chat(message, reply_to=reply_to)
            return
        await self._answer_in_chat(parsed, source="chat", requested_by=sender, reply_to=reply_to)

    def on_speech(self, transcript: Transcript) -> None:
        """A final transcript that starts with a wake phrase becomes a question."""
        question = parse_wake_phrase(transcript.text, self.config.wake_phrase_list)
        if question is None:
            return
        if not question:
            self._spawn(self._send_chat(
                f"{transcript.speaker_name}: ask your question right after \"{self.config.bot_name}\"."))
            return
        logger.info("wake_phrase_heard", meeting_id=self.session.meeting_id,
                    speaker_id=transcript.speaker_id)
        request = CallRequest("IMMEDIATE_RESPONSE", question)
        self._spawn(self._answer_in_chat(request, source="wake_phrase", requested_by=transcript.speaker_id,
                                         heading=f"{transcript.speaker_name}: {question}"))

    async def _answer_in_chat(self, request: CallRequest, *, source: str, requested_by: str,
                              reply_to: str | None = None, heading: str | None = None) -> None:
        try:
            answer = await self.run(request, source=source, requested_by=requested_by)
        except Exception as exc:  # noqa: BLE001 - tell the room instead of going silent
            record_meeting_error("call")
            logger.error("agent_call_failed", meeting_id=self.session.meeting_id,
                         call_type=request.call_type, error=f"{type(exc).__name__}: {exc}")
            await self._send_chat(f"Sorry, {request.call_type} failed ({type(exc).__name__}); "
                                  "please try again.", reply_to=reply_to)
            return
        text = self.render(answer)
        await self._send_chat(f"> {heading}\n\n{text}" if heading else text, reply_to=reply_to)

    async def _send_chat(self, text: str, *, reply_to: str | None = None) -> None:
        try:
            await self.room.local_participant.send_text(text, topic=TOPIC_CHAT, reply_to_id=reply_to)
        except Exception as exc:  # noqa: BLE001 - the answer is stored with the call record
            logger.warning("chat_reply_failed", meeting_id=self.session.meeting_id,
                           error=f"{type(exc).__name__}: {exc}")

    # ------------------------------------------------------------------ RPC

    async def on_rpc(self, data: rtc.RpcInvocationData) -> str:
        """`mithub.call` with `{"call_type", "query"}`: the Answer as JSON."""
        parsed = parse_rpc_payload(data.payload)
        if isinstance(parsed, CommandError):
            raise rtc.RpcError(rtc.RpcError.ErrorCode.APPLICATION_ERROR, parsed.message)
        try:
            answer = await self.run(parsed, source="rpc", requested_by=data.caller_identity)
        except Exception as exc:  # noqa: BLE001 - the caller gets the reason
            record_meeting_error("call")
            logger.error("agent_call_failed", meeting_id=self.session.meeting_id,
                         call_type=parsed.call_type, error=f"{type(exc).__name__}: {exc}")
            raise rtc.RpcError(rtc.RpcError.ErrorCode.APPLICATION_ERROR,
                               f"{parsed.call_type} failed: {type(exc).__name__}") from exc
        return rpc_response(answer)

    # ------------------------------------------------------------------ tasks

    def _spawn(self, coroutine: object) -> None:
        task = asyncio.create_task(coroutine)  # type: ignore[arg-type]
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def aclose(self) -> None:
        """Let calls already asked finish (their answers are stored), briefly."""
        if self._tasks:
            await asyncio.wait(self._tasks, timeout=30)
        for task in self._tasks:
            task.cancel()


def rpc_response(answer: Answer) -> str:
    """The answer as JSON, citations' quotes shortened if it would exceed the RPC limit."""
    body = answer.model_dump_json()
    if len(body.encode()) <= RPC_MAX_RESPONSE_BYTES:
        return body
    data = json.loads(body)
    for citation in data["citations"]:
        if citation.get("quote"):
            citation["quote"] = citation["quote"][:120]
    body = json.dumps(data, ensure_ascii=False)
    while len(body.encode()) > RPC_MAX_RESPONSE_BYTES and data["citations"]:
        data["citations"].pop()
        body = json.dumps(data, ensure_ascii=False)
    return body
