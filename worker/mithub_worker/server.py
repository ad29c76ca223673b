"""The livekit-agents server that hosts MitHub meetings.

Rooms ask for the bot by agent name (explicit dispatch, `WORKER_AGENT_NAME`); the request
handler takes at most one MitHub job per room; each job runs a `MeetingBot`. The server
also serves health (`/`), worker status (`/worker`) and Prometheus `/metrics`.

    server = create_server()
    await server.run()                       # registered with LIVEKIT_URL
    await server.run(unregistered=True)      # offline: jobs only through simulate_job()

Meetings run as threads of one process by default (WORKER_JOB_EXECUTOR=thread): each job
gets its own thread and event loop, and all share the one copy of the models that the
prewarm step loaded (`WorkerResources`), so a meeting starts without loading anything and
ten meetings cost the models once. A meeting stuck on its own loop holds up only itself
(`watchdog.py` reports it). The process executor isolates memory too, at the price of one
copy of the models per job process (`WORKER_JOB_MEMORY_LIMIT_MB` caps each).
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from dataclasses import dataclass, field

import psutil
import structlog
from livekit.agents import (
    AgentServer,
    AutoSubscribe,
    JobContext,
    JobExecutorType,
    JobProcess,
    JobRequest,
)
from livekit.agents.job import RunningJobInfo

from mithub.clock import display_zone, zone_name
from mithub.config import WorkerConfig, get_log_config, get_worker_config
from mithub.errors import ConfigError
from mithub.observability import configure_logging, record_meeting_error
from mithub_worker.meeting import MeetingBot
from mithub_worker.resources import WorkerResources, load_resources
from mithub_worker.transcription import AudioInput, RoomAudioInput

logger = structlog.get_logger(__name__)

PENDING_ACCEPT_SECONDS = 60.0  # an accepted job not yet running still counts for its room
SHUTDOWN_SECONDS = 60.0  # drain STT streams, summarize the rest, flush the store
_PREWARM_LOCK = threading.Lock()


@dataclass
class MeetingWorker:
    """The worker's callbacks. A plain object so the process executor can pickle its
    bound methods; `audio` replaces the room's microphone tracks (tests, benchmarks)."""

    config: WorkerConfig
    audio: AudioInput | None = None
    resources: WorkerResources | None = None
    server: AgentServer | None = field(default=None, repr=False)
    bots: dict[str, MeetingBot] = field(default_factory=dict, repr=False)
    _accepted: dict[str, float] = field(default_factory=dict, repr=False)

    def __getstate__(self) -> dict:
        """What a job process gets (the process executor pickles the callbacks): settings and
        the audio source. The server, its bookkeeping and loaded models stay here."""
        return {"config": self.config, "audio": self.audio}

    def __setstate__(self, state: dict) -> None:
        self.__init__(**state)

    # ------------------------------------------------------------------ main process

    async def on_request(self, request: JobRequest) -> None:
        room = request.room.name
        if self._hosts(room):
            logger.warning("job_rejected_duplicate", room=room)
            await request.reject()
            return
        self._accepted[room] = time.monotonic()
        await request.accept(
            name=self.config.bot_name,
            identity=f"{self.config.agent_name}-{room}"[:128],
            attributes={"mithub.bot": "true"},
        )
        logger.info("job_accepted", room=room)

    def _hosts(self, room: str) -> bool:
        now = time.monotonic()
        for name, at in list(self._accepted.items()):
            if now - at > PENDING_ACCEPT_SECONDS:
                del self._accepted[name]
        return room in self._accepted or room in {job.job.room.name for job in _active_jobs(self.server)}

    def load(self, server: AgentServer) -> float:
        """Load in [0, 1] that LiveKit compares with WORKER_LOAD_THRESHOLD before it sends
        another meeting: the highest of what the machine's CPUs are busy with now, what the
        live meetings will cost (a meeting's CPU is bursty: it is counted at its measured
        average, WORKER_MEETING_CPU_CORES, also while its room is quiet), the resident memory
        against WORKER_MEMORY_BUDGET_MB, and 1.0 once WORKER_MAX_MEETINGS are live."""
        return worker_load(self.config, self.meetings(server))

    def meetings(self, server: AgentServer | None = None) -> int:
        """Live meetings: running jobs plus those accepted and not yet running."""
        self._hosts("")  # forgets accepts that never started
        rooms = {job.job.room.name for job in _active_jobs(server or self.server)}
        return len(rooms | set(self._accepted))

    # ------------------------------------------------------------------ job process

    def prewarm(self, process: JobProcess) -> None:
        if process.executor_type == JobExecutorType.PROCESS:  # a fresh interpreter
            log = get_log_config()
            configure_logging(json_logs=log.format == "json", level=log.level)
        with _PREWARM_LOCK:  # thread-executor jobs prewarm on their own threads, maybe at once
            if self.resources is None:
                self.resources = load_resources(worker=self.config)
        self.resources.warm()  # given resources (tests, benchmarks) load their models here too
        process.userdata["mithub"] = self.resources

    async def entrypoint(self, ctx: JobContext) -> None:
        resources: WorkerResources = ctx.proc.userdata.get("mithub") or self.resources \
            or load_resources(worker=self.config)
        await ctx.connect(auto_subscribe=AutoSubscribe.AUDIO_ONLY)
        room = ctx.job.room
        name = room.name or ctx.room.name
        meeting_id, series_id = meeting_identity(room.sid, name, room.metadata)
        bot = MeetingBot(ctx.room, meeting_id, resources, series_id=series_id, title=name,
                         timezone=meeting_zone(name, room.metadata), audio=self.audio or RoomAudioInput())
        ctx.add_shutdown_callback(bot.aclose)
        try:
            await bot.start()
        except Exception as exc:  # noqa: BLE001 - e.g. another worker holds the meeting
            record_meeting_error("start")
            logger.error("meeting_start_failed", meeting_id=meeting_id,
                         error=f"{type(exc).__name__}: {exc}")
            ctx.shutdown(reason=f"meeting {meeting_id} could not start: {exc}")
            return
        self.bots[name] = bot
        self._accepted.pop(name, None)

    async def session_end(self, ctx: JobContext) -> None:
        """The job is ending, still in the room: close the meeting now (its minutes go to the
        room chat), since livekit-agents leaves the room before the shutdown callbacks run.
        The shutdown callback's close is then a no-op."""
        bot = self.bots.get(ctx.job.room.name or ctx.room.name)
        if bot is not None:
            await bot.aclose()


def create_server(
    *,
    config: WorkerConfig | None = None,
    audio: AudioInput | None = None,
    resources: WorkerResources | None = None,
    metrics_port: int | None = None,
) -> tuple[AgentServer, MeetingWorker]:
    """The server and its callbacks. `resources` skips loading them from settings (tests
    share one set across jobs); `metrics_port` serves /metrics (0 = any free port)."""
    config = config or get_worker_config()
    _import_plugins_on_main_thread()
    worker = MeetingWorker(config=config, audio=audio, resources=resources)
    server = AgentServer(
        job_executor_type=JobExecutorType(config.job_executor),
        load_threshold=config.load_threshold,
        port=config.http_port,
        setup_fnc=worker.prewarm,
        load_fnc=worker.load,
        num_idle_processes=1,
        initialize_process_timeout=180.0,
        # Enforced per job process (process executor); thread-executor meetings share the
        # worker process, whose memory `load` reports instead.
        job_memory_limit_mb=config.job_memory_limit_mb,
        job_memory_warn_mb=config.job_memory_limit_mb * 0.8,
        shutdown_process_timeout=SHUTDOWN_SECONDS,
        prometheus_port=metrics_port,
    )
    server.rtc_session(worker.entrypoint, agent_name=config.agent_name, on_request=worker.on_request,
                       on_session_end=worker.session_end)
    worker.server = server
    return server, worker


def worker_load(config: WorkerConfig, meetings: int, *, cpu_busy: float | None = None,
                resident_mb: float | None = None, cores: int | None = None) -> float:
    """The load `meetings` live meetings put on this worker (see `MeetingWorker.load`);
    unmeasured inputs are read from the machine."""
    cores = cores or _cores()
    cpu_busy = psutil.cpu_percent(interval=None) / 100.0 if cpu_busy is None else cpu_busy
    resident_mb = _resident_mb() if resident_mb is None else resident_mb
    estimate = meetings * config.meeting_cpu_cores / cores
    memory = max(resident_mb, meetings * config.meeting_memory_mb) / config.memory_budget_mb
    full = 1.0 if meetings >= config.max_meetings else 0.0
    return round(min(max(cpu_busy, estimate, memory, full), 1.0), 4)


def _cores() -> int:
    """CPUs this process may run on (a container's CPU set, not the host's count)."""
    if hasattr(os, "sched_getaffinity"):
        return max(len(os.sched_getaffinity(0)), 1)
    return psutil.cpu_count() or 1


def _resident_mb() -> float:
    """Resident memory of this process and its job processes (the process executor's)."""
    process = psutil.Process()
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            total += child.memory_info().rss
    return total / 2**20


def meeting_identity(sid: str, name: str, metadata: str) -> tuple[str, str]:
    """(meeting id, series id) of a room session: the room's sid (unique per session, the same
    while the room lives) and the room name, unless the room's metadata names a series
    (`{"mithub": {"series": "..."}}`). Without a sid the room name stands for both."""
    series = name
    try:
        named = json.loads(metadata).get("mithub", {}).get("series") if metadata else None
    except (ValueError, AttributeError):
        named = None
        logger.warning("room_metadata_unreadable", room=name)
    if isinstance(named, str) and named.strip():
        series = named.strip()[:200]
    return (sid or name)[:200], series


def meeting_zone(name: str, metadata: str) -> str | None:
    """The time zone the room's metadata names (`{"mithub": {"timezone": "Asia/Seoul"}}`, or an
    offset such as "+09:00"), else None: the meeting then takes MEETING_TIMEZONE."""
    try:
        named = json.loads(metadata).get("mithub", {}).get("timezone") if metadata else None
        return zone_name(display_zone(named)) if isinstance(named, str) and named.strip() else None
    except (ValueError, AttributeError, ConfigError):
        logger.warning("room_timezone_unreadable", room=name)
        return None


def _active_jobs(server: AgentServer | None) -> list[RunningJobInfo]:
    """The server's running jobs; none before `run()` has built its process pool."""
    try:
        return server.active_jobs if server is not None else []
    except AttributeError:
        return []


def _import_plugins_on_main_thread() -> None:
    """livekit plugins register themselves on import and insist on the main thread; a
    thread-executor job would otherwise import them first on its own thread."""
    from livekit.plugins import silero  # noqa: F401
