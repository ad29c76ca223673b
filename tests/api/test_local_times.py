"""The API gives a meeting's times with the meeting's own offset (the same instants as UTC)
and names its zone (issue 19 item 1): an 08:30 meeting in Seoul is on 4 May, not 3 May."""

from __future__ import annotations

import httpx
import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.cli import main
from mithub.config import APIConfig

from .conftest import AUTH, EXAMPLES, TOKEN


@pytest.fixture(scope="module")
def seoul_morning_url(tmp_path_factory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('local') / 'mithub.db'}"
    assert main(["replay", str(EXAMPLES / "ko_product_planning.jsonl"), "--meeting-id", "early", "--series", "s",
                 "--started-at", "2026-05-04T08:30:00+09:00", "--database-url", url, "--no-progress", "--json"]) == 0
    return url


@pytest.fixture
async def client(seoul_morning_url):
    runtime = await open_agent_runtime(seoul_morning_url, index_dir="")
    app = create_app(runtime, APIConfig(token=TOKEN))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        yield http
    await runtime.aclose()


@pytest.mark.slow
async def test_every_time_of_a_meeting_carries_its_offset(client):
    [meeting] = (await client.get("/v1/meetings", headers=AUTH)).json()
    assert (meeting["timezone"], meeting["started_at"]) == ("+09:00", "2026-05-04T08:30:00+09:00")
    shown = (await client.get("/v1/meetings/early", headers=AUTH)).json()
    assert (shown["timezone"], shown["started_at"]) == ("+09:00", "2026-05-04T08:30:00+09:00")
    turns = (await client.get("/v1/meetings/early/transcript?limit=3", headers=AUTH)).json()
    assert [t["absolute_timestamp"][:10] for t in turns] == ["2026-05-04"] * 3
    assert all(t["absolute_timestamp"].endswith("+09:00") for t in turns)
    decisions = (await client.get("/v1/series/s/decisions", headers=AUTH)).json()["decisions"]
    actions = (await client.get("/v1/series/s/actions", headers=AUTH)).json()["actions"]
    times = [d["time"] for d in decisions] + [a["time"] for a in actions]
    assert decisions and actions and all(t.startswith("2026-05-04T0") and t.endswith("+09:00") for t in times)
    answer = (await client.post("/v1/meetings/early/calls", headers=AUTH,
                                json={"call_type": "SEARCH", "query": "Q3 클라우드 예산은 얼마로 확정했나요?"})).json()
    cited = [c["time"] for c in answer["citations"] if c.get("time")]
    assert cited and all(t.startswith("2026-05-04T0") and t.endswith("+09:00") for t in cited)
