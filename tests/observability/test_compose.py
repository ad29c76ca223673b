"""docker-compose.yml is valid under the Compose specification (checked offline with the
compose-spec parser, after interpolating .env.example as `docker compose` would), and
every variable it uses is a documented setting in .env.example."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from compose_spec import PyOptions

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = (ROOT / "docker-compose.yml").read_text(encoding="utf-8")
# ${VAR}, ${VAR:-default}, ${VAR:?error}; `$${VAR}` is a literal for the container's shell.
VARIABLE = re.compile(r"(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?[-?]([^}]*))?\}")


def _env_example() -> dict[str, str]:
    lines = (ROOT / ".env.example").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def _interpolate(text: str, env: dict[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        # Required secrets are empty in .env.example; any value stands in for the check.
        return env[match.group(1)] or "test-secret"
    return VARIABLE.sub(value, text).replace("$$", "$")


def test_every_compose_variable_is_in_env_example():
    used = {m.group(1) for m in VARIABLE.finditer(COMPOSE)}
    assert used, "the compose file reads no setting"
    assert used - set(_env_example()) == set()


def test_compose_file_follows_the_compose_specification():
    # apply_merge: the file shares the MitHub services' settings through YAML merge keys.
    compose = PyOptions(apply_merge=True).from_yaml(_interpolate(COMPOSE, _env_example()))
    compose.validate()
    spec = compose.to_spec()
    assert spec.services is not None
    assert set(compose.service_names()) == {
        "postgres", "livekit", "llm", "migrate", "worker", "api", "prometheus", "grafana"}


def test_stack_wiring():
    services = yaml.safe_load(_interpolate(COMPOSE, _env_example()))["services"]
    assert services["postgres"]["image"] == "postgres:16" and "healthcheck" in services["postgres"]
    assert "--dev" in services["livekit"]["command"]
    assert services["llm"]["image"].startswith("ghcr.io/ggml-org/llama.cpp:server")
    assert any(v.endswith(":/models:ro") for v in services["llm"]["volumes"])
    assert services["migrate"]["command"] == ["mithub", "db", "upgrade"]
    for name in ("worker", "api"):
        assert services[name]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert services[name]["environment"]["DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert (ROOT / "Dockerfile").is_file()
