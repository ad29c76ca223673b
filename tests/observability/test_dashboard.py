"""The Grafana dashboard only queries metrics we register (no dead panels), and covers what
an operator watches."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from prometheus_client import REGISTRY

import mithub.observability  # noqa: F401  (registers every metric)

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "deploy" / "grafana" / "dashboards" / "mithub.json"
SUFFIXES = ("_bucket", "_sum", "_count", "_total")
NAME = re.compile(r"\bmithub_[a-z0-9_]+\b")


def _exposed_names() -> set[str]:
    """Every sample name the registry can expose (histogram parts, counter _total)."""
    names = set()
    for family in REGISTRY.collect():
        names.add(family.name)
        if family.type == "counter":
            names.add(family.name + "_total")
        if family.type == "histogram":
            names.update(family.name + s for s in ("_bucket", "_sum", "_count"))
    return names


def _expressions() -> list[str]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]


def test_every_queried_metric_exists():
    exposed = _exposed_names()
    used = {name for expr in _expressions() for name in NAME.findall(expr)}
    assert used, "the dashboard queries no mithub metric"
    assert used - exposed == set(), "panels query metrics that are not registered"


def test_dashboard_shows_what_operators_watch():
    used = " ".join(_expressions())
    for metric in ("mithub_utterances_ingested_total", "mithub_active_meetings",
                   "mithub_l1_update_lag_utterances", "mithub_topic_changes_total",
                   "mithub_agent_call_latency_seconds_bucket", "mithub_agent_answers_total",
                   "mithub_retrieval_latency_seconds_bucket", "mithub_db_write_seconds_bucket",
                   "mithub_db_outages_total", "mithub_stt_real_time_factor_bucket"):
        assert metric in used, metric
    assert "histogram_quantile(0.95" in used and "histogram_quantile(0.5" in used


def test_grafana_provisioning_points_at_the_dashboard_folder_and_prometheus():
    provisioning = ROOT / "deploy" / "grafana" / "provisioning"
    providers = yaml.safe_load((provisioning / "dashboards" / "mithub.yaml").read_text())["providers"]
    assert providers[0]["options"]["path"] == "/var/lib/grafana/dashboards"
    source = yaml.safe_load((provisioning / "datasources" / "prometheus.yaml").read_text())["datasources"][0]
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    uids = {t["datasource"]["uid"] for p in dashboard["panels"] for t in p["targets"]}
    assert uids == {source["uid"]}


def test_prometheus_scrapes_the_worker_and_the_api():
    config = yaml.safe_load((ROOT / "deploy" / "prometheus.yml").read_text())
    targets = {job["job_name"]: job["static_configs"][0]["targets"] for job in config["scrape_configs"]}
    assert targets == {"mithub-worker": ["worker:9100"], "mithub-api": ["api:8000"]}
