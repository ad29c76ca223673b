"""Prometheus metrics of the meeting store. They are defined with every other metric in
`mithub.observability.metrics` (one registry, one place that imports prometheus_client)."""

from __future__ import annotations

from mithub.observability.metrics import (
    DB_BACKPRESSURE,
    DB_OUTAGES,
    DB_WRITE_QUEUE_DEPTH,
    DB_WRITE_RETRIES,
    DB_WRITE_SECONDS,
)

__all__ = ["DB_BACKPRESSURE", "DB_OUTAGES", "DB_WRITE_QUEUE_DEPTH", "DB_WRITE_RETRIES", "DB_WRITE_SECONDS"]
