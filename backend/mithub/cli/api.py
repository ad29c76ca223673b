"""`mithub api`: serve the HTTP API with uvicorn.

The store and the models are loaded, and the organisation's memory indexed, before the
server takes requests, so the first call is as fast as the next ones; the address, the docs
URL and "ready" are printed once /healthz answers.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mithub.agent.runtime import AgentRuntime


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("api", help="serve the HTTP API (agent calls, meetings, /metrics)")
    parser.add_argument("--host", help="bind address (default API_HOST, 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (default API_PORT, 8000; 0 = any free port)")
    parser.add_argument("--database-url", metavar="URL", help="default: DATABASE_URL")
    parser.add_argument("--index", metavar="DIR", help="retrieval index (default RETRIEVAL_INDEX_DIR)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from mithub.config import get_api_config

    config = get_api_config()
    config.required_token()  # refused before anything loads
    host = args.host or config.host
    port = config.port if args.port is None else args.port
    return asyncio.run(_serve(args, host, port))


async def _serve(args: argparse.Namespace, host: str, port: int) -> int:
    import uvicorn

    from mithub.agent.runtime import open_agent_runtime
    from mithub.api.app import create_app
    from mithub.config import get_api_config
    from mithub.minutes.delivery import delivering

    print(f"mithub api: loading the store and the models for http://{_url_host(host)}:{port} ...",
          file=sys.stderr, flush=True)
    runtime = await open_agent_runtime(args.database_url, index_dir=args.index)
    await warm_up(runtime)
    server = uvicorn.Server(uvicorn.Config(create_app(runtime, get_api_config()), host=host, port=port,
                                           log_level="warning"))
    announcer = asyncio.create_task(_announce_when_healthy(server, host))
    try:
        # Minutes deliveries left pending (a receiver that was down, a restart) resume now, over
        # an engine of their own: the app disposes the runtime's before the bounded wait ends.
        async with delivering(database_url=args.database_url):
            await server.serve()
    finally:
        announcer.cancel()
    return 0


async def warm_up(runtime: AgentRuntime) -> None:
    """What a first call would otherwise load: the morphological analyser, the embedder's
    weights and the organisation's memory of finished meetings."""
    from mithub.config import get_context_config
    from mithub.embedders import load_embedder
    from mithub.text import content_tokens

    def load_models() -> None:
        content_tokens("회의 준비 warm up")  # kiwi loads its model on its first analysis
        load_embedder(get_context_config().embedding_model).embed_queries(["warm up"])

    await asyncio.to_thread(load_models)
    if runtime.builder.past is not None:
        await runtime.builder.past.sync(force=True)
    # What is loaded now lives as long as the process: out of the collector's sight, a full
    # collection no longer walks the models and the memory (it was most of a slow request's
    # time on the recap page: its worst request 113 -> 53 ms, benchmarks/recap_page.py).
    gc.freeze()


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


async def _announce_when_healthy(server, host: str) -> None:  # noqa: ANN001 - uvicorn.Server
    import httpx

    while not server.started:
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]  # the real one when --port 0
    local = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    async with httpx.AsyncClient(timeout=2.0) as client:
        while True:
            try:
                if (await client.get(f"http://{_url_host(local)}:{port}/healthz")).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.1)
    base = f"http://{_url_host(host)}:{port}"
    print(f"mithub api: ready on {base} (docs: {base}/docs; every other route needs "
          "Authorization: Bearer $API_TOKEN)", flush=True)
