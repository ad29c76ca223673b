"""Shared pytest plugins (tests/support is on the path, see pyproject.toml)."""

pytest_plugins = ["mithub_llm_server", "mithub_databases"]
