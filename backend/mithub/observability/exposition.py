"""Serving the metrics: the text exposition for an HTTP route (the API's /metrics) and a
stand-alone HTTP server for processes without one (`mithub replay --metrics-port`)."""

from __future__ import annotations

from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest, start_http_server

METRICS_CONTENT_TYPE = CONTENT_TYPE_LATEST


def render_metrics() -> bytes:
    """Every registered metric in the Prometheus text format."""
    return generate_latest()


def start_metrics_server(port: int, host: str = "0.0.0.0") -> Any:
    """Serve /metrics on `port` from a daemon thread; returns the server (call `shutdown()`
    to stop it early; it also stops with the process). Port 0 picks a free port, readable
    from `server.server_port`."""
    server, _thread = start_http_server(port, addr=host)
    return server
