"""Answers respect the ledger (issue 19 item 3): in a third meeting of the demo series, a
question about a decision the second meeting changed is answered with the value that holds
now. The first meeting's turn is still quoted, marked "(changed on DATE to VALUE)"; the
second meeting's turn leads; the template answer says the decision was changed. Live, and
the same afterwards through `mithub ask`."""

from __future__ import annotations

import json
import shutil

import pytest

from mithub.agent.runtime import open_agent_runtime
from mithub.cli import main

from .conftest import EXAMPLES, makefile_setting, replay_with_calls

# The demo's question in its third meeting (asked there too, its seventh line), about the GPU
# servers: four in the first meeting, three in the second (the change its facts file plants).
QUESTION = makefile_setting("DEMO_QUESTION_3")
THIRD = ("ko_product_planning_3", "demo-ko-3", "2026-05-18T10:00:00+09:00")


@pytest.fixture(scope="module")
def third(demo_series, tmp_path_factory) -> tuple[str, dict[str, dict]]:
    path = tmp_path_factory.mktemp("third") / "mithub.db"
    shutil.copy(demo_series[0], path)
    url = f"sqlite+aiosqlite:///{path}"
    return url, replay_with_calls(url, *THIRD, QUESTION)


@pytest.fixture(scope="module")
def planted() -> dict:
    facts = json.loads((EXAMPLES / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    return next(c for c in facts["changes"] if c["kind"] == "implicit")


def test_the_question_is_in_the_third_meeting():
    lines = (EXAMPLES / f"{THIRD[0]}.jsonl").read_text(encoding="utf-8").splitlines()
    assert any(QUESTION in json.loads(line)["text"] for line in lines)


async def test_the_ledger_has_the_change(third, planted):
    runtime = await open_agent_runtime(third[0], index_dir="")
    try:
        changes = await runtime.repository.series_changes("demo-ko")
    finally:
        await runtime.aclose()
    assert any(c.past.meeting_id == "demo-ko-1" and c.past.seq == planted["meeting1_seq"]
               and (c.meeting_id, c.seq) == ("demo-ko-2", planted["seq"]) for c in changes)


@pytest.mark.parametrize("call_type", ["IMMEDIATE_RESPONSE", "SEARCH"])
def test_the_current_value_leads_and_the_old_one_is_marked(third, planted, call_type):
    answer = third[1][call_type]
    lead = answer["citations"][0]
    assert (lead["meeting_id"], lead["seq"]) == ("demo-ko-2", planted["seq"]), answer["answer"]
    first_line, said_changed = answer["answer"].splitlines()[0], answer["answer"].splitlines()[1]
    assert any(value in first_line for value in planted["must_contain"]), first_line
    assert "바뀌었습니다" in said_changed and "2026-05-11" in said_changed
    old = [c for c in answer["citations"] if (c["meeting_id"], c["seq"]) == ("demo-ko-1", planted["meeting1_seq"])]
    assert old, "the first meeting's decision is still quoted"
    assert "(changed on 2026-05-11 to " in old[0]["quote"]
    assert planted["new_value"].split(", ")[0].removeprefix("L40S GPU ") in old[0]["quote"].split("changed on")[1]


def test_afterwards_the_prompt_shows_the_mark_and_the_answer_is_the_live_one(third, planted, capsys):
    url, live = third
    assert main(["ask", "--meeting", "demo-ko-3", "--type", "IMMEDIATE_RESPONSE", "--query", QUESTION,
                 "--database-url", url, "--json", "--show-context"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert after["answer"] == live["IMMEDIATE_RESPONSE"]["answer"]
    items = {(i["meeting_id"], i["seq"]): i for i in after["context"]}
    assert "(changed on 2026-05-11 to " in items[("demo-ko-1", planted["meeting1_seq"])]["quote"]
    assert ("demo-ko-2", planted["seq"]) in items


def test_a_deadline_on_the_beta_takes_the_date_the_second_meeting_moved_it_to(third, capsys):
    """The third meeting's "베타 오픈 사흘 전까지": the beta was dated 7월 22일 in the first
    meeting and moved to 8월 5일 in the second, so the item is due on 8월 2일."""
    assert main(["actions", "--series", "demo-ko", "--database-url", third[0], "--json"]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    [item] = [a for a in actions if a["meeting_id"] == "demo-ko-3" and a["owner"] == "최민호"]
    assert (item["due_text"], item["due_date"]) == ("베타 오픈 사흘 전까지", "2026-08-02")


def test_an_offset_said_in_words_counts_from_the_moved_beta(third, capsys):
    """"베타 오픈 이 주 전까지" (two weeks, said in Sino-Korean words) from the beta the second
    meeting moved to 8월 5일: 7월 22일 (the offset was not read, so the item had no date)."""
    assert main(["actions", "--series", "demo-ko", "--database-url", third[0], "--json"]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    [item] = [a for a in actions if a["meeting_id"] == "demo-ko-3" and a["owner"] == "박서준"]
    assert (item["due_text"], item["due_date"]) == ("베타 오픈 이 주 전까지", "2026-07-22")


def test_an_answer_dates_the_event_the_question_asked_about(third, capsys):
    """"보안 점검은 언제로 잡혔죠?" / "7월 29일 수요일이요." / "점검 전날까지": the answer dates the
    event the question named, so the item is due the day before (a question used to date nothing)."""
    assert main(["actions", "--series", "demo-ko", "--database-url", third[0], "--json"]) == 0
    actions = json.loads(capsys.readouterr().out)["actions"]
    [item] = [a for a in actions if a["meeting_id"] == "demo-ko-3" and a["owner"] == "이수민"
              and "체크리스트" in a["task"]]
    assert (item["due_text"], item["due_date"]) == ("점검 전날까지", "2026-07-28")


async def _third_meeting_change(url: str, said: str):
    """The one change the third meeting made whose quote has `said` in it."""
    runtime = await open_agent_runtime(url, index_dir="")
    try:
        changes = await runtime.repository.series_changes("demo-ko")
    finally:
        await runtime.aclose()
    [change] = [c for c in changes if c.meeting_id == "demo-ko-3" and said in c.quote]
    return change


async def test_the_third_meeting_calls_off_a_decision_of_the_first(third):
    """"지난번에 8월 둘째 주로 잡았던 외부 모의해킹은 취소하겠습니다": a cancellation is a change
    of the first meeting's decision (issue 18), and the decision it settles is "취소"."""
    change = await _third_meeting_change(third[0], "모의해킹")
    assert (change.past.meeting_id, change.kind, change.candidate) == ("demo-ko-1", "explicit", False)
    assert "모의해킹은 8월 둘째 주에 진행하기로" in change.past.quote and "취소하겠습니다" in change.quote


async def test_an_option_turned_down_by_name_changes_the_first_meetings_decision(third):
    """"야간 오토스케일링 대신 예약 인스턴스로 가겠습니다": the option turned down is one the first
    meeting's budget decision names ("야간 오토스케일링이랑 … 절감하는 걸 전제로"), an explicit change."""
    change = await _third_meeting_change(third[0], "오토스케일링 대신")
    assert (change.past.meeting_id, change.kind, change.candidate) == ("demo-ko-1", "explicit", False)
    assert "야간 오토스케일링이랑" in change.past.quote


async def test_an_agreement_that_adopts_a_proposal_changes_the_second_meetings_decision(third):
    """"…오전 9시로 당기면 어떨까요?" / "네, 그렇게 하죠.": the agreement settles the proposal, a
    change of the second meeting's open time (오전 10시), announced at the agreement and quoting
    the proposal."""
    change = await _third_meeting_change(third[0], "그렇게 하죠")
    assert (change.past.meeting_id, change.candidate, change.speaker) == ("demo-ko-2", False, "김지현")
    assert "오전 10시" in change.past.quote and "← 이수민:" in change.quote and "9시로 당기면" in change.quote


def test_the_decision_an_agreement_adopts_is_listed_with_the_proposals_value(third, capsys):
    assert main(["decisions", "--series", "demo-ko", "--database-url", third[0], "--json"]) == 0
    decisions = json.loads(capsys.readouterr().out)["decisions"]
    [adopted] = [d for d in decisions if d["meeting_id"] == "demo-ko-3" and "그렇게 하죠" in d["quote"]]
    assert "9시" in adopted["value"] and adopted["value_type"] == "time" and adopted["speaker"] == "김지현"


def test_the_decision_a_cancellation_settles_is_called_off(third, capsys):
    assert main(["decisions", "--series", "demo-ko", "--database-url", third[0], "--json"]) == 0
    decisions = json.loads(capsys.readouterr().out)["decisions"]
    [called_off] = [d for d in decisions if d["meeting_id"] == "demo-ko-3" and "모의해킹" in d["quote"]]
    assert (called_off["value"], called_off["value_type"]) == ("취소", "choice")
    [past] = [d for d in decisions if d["meeting_id"] == "demo-ko-1" and "모의해킹은 8월 둘째 주" in d["quote"]]
    assert past["status"] == "changed"
