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


def test_follow_up_meeting_has_no_item_where_nobody_took_on_new_work():
    items, facts = _follow_up()
    seqs = {i.seq for i in items}
    assert 3 not in seqs                  # only listening in
    assert not seqs & {4, 31}             # steering the meeting
    assert not seqs & {48, 70}            # earlier work, "원래대로"/"일정대로"
    status = {s["seq"] for s in facts["action_item_status"]}
    assert not seqs & status, "a status report on last week's task is no new item"
    assert not [i for i in items if i.owner == "최민호"], "참조 names who gets a copy, not the doer"


@pytest.mark.parametrize("lines", [
    [("오세린", "자, 먼저 지난번 액션 아이템부터 하나씩 점검할게요. 도윤 님, 강당 대관은 어떻게 됐어요?"),
     ("한도윤", "대관 신청은 어제 냈어요."),
     ("오세린", "좋아요. 그럼 다과는 그대로 두고 넘어갈게요.")],
    [("오세린", "그럼 한 분씩 돌아가면서 진행 상황 들어 볼게요.")],
    [("Priya Nair", "I'll go through last week's action items one by one. Omar, where are we on the venue?"),
     ("Omar Haddad", "Signed on Monday."),
     ("Priya Nair", "Great, I'll move us on to catering.")],
], ids=["ko-agenda", "ko-round", "en-agenda"])
def test_steering_the_meeting_is_no_item(lines):
    assert extract_action_items("m", _turns(("한도윤", "안녕하세요."), *lines), MONDAY) == []


@pytest.mark.parametrize(("line", "owner"), [
    (("오세린", "지난주 액션 아이템 진행 상황은 제가 정리해서 금요일까지 공유드릴게요."), "오세린"),
    (("오세린", "제가 먼저 로그부터 확인할게요."), "오세린"),
    (("Priya Nair", "I'll go through the action items again and send a summary by Friday."), "Priya Nair"),
])
def test_agenda_words_with_work_handed_over_stay_an_item(line, owner):
    assert _items(line) == [(1, owner)]


@pytest.mark.parametrize("line", [
    ("윤재희", "저는 오늘 인사 쪽 얘기만 듣겠습니다."),
    ("윤재희", "저는 오늘 참관만 할게요."),
    ("Lena Park", "I'll just listen in today, mostly for the staffing part."),
    ("Lena Park", "I'm going to stay on mute and listen."),
])
def test_only_listening_is_no_item(line):
    assert extract_action_items("m", _turns(line), MONDAY) == []


@pytest.mark.parametrize(("line", "owner"), [
    (("한도윤", "고객 인터뷰는 제가 직접 들어 보고 다음 주 화요일까지 정리해 드릴게요."), "한도윤"),
    (("한도윤", "제가 다음 주 수요일까지 고객사 세 곳 의견 듣겠습니다."), "한도윤"),
    (("Omar Haddad", "I'll listen to the call recordings and write up the complaints by Thursday."), "Omar Haddad"),
])
def test_listening_as_part_of_the_work_stays_an_item(line, owner):
    assert _items(line) == [(1, owner)]


def test_a_report_on_earlier_work_is_no_new_item_korean():
    people = [("오세린", "안녕하세요."), ("윤재희", "안녕하세요.")]
    lines = [
        ("한도윤", "초청장은 절반 보냈고요, 나머지는 원래대로 수요일까지 보낼게요."),
        ("윤재희", "현수막도 예정대로 준비하겠습니다."),
        ("오세린", "재희 님, 포토존 업체도 이번 주 안에 알아봐 주세요."),
        ("윤재희", "네, 목요일까지 알아볼게요."),
    ]
    items = extract_action_items("m", _turns(*people, *lines), MONDAY)
    assert [(i.seq, i.owner, i.due_date) for i in items] == [(5, "윤재희", date(2026, 9, 10))]


def test_a_report_on_earlier_work_is_no_new_item_english():
    lines = [
        ("Omar Haddad", "Half the invites are out; I'll send the rest by Wednesday as planned."),
        ("Lena Park", "And I'm still on track to finish the seating chart on Friday."),
        ("Priya Nair", "Lena, could you also book the photographer?"),
        ("Lena Park", "Sure, by Thursday."),
    ]
    items = extract_action_items("m", _turns(*lines), MONDAY)
    assert [(i.seq, i.owner, i.due_date) for i in items] == [(3, "Lena Park", date(2026, 9, 10))]


@pytest.mark.parametrize(("lines", "owner"), [
    ([("오세린", "도윤 님, 견적서는 금요일에 재희 님 참조로 보내 주세요."), ("한도윤", "네.")], "한도윤"),
    ([("한도윤", "견적서는 지금 다듬는 중이에요."), ("오세린", "네, 그럼 금요일에 재희 님 참조로 같이 보내 주세요.")], "한도윤"),
    ([("Priya Nair", "Omar, please send the quote on Friday and copy Lena."), ("Omar Haddad", "Will do.")],
     "Omar Haddad"),
    ([("Omar Haddad", "The quote is almost ready."), ("Priya Nair", "Okay, please send it Friday with Lena in cc.")],
     "Omar Haddad"),
], ids=["ko-named", "ko-unnamed", "en-copy", "en-in-cc"])
def test_who_gets_a_copy_is_not_the_owner(lines, owner):
    people = [("윤재희", "안녕하세요."), ("Lena Park", "Hi.")]
    items = extract_action_items("m", _turns(*people, *lines), MONDAY)
    assert [(i.owner, i.due_date) for i in items if i.seq > len(people)] == [(owner, date(2026, 9, 11))]
