"""What a worker process loads once and every meeting it hosts shares: settings, the
embedding model, the document index, the voice activity detector, the Whisper model, the
Korean analyser and the fitted weights of the topic, decision and action models. Loaded in
the job process's prewarm step, so no meeting loads a model when it starts.

With the thread job executor (WORKER_JOB_EXECUTOR=thread, the default) every meeting of the
process shares this one copy: ten meetings cost the models once, not ten times. With the
process executor each prewarmed job process loads its own copy once."""

from __future__ import annotations

import threading
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

_warm_lock = threading.Lock()


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
    warmed: bool = field(default=False, repr=False)

    @property
    def stt_provider_label(self) -> str:
        from mithub_worker.stt import stt_provider_label

        return stt_provider_label(self.stt)

    def stt_factory(self) -> SpeechToText:
        """A new STT (one per participant stream); the Whisper model itself is shared."""
        from mithub_worker.stt import create_stt

        return create_stt(self.stt, vad=self.vad)

    def warm(self) -> None:
        """Load every shared model now (once per process; a no-op after that). Fails at
        start-up, not at the first word: building one STT loads the Whisper model."""
        with _warm_lock:  # thread-executor jobs run their prewarm step concurrently
            if self.warmed:
                return
            self.stt_factory()
            warm_shared_models(korean=self.stt.language == "ko")
            self.warmed = True


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
    resources.warm()
    logger.info("worker_resources_loaded", stt=resources.stt_provider_label,
                documents=resources.documents is not None)
    return resources


def warm_shared_models(*, korean: bool) -> None:
    """Load now what meetings otherwise load at their first turn or decision check: each is
    a process-wide cache, so every meeting then shares the one copy (and no two job threads
    race to build it)."""
    from mithub.record.action_model import load_action_model
    from mithub.record.pair_model import pair_model
    from mithub.record.settle_model import settle_model
    from mithub.topics.detector import load_boundary_model

    load_boundary_model()
    for load in (pair_model, lambda: settle_model(live=True), load_action_model):
        try:
            load()
        except Exception as exc:  # noqa: BLE001 - the meeting logs the same and goes on without it
            logger.warning("shared_model_unavailable", error=f"{type(exc).__name__}: {exc}")
    if korean:
        from mithub.text.korean import morphemes

        morphemes("모델을 미리 불러옵니다")  # Kiwi's first analysis builds its tables
