"""`mithub worker start|dev|connect`: the LiveKit room bot (the `worker` extra). The worker
package is imported only inside the command, so the core never imports LiveKit."""

from __future__ import annotations

import argparse

from mithub.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "worker", help="run the LiveKit worker that joins meetings as a bot",
        description="Registers with the LiveKit server at LIVEKIT_URL (LIVEKIT_API_KEY, "
        "LIVEKIT_API_SECRET) and joins rooms that dispatch the agent WORKER_AGENT_NAME. "
        "Needs the worker extra: pip install 'mithub[worker]'.",
    )
    modes = parser.add_subparsers(dest="mode", metavar="MODE", required=True)
    modes.add_parser("start", help="production: register and take jobs")
    modes.add_parser("dev", help="development: same, with fewer idle processes")
    connect = modes.add_parser("connect", help="join one room directly, without dispatch")
    connect.add_argument("--room", required=True, help="room to join")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    cli = worker_module("cli")
    return cli.run_worker(args.mode, room=getattr(args, "room", None))


def worker_module(name: str):  # noqa: ANN201 - a module
    """`mithub_worker.<name>`, or a clear error when the worker extra is not installed."""
    import importlib

    try:
        return importlib.import_module(f"mithub_worker.{name}")
    except ImportError as exc:
        raise ConfigError(f"this command needs the worker extra ({exc.name} is missing): "
                          "pip install 'mithub[worker]'") from exc
