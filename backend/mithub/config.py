"""Settings: one pydantic-settings class per concern, read from the environment and `.env`.

Prefixes: CONTEXT_ (seed 002 §7/§10.5 names, kept exactly), LLM_, RETRIEVAL_, DATABASE_URL,
STT_, API_, METRICS_. Nothing else in the code base reads `os.environ`.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


def _settings_config(prefix: str) -> SettingsConfigDict:
    return SettingsConfigDict(
        env_prefix=prefix, env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )


class ContextConfig(BaseSettings):
    """Live meeting memory (seed 002 §7, §10.5). Token budgets assume an 8K-context model."""

    model_config = _settings_config("CONTEXT_")

    # L0 raw window
    l0_max_turns: int = Field(25, ge=1, description="L0 window size in turns")
    l0_max_tokens: int = Field(3000, ge=100, description="L0 token cap; oldest turns drop first")
    l0_include_timestamps: bool = True

    # L0 topic buffer (bounded: seed 002 §9.4 "L0 topic buffer unbounded growth")
    l0_topic_buffer_max_turns: int = Field(100, ge=5)
    l0_topic_buffer_max_tokens: int = Field(10000, ge=500)

    # L1 triggers
    l1_topic_check_interval_turns: int = Field(5, ge=1)
    l1_update_turn_threshold: int = Field(25, ge=2)
    l1_update_interval_minutes: float = Field(15.0, gt=0)
    l1_min_new_utterances_for_time_trigger: int = Field(5, ge=1)
    l1_summary_max_tokens: int = Field(500, ge=50)
    topic_overlap_turns: int = Field(2, ge=0, le=5, description="turns carried across a topic change")
    topic_quick_check_enabled: bool = True

    # Topic detection (LLM-free semantic shift; see context/semantic_shift.py)
    topic_window_turns: int = Field(12, ge=2, description="turns on each side of a candidate")
    topic_min_segment_turns: int = Field(15, ge=2, description="shortest topic the detector opens")
    topic_depth_sigma: float = Field(1.0, description="boundary if depth > mean + sigma * std")
    topic_min_confidence: float = Field(0.5, ge=0, le=1)

    # Utterances
    utterance_max_tokens: int = Field(400, ge=20, description="longer utterances are split")
    speaker_buffer_max_per_speaker: int = Field(25, ge=1)

    # Models
    summary_model: str = "local"
    topic_detection_model: str = "local"
    embedding_model: str = Field("use-multilingual", description="embedder for topic shifts")

    # DB sync (write-through; see store/)
    db_sync_interval_seconds: float = 5.0
    db_sync_utterance_threshold: int = 10


class LLMConfig(BaseSettings):
    """OpenAI-compatible chat completions endpoint. Empty base_url means LLM-free mode."""

    model_config = _settings_config("LLM_")

    base_url: str = Field("", description="e.g. http://127.0.0.1:8080/v1; empty = no LLM")
    model: str = "local"
    api_key: SecretStr = SecretStr("")
    timeout_seconds: float = Field(30.0, gt=0)
    max_retries: int = Field(1, ge=0)
    max_output_tokens: int = Field(512, ge=16)
    temperature: float = Field(0.1, ge=0)

    @property
    def enabled(self) -> bool:
        return bool(self.base_url.strip())


@lru_cache(maxsize=1)
def get_context_config() -> ContextConfig:
    return ContextConfig()


@lru_cache(maxsize=1)
def get_llm_config() -> LLMConfig:
    return LLMConfig()
