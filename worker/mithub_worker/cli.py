"""`mithub worker start|dev|connect`: run the LiveKit worker until SIGINT/SIGTERM, then drain
its meetings (STT streams flushed, every transcript stored, leases released)."""

from __future__ import annotations

import asyncio
import signal
import sys

import structlog
from livekit.protocol import models

from mithub.config import get_livekit_config, get_metrics_config, get_worker_config
from mithub.errors import ConfigError
from mithub.minutes.delivery import delivering
from mithub_worker.server import create_server
from mithub_worker.tokens import join_token

logger = structlog.get_logger(__name__)

DRAIN_SECONDS = 120


def run_worker(mode: str, *, room: str | None = None) -> int:
    return asyncio.run(_run(mode, room))


async def _run(mode: str, room: str | None) -> int:
    livekit = get_livekit_config()
    secret = livekit.api_secret.get_secret_value()
    if not secret:
        raise ConfigError("LIVEKIT_API_SECRET is not set; the worker signs in to "
                          f"{livekit.url} with LIVEKIT_API_KEY and its secret")
    config = get_worker_config()
    metrics_port = get_metrics_config().port or None
    server, _worker = create_server(config=config, metrics_port=metrics_port)
    server.update_options(ws_url=livekit.url, api_key=livekit.api_key, api_secret=secret)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)

    unregistered = mode == "connect"
    # The minutes' webhook deliveries: pending ones resume now, the meetings' new ones are sent
    # in the background, and the end waits for them at most MINUTES_WEBHOOK_SHUTDOWN_WAIT_SECONDS.
    async with delivering():
        running = asyncio.create_task(server.run(devmode=mode != "start", unregistered=unregistered))
        if room is not None:
            server.once("worker_started", lambda: asyncio.ensure_future(_join(server, room, config)))
        print(f"mithub worker ({mode}) on {livekit.url}, agent name {config.agent_name!r}; "
              f"status on :{config.http_port}/worker" +
              (f", metrics on :{metrics_port}/metrics" if metrics_port else ""), file=sys.stderr)
        stopped = asyncio.create_task(stop.wait())
        done, _ = await asyncio.wait({running, stopped}, return_when=asyncio.FIRST_COMPLETED)
        if running in done:
            running.result()  # a connection failure: raise it
            return 0
        print("draining meetings…", file=sys.stderr)
        try:
            await server.drain(timeout=DRAIN_SECONDS)
        except TimeoutError:
            logger.warning("worker_drain_timed_out", seconds=DRAIN_SECONDS)
        await server.aclose()
    return 0


async def _join(server, room: str, config) -> None:  # noqa: ANN001
    """`connect`: the bot joins `room` directly as a hidden agent participant."""
    identity = f"{config.agent_name}-{room}"[:128]
    token = join_token(room, identity, name=config.bot_name, hidden=True, agent=True)
    await server.simulate_job(room, fake_job=False, room_info=models.Room(name=room), token=token)
