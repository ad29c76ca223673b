"""The question's length limit (issue 19 item 9): the CLI and the API refuse the same length
with the same one-line message, and the API's 422 never echoes the question back."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import structlog

from mithub.api.app import create_app
from mithub.cli import main
from mithub.config import APIConfig, get_api_config

LIMIT = get_api_config().max_query_chars


@pytest.fixture(autouse=True)
def _restore_logging():
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def _cli_error(query: str, capsys, tmp_path) -> str:
    code = main(["ask", "--meeting", "m", "--type", "SEARCH", "--query", query,
                 "--database-url", f"sqlite+aiosqlite:///{tmp_path / 'never.db'}"])
    assert code == 1
    return capsys.readouterr().err.strip()


async def _api_response(query: str) -> httpx.Response:
    app = create_app(None, APIConfig(token="t" * 32))  # type: ignore[arg-type] - refused before use
    # No runtime: a request that passes the checks fails after them (500), never with a 422.
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        return await http.post("/v1/meetings/m/calls", headers={"Authorization": "Bearer " + "t" * 32},
                               json={"call_type": "SEARCH", "query": query})


async def test_a_long_question_gets_the_same_short_refusal_from_the_cli_and_the_api(capsys, tmp_path):
    query = "숫자 인식 오류 우선순위는? " * 50_000  # ~750 KB of UTF-8

    response = await _api_response(query)
    cli = await asyncio.to_thread(_cli_error, query, capsys, tmp_path)

    assert response.status_code == 422
    assert len(response.content) < 300 and "숫자" not in response.text
    detail = response.json()["detail"]
    assert f"at most {LIMIT}" in detail and cli == f"mithub: error: {detail}"


async def test_a_question_at_the_limit_passes_the_check_in_both(capsys, tmp_path):
    query = "x" * LIMIT

    response = await _api_response(query)
    cli = await asyncio.to_thread(_cli_error, query, capsys, tmp_path)

    assert response.status_code != 422  # the length passed; it failed later (no runtime here)
    assert "at most" not in cli and "no database at" in cli  # and none was made
    assert not (tmp_path / "never.db").exists()


async def test_no_validation_error_echoes_its_input():
    app = create_app(None, APIConfig(token="t" * 32))  # type: ignore[arg-type]
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        response = await http.post("/v1/meetings/m/calls", headers={"Authorization": "Bearer " + "t" * 32},
                                   json={"call_type": "NOT_A_TYPE_" + "y" * 100_000})
    assert response.status_code == 422 and len(response.content) < 1000
