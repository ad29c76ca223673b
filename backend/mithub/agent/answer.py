"""The answer of an agent call, with attributed citations (seed 002 §5.2)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import AwareDatetime, BaseModel, Field

from mithub.agent.context_items import ContextItem
from mithub.context.models import AgentCallType

AnswerMode = Literal["llm", "cache", "template", "retrieval_only"]
ANSWER_MODES: tuple[AnswerMode, ...] = ("llm", "cache", "template", "retrieval_only")


class Citation(BaseModel):
    """Where a statement of the answer comes from: an utterance (speaker, time, quote), a topic
    summary, or a document / past meeting passage (title, path)."""

    kind: Literal["utterance", "topic", "document"]
    id: str = Field(description="U<seq>, T<topic>, D<n>, P<n> (past turn), PT<n> (past topic): "
                    "the id the context showed the model")
    speaker: str | None = None
    time: AwareDatetime | None = None
    quote: str | None = None
    title: str | None = None
    path: str | None = None
    meeting_id: str | None = Field(None, description="set for a past meeting's turn or topic")
    meeting_title: str | None = None
    meeting_date: date | None = None
    meeting_label: str | None = Field(None, description="e.g. '5월 4일 회의'")
    seq: int | None = Field(None, description="the turn's seq in its own meeting")

    def render(self) -> str:
        past = f"({self.meeting_label}) " if self.meeting_label else ""
        if self.kind == "utterance" and past:
            when = f" {self.time.strftime('%H:%M')}" if self.time else ""
            return f'- {past}**{self.speaker}**{when}: "{self.quote}"'
        if self.kind == "utterance":
            when = f" ({self.time.strftime('%H:%M')})" if self.time else ""
            return f'- **{self.speaker}**{when}: "{self.quote}"'
        if self.kind == "topic" and past:
            return f"- {past}{self.title}: {self.quote or ''}".rstrip(": ")
        if self.kind == "topic":
            return f"- [{self.id}] {self.title}: {self.quote or ''}".rstrip(": ")
        return f"- [{self.id}] {self.path or self.title}: {self.quote or ''}".rstrip(": ")


class Answer(BaseModel):
    meeting_id: str
    call_type: AgentCallType
    query: str | None = None
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    mode: AnswerMode
    context_tokens: int = 0
    latency_ms: float = 0.0
    created_at: AwareDatetime | None = None
    context: list[ContextItem] | None = Field(
        None, description="the evidence items put into the prompt; only with include_context")

    def render_text(self, *, korean: bool = True) -> str:
        """Chat form: the answer, then the attributed sources, then the mode."""
        heading = "관련 발화 (출처)" if korean else "Sources"
        lines = [self.answer.strip()]
        if self.citations:
            lines += ["", f"## {heading}", *(c.render() for c in self.citations)]
        lines += ["", f"(mode: {self.mode})"]
        return "\n".join(lines)


class LLMAnswer(BaseModel):
    """What the model is asked to return: the answer and the ids of the items it used."""

    answer: str = Field(min_length=1)
    citations: list[str] = Field(default_factory=list)


LLM_ANSWER_SCHEMA: dict = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "citations": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer", "citations"],
}
