"""The LLM client from settings: None in LLM-free mode (LLM_BASE_URL empty)."""

from __future__ import annotations

from mithub.config import LLMConfig, get_llm_config
from mithub.llm.base import LLMClient


def create_llm_client(config: LLMConfig | None = None) -> LLMClient | None:
    config = config or get_llm_config()
    if not config.enabled:
        return None
    from mithub.llm.openai_compat import OpenAICompatibleClient

    return OpenAICompatibleClient(config)
