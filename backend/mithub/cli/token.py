"""`mithub token --room R --identity I [--name N]`: a LiveKit join token for trying the bot."""

from __future__ import annotations

import argparse
import sys
import warnings
from datetime import timedelta

from mithub.errors import ConfigError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "token", help="mint a LiveKit join token (LIVEKIT_API_KEY / LIVEKIT_API_SECRET)",
        description="Prints a JWT that lets IDENTITY join ROOM with audio and chat, signed "
        "with LIVEKIT_API_KEY and LIVEKIT_API_SECRET. Paste it with LIVEKIT_URL into a "
        "LiveKit front end such as https://meet.livekit.io (custom server).",
    )
    parser.add_argument("--room", required=True, help="room name (the meeting id)")
    parser.add_argument("--identity", required=True, help="participant identity (the speaker id)")
    parser.add_argument("--name", help="display name (the speaker name); default: the identity")
    parser.add_argument("--ttl-hours", type=float, default=6.0, help="validity (default 6 h)")
    parser.add_argument("--no-dispatch", action="store_true",
                        help="do not ask LiveKit to dispatch the bot (WORKER_AGENT_NAME) on join")
    parser.set_defaults(handler=run)


# HMAC-SHA256 keys shorter than this are weak (RFC 7518 §3.2); PyJWT warns with a traceback line.
MIN_SECRET_CHARS = 32


def run(args: argparse.Namespace) -> int:
    from mithub.cli.worker import worker_module

    join_token = worker_module("tokens").join_token
    if args.ttl_hours <= 0:
        raise ConfigError("--ttl-hours must be positive")
    from mithub.config import get_livekit_config, get_worker_config

    dispatch = None if args.no_dispatch else get_worker_config().agent_name
    with warnings.catch_warnings():
        # PyJWT's InsecureKeyLengthWarning (a source line and a traceback) becomes the note below.
        warnings.filterwarnings("ignore", message="The HMAC key is")
        token = join_token(args.room, args.identity, name=args.name or args.identity,
                           ttl=timedelta(hours=args.ttl_hours), dispatch_agent=dispatch)
    length = len(get_livekit_config().api_secret.get_secret_value())
    if length < MIN_SECRET_CHARS:
        print(f"note: LIVEKIT_API_SECRET has {length} characters; fine for a `livekit-server --dev` "
              f"test server, use {MIN_SECRET_CHARS}+ random characters anywhere else", file=sys.stderr)
    print(token)
    return 0
