"""The series ledger after the demo series (the Korean sample meeting and its follow-up a
week later): the API routes (bearer token), the CLI's JSON in the same shape, and the
statuses after the two changes the follow-up makes (one explicit, one implicit)."""

from __future__ import annotations

import json

import httpx
import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.cli import main
from mithub.config import APIConfig

from .conftest import AUTH, EXAMPLES, TOKEN

DECISION_KEYS = {"id", "meeting_id", "seq", "speaker", "time", "subject", "value", "quote", "status"}
CHANGE_KEYS = {"meeting_id", "seq", "speaker", "time", "quote", "kind", "decision_id", "past"}
ACTION_KEYS = {"meeting_id", "seq", "owner", "task", "due_text", "due_date", "quote"}


@pytest.fixture(scope="module")
def series_url(tmp_path_factory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('ledger') / 'mithub.db'}"
    for name, meeting_id, started in (("ko_product_planning", "demo-ko-1", "2026-05-04T10:00:00+09:00"),
                                      ("ko_product_planning_2", "demo-ko-2", "2026-05-11T10:00:00+09:00")):
        assert main(["replay", str(EXAMPLES / f"{name}.jsonl"), "--meeting-id", meeting_id, "--series", "demo-ko",
                     "--started-at", started, "--database-url", url, "--no-progress", "--json"]) == 0
    return url


@pytest.fixture
async def client(series_url):
    runtime = await open_agent_runtime(series_url, index_dir="")
    app = create_app(runtime, APIConfig(token=TOKEN))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
        yield http
    await runtime.aclose()


async def test_decisions_route_marks_the_changed_decisions_and_links_the_changes(client):
    assert (await client.get("/v1/series/demo-ko/decisions")).status_code == 401
    body = (await client.get("/v1/series/demo-ko/decisions", headers=AUTH)).json()
    decisions = {d["id"]: d for d in body["decisions"]}
    assert all(DECISION_KEYS <= set(d) for d in decisions.values())
    assert all(CHANGE_KEYS <= set(c) and set(c["past"]) >= {"meeting_id", "seq", "quote"} for c in body["changes"])
    kinds = {c["past"]["seq"]: c["kind"] for c in body["changes"]}
    # The beta date (seq 100, "7월 22일" -> "8월 5일", said so) and the GPU server (seq 66,
    # 4 -> 3 servers, not said so) of the first meeting are changed by the second.
    assert kinds == {100: "explicit", 66: "implicit"}, body["changes"]
    for change in body["changes"]:
        old = decisions[change["decision_id"]]
        assert (old["meeting_id"], old["status"]) == ("demo-ko-1", "changed")
        assert old["changed_by"] == f"{change['meeting_id']}:{change['seq']}"
        assert change["meeting_id"] == "demo-ko-2"
    budget = next(d for d in decisions.values() if d["meeting_id"] == "demo-ko-1" and d["seq"] == 36)
    assert budget["status"] == "active", "the restatement of the budget ('이억 사천') is no change"


async def test_actions_route_lists_both_meetings_with_dates(client):
    assert (await client.get("/v1/series/demo-ko/actions", headers={"Authorization": "Bearer no"})).status_code == 401
    actions = (await client.get("/v1/series/demo-ko/actions", headers=AUTH)).json()["actions"]
    assert all(ACTION_KEYS <= set(a) for a in actions)
    assert {a["meeting_id"] for a in actions} == {"demo-ko-1", "demo-ko-2"}
    tuesday = next(a for a in actions if a["meeting_id"] == "demo-ko-1" and a["owner"] == "박서준"
                   and a["due_text"] and "다음 주 화요일" in a["due_text"])
    assert tuesday["due_date"] == "2026-05-12"
    assert (await client.get("/v1/series/nobody/actions", headers=AUTH)).json()["actions"] == []


def test_cli_prints_the_same_documents(series_url, capsys):
    assert main(["decisions", "--series", "demo-ko", "--database-url", series_url, "--json"]) == 0
    decisions = json.loads(capsys.readouterr().out)
    assert [d["status"] for d in decisions["decisions"]].count("changed") == 2
    assert main(["actions", "--series", "demo-ko", "--database-url", series_url]) == 0
    assert "2026-05-12" in capsys.readouterr().out
