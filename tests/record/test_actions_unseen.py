"""Action items on a meeting the extractor was not tuned on (the follow-up of the Korean sample,
`ko_product_planning_2`), and the general rules its false items showed up: talk that steers
the meeting, saying one will only listen, a report on work assigned before, and a name that
only gets a copy. Each rule also has a short exchange in another domain, Korean and English."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from mithub.record.actions import extract_action_items
from mithub.record.models import ActionItem

from .test_actions import _meeting, _turns

# The follow-up meeting: Monday 11 May 2026, 10:00 in Seoul.
FOLLOW_UP = "ko_product_planning_2"
FOLLOW_UP_DATE = date(2026, 5, 11)
FOLLOW_UP_START = datetime(2026, 5, 11, 1, 0, tzinfo=UTC)
MONDAY = date(2026, 9, 7)


def _follow_up() -> tuple[list[ActionItem], dict]:
    turns, facts = _meeting(FOLLOW_UP, FOLLOW_UP_START)
    return extract_action_items(facts["meeting_id"], turns, FOLLOW_UP_DATE), facts


def _items(*lines: tuple[str, str]) -> list[tuple[int, str]]:
    return [(i.seq, i.owner) for i in extract_action_items("m", _turns(*lines), MONDAY)]


def test_follow_up_meeting_planted_items_with_owner_and_due_date():
    items, facts = _follow_up()
    for fact in facts["action_items"]:
        found = [i for i in items if i.owner == fact["owner"] and fact["seq"] in [i.seq, *i.support_seqs]]
        assert found, f"missing {fact['owner']}: {fact['task']}"
        assert found[0].due_date == date.fromisoformat(fact["due_date"]), fact
        assert fact["due"] in (found[0].due_text or ""), (fact["due"], found[0].due_text)


def test_follow_up_meeting_keeps_small_real_commitments():
    items, _ = _follow_up()
    owners = {(i.seq, i.owner) for i in items}
    assert (66, "이수민") in owners      # 데모 환경 세팅은 저희 쪽에서 같이 할게요
    assert (111, "김지현") in owners     # 회의록은 오늘 오후까지 정리해서 공유드릴게요








@pytest.mark.parametrize("line", [
    ("윤재희", "저는 오늘 인사 쪽 얘기만 듣겠습니다."),
    ("윤재희", "저는 오늘 참관만 할게요."),
    ("Lena Park", "I'll just listen in today, mostly for the staffing part."),
    ("Lena Park", "I'm going to stay on mute and listen."),
])
def test_only_listening_is_no_item(line):
    assert extract_action_items("m", _turns(line), MONDAY) == []








