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
    return worker_module().run_worker(args.mode, room=getattr(args, "room", None))


def worker_module():  # noqa: ANN201 - a module
    try:
        from mithub_worker import cli
    except ImportError as exc:
        raise ConfigError(f"the worker needs its extra ({exc.name} is missing): "
                          "pip install 'mithub[worker]'") from exc
    return cli
