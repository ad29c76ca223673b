"""`mithub api`: serve the HTTP API with uvicorn."""

from __future__ import annotations

import argparse
import asyncio


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("api", help="serve the HTTP API (agent calls, meetings, /metrics)")
    parser.add_argument("--host", help="bind address (default API_HOST, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default API_PORT, 8000)")
    parser.add_argument("--database-url", metavar="URL", help="default: DATABASE_URL")
    parser.add_argument("--index", metavar="DIR", help="retrieval index (default RETRIEVAL_INDEX_DIR)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import uvicorn

    from mithub.agent.runtime import open_agent_runtime
    from mithub.api.app import create_app
    from mithub.config import get_api_config

    config = get_api_config()
    runtime = asyncio.run(open_agent_runtime(args.database_url, index_dir=args.index))
    app = create_app(runtime, config)
    uvicorn.run(app, host=args.host or config.host, port=args.port or config.port, log_level="warning")
    return 0
