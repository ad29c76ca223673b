"""`mithub` command line: the composition root. Each sub-command lives in its own module with
`register(subparsers)`; heavy imports happen inside the command, so `mithub --help` is fast."""

from __future__ import annotations

import argparse
import importlib
import sys

from mithub import __version__
from mithub.errors import MitHubError

# Modules under mithub.cli that define sub-commands, in help order.
COMMAND_MODULES: list[str] = [
    "replay", "segment", "meetings", "ledger", "minutes", "ask", "api", "index", "search", "db", "config",
    "worker", "token",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mithub", description="MitHub real-time meeting assistant"
    )
    parser.add_argument("--version", action="version", version=f"mithub {__version__}")
    parser.add_argument("--log-level", default=None,
                        help="DEBUG, INFO, WARNING (default: LOG_LEVEL, else WARNING)")
    parser.add_argument("--log-json", action="store_true",
                        help="JSON log lines on stderr (default: LOG_FORMAT)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"mithub.cli.{name}").register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    from mithub.config import get_log_config
    from mithub.observability import configure_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    log = get_log_config()
    configure_logging(json_logs=args.log_json or log.format == "json", level=args.log_level or log.level)
    try:
        return int(args.handler(args) or 0)
    except MitHubError as exc:
        print(f"mithub: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("mithub: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
