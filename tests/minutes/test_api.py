"""GET /v1/meetings/{id}/minutes: the bearer token, JSON by default or with Accept:
application/json, Markdown with Accept: text/markdown, 404 for an unknown meeting."""

from __future__ import annotations

import httpx
import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.config import APIConfig
from mithub.minutes.models import Minutes
from mithub.minutes.render import to_markdown

from .conftest import TOKEN

pytestmark = pytest.mark.slow
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
async def client(demo_url):
    runtime = await open_agent_runtime(demo_url, index_dir="")
    app = create_app(runtime, APIConfig(token=TOKEN))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        yield http
    await runtime.aclose()


async def test_minutes_need_the_token(client) -> None:
    for headers in ({}, {"Authorization": "Bearer wrong-token-000000000"}):
        response = await client.get("/v1/meetings/demo-ko-2/minutes", headers=headers)
        assert response.status_code == 401
        assert "decisions" not in response.text


@pytest.mark.parametrize("accept", [None, "application/json", "*/*"])
async def test_minutes_as_json(client, accept) -> None:
    headers = {**AUTH, **({"Accept": accept} if accept else {})}
    response = await client.get("/v1/meetings/demo-ko-2/minutes", headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    minutes = Minutes.model_validate(response.json())
    assert minutes.meeting_id == "demo-ko-2" and len(minutes.changes()) == 2
    assert response.json()["decisions"][0]["time"].endswith("+09:00")


async def test_minutes_as_markdown(client) -> None:
    response = await client.get("/v1/meetings/demo-ko-2/minutes", headers={**AUTH, "Accept": "text/markdown"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/markdown")
    json_body = (await client.get("/v1/meetings/demo-ko-2/minutes", headers=AUTH)).json()
    assert response.text == to_markdown(Minutes.model_validate(json_body))
    assert response.text.startswith("# 회의록: ko_product_planning_2.jsonl")


async def test_an_unknown_meeting_is_404(client) -> None:
    response = await client.get("/v1/meetings/no-such-meeting/minutes", headers=AUTH)
    assert response.status_code == 404
    assert "no-such-meeting" in response.json()["detail"]
