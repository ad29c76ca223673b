"""LLM port: OpenAI-compatible chat completions with JSON-schema output, and tolerant parsing."""

from mithub.llm.base import LLMClient
from mithub.llm.json_output import parse_json_object

__all__ = ["LLMClient", "parse_json_object"]
