"""Shared pytest plugins (tests/support is on the path, see pyproject.toml)."""

import os
import tempfile

import pytest
import structlog

# The organisation's memory caches finished meetings on disk (MEMORY_CACHE_DIR, default
# ./data/memory): tests keep theirs out of the work tree.
os.environ.setdefault("MEMORY_CACHE_DIR", tempfile.mkdtemp(prefix="mithub-memory-"))

pytest_plugins = ["mithub_llm_server", "mithub_databases", "worker_harness"]


@pytest.fixture(autouse=True)
def _fresh_structlog():
    """In-process CLI calls configure structlog (level, pytest's stderr of the moment); reset it
    so later tests log and capture as if nothing had run before them."""
    yield
    structlog.reset_defaults()
