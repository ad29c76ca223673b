"""What a worker process loads once and every meeting it hosts shares: settings, the
embedding model, the document index, the voice activity detector. Loaded in the job
process's prewarm step, so the first meeting does not wait for models."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import structlog

from mithub.agent.documents import RetrieverDocuments
from mithub.config import (
    ContextConfig,
    DatabaseConfig,
    LLMConfig,
    PublicConfig,
    STTConfig,
    WorkerConfig,
    get_context_config,
    get_database_config,
    get_llm_config,
    get_public_config,
    get_retrieval_config,
    get_stt_config,
    get_worker_config,
)
from mithub.embedders import Embedder, load_embedder
from mithub_worker.transcription import SpeechToText

logger = structlog.get_logger(__name__)


@dataclass
class WorkerResources:
    context: ContextConfig
    llm: LLMConfig
    stt: STTConfig
    worker: WorkerConfig
    database: DatabaseConfig
    embedder: Embedder
    documents: RetrieverDocuments | None = None
    vad: Any = None
    database_url: str | None = None
    public: PublicConfig = field(default_factory=get_public_config)  # the page link in the room's minutes

    @property
    def stt_provider_label(self) -> str:
        from mithub_worker.stt import stt_provider_label

        return stt_provider_label(self.stt)

    def stt_factory(self) -> SpeechToText:
        """A new STT (one per participant stream); the Whisper model itself is shared."""
        from mithub_worker.stt import create_stt

        return create_stt(self.stt, vad=self.vad)


def load_resources(
    *,
    stt: STTConfig | None = None,
    worker: WorkerConfig | None = None,
    context: ContextConfig | None = None,
    database: DatabaseConfig | None = None,
    index_dir: str | None = None,
) -> WorkerResources:
    from mithub.agent.runtime import load_documents
    from mithub_worker.stt import load_vad

    context = context or get_context_config()
    stt = stt or get_stt_config()
    resources = WorkerResources(
        context=context,
        llm=get_llm_config(),
        stt=stt,
        worker=worker or get_worker_config(),
        database=database or get_database_config(),
        embedder=load_embedder(context.embedding_model),
        documents=load_documents(get_retrieval_config().index_dir if index_dir is None else index_dir),
        vad=load_vad(stt),
    )
    # Fail at start-up, not at the first word: build one STT (loads the Whisper model).
    resources.stt_factory()
    logger.info("worker_resources_loaded", stt=resources.stt_provider_label,
                documents=resources.documents is not None)
    return resources
