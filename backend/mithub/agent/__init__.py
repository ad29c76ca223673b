"""Agent calls during a meeting: plan -> required topics -> context -> generate -> attribute ->
persist. Every answer says which mode produced it (llm, cache, template, retrieval_only)."""

from mithub.agent.answer import Answer, AnswerMode, Citation
from mithub.agent.pipeline import AgentPipeline
from mithub.agent.session import MeetingSession

__all__ = ["AgentPipeline", "Answer", "AnswerMode", "Citation", "MeetingSession"]
