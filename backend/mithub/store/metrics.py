"""Prometheus metrics of the meeting store (served with the others on /metrics)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

DB_WRITE_SECONDS = Histogram(
    "mithub_db_write_seconds", "Write-through transaction time (commit included)", ["operation"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
DB_WRITE_QUEUE_DEPTH = Gauge(
    "mithub_db_write_queue_depth", "Writes accepted during a database outage, not yet stored"
)
DB_WRITE_RETRIES = Counter("mithub_db_write_retries_total", "Failed attempts to flush queued writes")
DB_OUTAGES = Counter("mithub_db_outages_total", "Times the database became unreachable for writes")
DB_BACKPRESSURE = Counter(
    "mithub_db_backpressure_total", "Utterances refused because the outage queue was full"
)
