"""The LLM port used by the topic detector, the summarizer and the agent pipeline."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class LLMClient(Protocol):
    """Chat completion constrained to a JSON schema; returns the raw text the model produced.

    Raises `mithub.errors.LLMError` on transport failures and timeouts. The caller parses the
    text (`parse_json_object`) and falls back when it does not parse.
    """

    model: str

    async def complete_json(
        self,
        *,
        system: str,
        user: str,
        schema: dict[str, Any],
        max_tokens: int,
    ) -> str: ...
