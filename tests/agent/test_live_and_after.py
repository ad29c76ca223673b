"""The same question gets the same answer live and afterwards (issue 19 item 2).

The demo series is replayed as `make demo` does (each meeting's calls asked live, at the end
of its replay); then the same questions are asked again through `mithub ask` and the API,
once both meetings are finished. A call on a finished meeting must build the context its
live call built: the memory it searches is the series as it stood then (not the meeting
itself, nor meetings finished after it), so the answer, its citations and its size agree.
"""

from __future__ import annotations

import json

import httpx
import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.cli import main
from mithub.config import APIConfig
from mithub.context.models import AGENT_CALL_TYPES

from .conftest import DEMO, EXAMPLES, TOKEN, makefile_setting


@pytest.fixture(scope="module")
def live(demo_series) -> tuple[str, dict[tuple[str, str], dict]]:
    path, answers = demo_series
    return f"sqlite+aiosqlite:///{path}", answers


def _same(after: dict, live: dict) -> None:
    assert after["query"] == live["query"]
    assert after["answer"] == live["answer"]
    assert after["context_tokens"] == live["context_tokens"]
    assert [(c["id"], c["quote"], c.get("meeting_id")) for c in after["citations"]] == \
        [(c["id"], c["quote"], c.get("meeting_id")) for c in live["citations"]]


@pytest.mark.parametrize("meeting_id", [m for _, m, _, _ in DEMO])
@pytest.mark.parametrize("call_type", AGENT_CALL_TYPES)
def test_ask_afterwards_gives_the_live_answer(live, capsys, meeting_id, call_type):
    url, answers = live
    expected = answers[(meeting_id, call_type)]
    args = ["ask", "--meeting", meeting_id, "--type", call_type, "--database-url", url, "--json"]
    assert main(args + (["--query", expected["query"]] if expected["query"] else [])) == 0
    _same(json.loads(capsys.readouterr().out), expected)


async def test_the_api_gives_the_live_answers(live):
    url, answers = live
    runtime = await open_agent_runtime(url, index_dir="")
    app = create_app(runtime, APIConfig(token=TOKEN))
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            for (meeting_id, call_type), expected in answers.items():
                body = {"call_type": call_type, "query": expected["query"]}
                response = await http.post(f"/v1/meetings/{meeting_id}/calls", json=body,
                                           headers={"Authorization": f"Bearer {TOKEN}"})
                assert response.status_code == 200, response.text
                _same(response.json(), expected)
    finally:
        await runtime.aclose()


@pytest.mark.parametrize("call_type", ["IMMEDIATE_RESPONSE", "SEARCH"])
def test_the_past_question_is_answered_by_the_turn_that_answered_it(live, call_type):
    """Live and afterwards alike, the answer leads with the turn of meeting 1 that answered
    the question there (its facts file names it), not with today's "I don't remember"."""
    facts = json.loads((EXAMPLES / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    asked = next(q for q in facts["past_questions"] if q["query"] == makefile_setting("DEMO_QUESTION"))
    answer = live[1][("demo-ko-2", call_type)]
    lead = answer["citations"][0]
    assert (lead["meeting_id"], lead["seq"]) == ("demo-ko-1", asked["meeting1_seqs"][1]), answer["answer"]
    assert lead["quote"] in answer["answer"].splitlines()[0]
