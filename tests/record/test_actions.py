"""Action items and pending items from the two sample meetings (matching their *.facts.json)
and from short exchanges that show one rule each."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone, UTC
from pathlib import Path

import pytest

from mithub.context.models import Utterance
from mithub.record.actions import extract_action_items
from mithub.record.models import ActionItem
from mithub.record.pending import extract_pending_items

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"
# Wednesday 17 June 2026, 10:00 in Seoul: the date every relative due date resolves against.
MEETING_DATE = date(2026, 6, 17)
START = datetime(2026, 6, 17, 1, 0, tzinfo=UTC)

# facts.json `due` (as said) -> the date it names on MEETING_DATE; None: no calendar day.
RESOLVED = {
    "다음 주 금요일": date(2026, 6, 26), "이번 주 금요일": date(2026, 6, 19),
    "다음 주 수요일": date(2026, 6, 24), "7월 5일": date(2026, 7, 5), "다음 회의까지": None,
    "이번 주 목요일": date(2026, 6, 18), "7월 12일": date(2026, 7, 12),
    "다음 주 화요일": date(2026, 6, 23),
    "end of day tomorrow": date(2026, 6, 18), "Wednesday": date(2026, 6, 24),
    "Friday": date(2026, 6, 19), "Monday 5 pm": date(2026, 6, 22),
}


def _meeting(name: str, start: datetime = START) -> tuple[list[Utterance], dict]:
    turns = []
    for seq, line in enumerate((EXAMPLES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines(), start=1):
        row = json.loads(line)
        turns.append(Utterance(
            id=seq, speaker_id=row["speaker_id"], speaker_name=row["speaker_name"], text=row["text"],
            start_ms=row["start_ms"], end_ms=row["end_ms"],
            absolute_timestamp=start + timedelta(milliseconds=row["start_ms"]),
        ))
    return turns, json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))


def _turns(*lines: tuple[str, str]) -> list[Utterance]:
    return [
        Utterance(id=i, speaker_id=name, speaker_name=name, text=text,
                  absolute_timestamp=START + timedelta(seconds=10 * i))
        for i, (name, text) in enumerate(lines, start=1)
    ]


def _found(fact: dict, items: list[ActionItem]) -> ActionItem | None:
    for item in items:
        if item.owner == fact["owner"] and fact["seq"] in [item.seq, *item.support_seqs]:
            return item
    return None


@pytest.mark.parametrize("name", ["ko_product_planning", "en_sprint_review"])
def test_sample_meeting_action_items_match_the_facts(name):
    turns, facts = _meeting(name)
    items = extract_action_items(facts["meeting_id"], turns, MEETING_DATE)
    for fact in facts["action_items"]:
        item = _found(fact, items)
        assert item is not None, f"missing {fact['owner']}: {fact['task']}"
        assert item.due_date == RESOLVED[fact["due"]], fact
        assert fact["due"] in (item.due_text or ""), (fact["due"], item.due_text)
    assert len({(i.owner, i.seq) for i in items}) == len(items)


def test_sample_meeting_items_cite_their_utterances():
    turns, facts = _meeting("ko_product_planning")
    by_seq = {t.id: t for t in turns}
    for item in extract_action_items(facts["meeting_id"], turns, MEETING_DATE):
        said = by_seq[item.seq]
        assert (item.meeting_id, item.speaker, item.time) == ("demo-ko", said.speaker_name, said.absolute_timestamp)
        assert item.quote.rstrip("…") in said.text or said.text.startswith(item.quote.rstrip("…"))
        # A due date is never cut mid-word ("(7…" was): it is said whole in one of its lines.
        if item.due_text:
            lines = [by_seq[s].text for s in [item.seq, *item.support_seqs, item.seq - 1] if s in by_seq]
            assert any(item.due_text in text for text in lines)


def test_english_sample_false_positives_are_not_produced():
    turns, facts = _meeting("en_sprint_review")
    items = extract_action_items(facts["meeting_id"], turns, MEETING_DATE)
    assert not [i for i in items if i.seq == 68], "an on-call shift is no task"
    pending = extract_pending_items(facts["meeting_id"], turns)
    assert [p.seq for p in pending] == [73]
    assert "park that" in pending[0].text and "Postgres 16" in pending[0].text


def test_korean_sample_pending_items_match_the_facts():
    turns, facts = _meeting("ko_product_planning")
    pending = {p.seq: p for p in extract_pending_items(facts["meeting_id"], turns)}
    for fact in facts["pending"]:
        assert fact["seq"] in pending, fact["text"]
        assert all(word in pending[fact["seq"]].text for word in fact["must_contain"])


def test_two_owners_on_one_line_give_two_items_with_their_own_dates():
    turns = _turns(
        ("김지현", "수민 님이 7월 12일까지 답변서 초안 만들어 주시고, 서준 님은 기술 항목 검토해 주세요."),
        ("박서준", "네, 기술 항목은 제가 다음 주 화요일까지 코멘트 달아 둘게요."),
        ("이수민", "네."),
    )
    items = {i.owner: i for i in extract_action_items("m", turns, MEETING_DATE)}
    assert set(items) == {"이수민", "박서준"}
    assert items["이수민"].due_date == date(2026, 7, 12)
    assert items["박서준"].due_date == date(2026, 6, 23)
    assert items["박서준"].support_seqs == [2]


def test_an_unnamed_request_goes_to_whoever_accepts_it():
    turns = _turns(
        ("Jess Carrow", "Landing page. Who owns it?"),
        ("Nora Fitzgerald", "I'll take it. First draft by May twenty-ninth?"),
        ("Jess Carrow", "Nora owns the landing page, draft by the twenty-ninth."),
        ("Liam Obuya", "The café asked about a tasting."),
        ("Jess Carrow", "Could someone call the café manager about it?"),
        ("Sam Delgado", "Sure."),
    )
    items = extract_action_items("m", turns, date(2026, 5, 13))
    assert [(i.owner, i.seq, i.support_seqs, i.due_date) for i in items] == [
        ("Nora Fitzgerald", 2, [3], date(2026, 5, 29)),
        ("Sam Delgado", 5, [6], None),
    ]


def test_a_deadline_before_a_dated_event_takes_the_event_date():
    turns = _turns(
        ("배상훈", "그럼 6월 1일 월요일부터 관리자 계정 MFA 의무화하겠습니다. 그 전까지 가영 님이 안내해 주시고요."),
        ("신가영", "네."),
    )
    [item] = extract_action_items("m", turns, date(2026, 5, 8))
    assert (item.owner, item.due_text, item.due_date) == ("신가영", "그 전까지", date(2026, 6, 1))


@pytest.mark.parametrize("lines", [
    [("김지현", "네, 그러면 GPU는 월 1,800만 원으로 배정하겠습니다.")],            # a decision
    [("김지현", "지난주에 22일로 잡았던 베타는 8월 5일에 열겠습니다.")],           # a decision
    [("김민수", "신규 채용은 두 명으로 진행하겠습니다.")],                          # a decision
    [("박서준", "네, 알겠습니다.")],                                              # an acknowledgement
    [("김지현", "네, 오늘은 여기까지 하겠습니다. 수고하셨습니다.")],               # steering
    [("Tom Becker", "If the vendor slips, I'll call them.")],                     # a hypothetical
    [("Raj Patel", "Yeah, I'll take the first week, since I know it best.")],     # a shift
    [("Maya Chen", "Raj, can you walk us through the numbers?")],                 # talk, now
    [("Maya Chen", "I'll tell you what happened on Friday.")],                  # talk, now
    [("김지현", "제가 먼저 간단히 설명드릴게요.")],                                # talk, now
    [("Maya Chen", "Can someone take notes today?")],                            # in the meeting
    [("이수민", "벤더가 다음 주에 설치해 준대요.")],                                # a vendor's work
])
def test_no_action_item_where_nobody_took_on_work(lines):
    assert extract_action_items("m", _turns(*lines), MEETING_DATE) == []


@pytest.mark.parametrize(("text", "team"), [
    ("그건 저희 IT팀에서 할게요.", "IT팀"),
    ("Our QA team will cover the regression pass.", "QA team"),
])
def test_a_team_can_own_an_item(text, team):
    [item] = extract_action_items("m", _turns(("이수민", text)), MEETING_DATE)
    assert item.owner == team


def test_a_recurring_schedule_keeps_its_words_without_a_date():
    turns = _turns(
        ("김지현", "주간 리포트는 수진 님이 해 주시는 게 좋겠어요."),
        ("이수진", "네, 제가 할게요. 매주 월요일 오전에 정리해서 공유드릴게요."),
    )
    [item] = extract_action_items("m", turns, MEETING_DATE)
    assert (item.owner, item.due_text, item.due_date) == ("이수진", "매주 월요일 오전에", None)


def test_a_conditional_revisit_is_not_pending():
    turns = _turns(
        ("Maya Chen", "Let's not bikeshed it here. Can we agree on 10 and revisit if it slips?"),
        ("Maya Chen", "We don't have the numbers, so let's park the pricing question until next week."),
    )
    assert [p.seq for p in extract_pending_items("m", turns)] == [2]


@pytest.mark.parametrize(("lines", "owner"), [
    ([("Dana Whitfield", "Let me check with legal who signs it.")], "Dana Whitfield"),
    ([("Jess Carrow", "Sam, the discount code is yours."), ("Sam Delgado", "Yep.")], "Sam Delgado"),
    ([("Jess Carrow", "Let's have Liam pull a list of influencers.")], "Liam Obuya"),
    ([("김지현", "그건 제가 확인해 보죠.")], "김지현"),
    ([("김지현", "성민 님, 로그 정리 좀 해 줄 수 있어요?"), ("박성민", "네.")], "박성민"),
    ([("이수진", "리포트는 제가 금요일에 공유할 예정이에요.")], "이수진"),
    ([("배상훈", "백업 점검은 현우 님이 담당해 주시고요.")], "노현우"),
    ([("이지은", "디자인 시안은 다음 주 수요일까지 받아서 공유드리겠습니다.")], "이지은"),
    ([("이지은", "자료는 내일 보내드리겠습니다.")], "이지은"),
    ([("Jess Carrow", "Who's writing the brief?"), ("Liam Obuya", "I can.")], "Liam Obuya"),
    ([("김지현", "견적 비교는 누가 하죠?"), ("박성민", "제가요.")], "박성민"),
    ([("Jess Carrow", "Liam, you should check the contract with legal.")], "Liam Obuya"),
    ([("김지현", "이건 성민 님이 하시면 좋겠어요.")], "박성민"),
    ([("김지현", "그거 내일까지 좀 보내 줘요."), ("박성민", "네.")], "박성민"),
])
def test_other_ways_of_taking_on_work(lines, owner):
    participants = [("Liam Obuya", "Hi."), ("노현우", "안녕하세요."), ("박성민", "안녕하세요.")]
    turns = _turns(*participants, *lines)
    items = [i for i in extract_action_items("m", turns, MEETING_DATE) if i.seq > len(participants)]
    assert [i.owner for i in items] == [owner]


def test_work_shared_by_two_people_gives_each_an_item():
    turns = _turns(
        ("서준영", "과제형 테스트 문제는 저랑 재석 님이 만들고 있어요."),
        ("문재석", "네, 다음 주 중에 초안 공유드릴게요."),
        ("김지현", "민호 님이랑 수민 님이 같이 고객사 명단 정리해 주세요."),
        ("이수민", "네."),
        ("최민호", "네, 알겠습니다."),
    )
    items = [(i.owner, i.seq, i.due_date) for i in extract_action_items("m", turns, date(2026, 5, 14))]
    assert items == [
        ("문재석", 2, date(2026, 5, 22)), ("서준영", 2, date(2026, 5, 22)),
        ("최민호", 3, None), ("이수민", 3, None),
    ]


def test_an_instruction_is_work_only_when_it_is_accepted():
    accepted = _turns(("서준영", "백엔드는 세 자리로 올리시면 돼요."), ("임소희", "네, 알겠습니다."))
    advice = _turns(("박성민", "학습 노드는 태그만 붙여 주시면 돼요."), ("정우현", "아 그렇구나, 그럼 편하겠네요."))
    assert [i.owner for i in extract_action_items("m", accepted, MEETING_DATE)] == ["임소희"]
    assert extract_action_items("m", advice, MEETING_DATE) == []


@pytest.mark.parametrize(("text", "owner"), [
    ("Okay, action item for Sam: update the budget tracker by Friday.", "Sam Delgado"),
    ("The vendor sync is assigned to Marcus.", "Marcus Oyelaran"),
    ("파기 스크립트 담당은 현우 님으로 하죠.", "노현우"),
])
def test_a_named_owner_statement_is_an_assignment(text, owner):
    people = [("Sam Delgado", "Hi."), ("Marcus Oyelaran", "Hi."), ("노현우", "안녕하세요.")]
    turns = _turns(*people, ("Jess Carrow", text))
    items = [i for i in extract_action_items("m", turns, MEETING_DATE) if i.seq == len(people) + 1]
    assert [i.owner for i in items] == [owner]


def test_an_echo_of_a_pending_item_is_not_a_second_one():
    turns = _turns(
        ("강혜린", "그건 프론트 팀장님이 오늘 휴가라서, 다음 주에 같이 정하죠."),
        ("임소희", "네, 그럼 그건 보류로 해 둘게요."),
        ("강혜린", "ISMS-P 인증 추진 여부는 보류하겠습니다."),
    )
    assert [p.seq for p in extract_pending_items("m", turns)] == [1, 3]
    assert extract_action_items("m", turns, MEETING_DATE) == []


def test_a_planning_meeting_in_another_domain():
    turns = _turns(
        ("정하늘", "네, 시작하겠습니다. 오늘은 10월 세미나 준비 건이요."),
        ("오민재", "장소는 코엑스 3층 세미나실로 가계약 해 뒀어요."),
        ("정하늘", "그럼 장소는 코엑스로 확정하겠습니다. 계약서는 민재 님이 이번 주 안에 마무리해 주세요."),
        ("오민재", "네, 목요일까지 서명 받아 둘게요."),
        ("정하늘", "유리 님이 연사 후보 리스트 좀 뽑아 주실 수 있어요?"),
        ("한유리", "네, 다음 주 화요일까지 후보 다섯 명 정도 추려 볼게요."),
        ("한유리", "홍보 포스터는 디자인팀에서 해 준대요. 초안은 다음 주 금요일에 나온대요."),
        ("정하늘", "네, 포스터 나오면 유리 님이 검수해 주시고요, 배포는 그다음 주 월요일에 하죠."),
        ("한유리", "네."),
        ("정하늘", "케이터링은 다음 회의에서 다시 보죠. 민재 님, 견적서만 공유 폴더에 올려 주세요."),
        ("오민재", "네, 회의 끝나고 바로 올릴게요."),
        ("정하늘", "만약에 참가자가 200명 넘으면 제가 추가 예산 요청할게요."),
        ("정하늘", "오늘은 여기까지 하겠습니다. 회의록은 제가 내일 오전까지 정리해서 보내 드릴게요."),
    )
    monday = date(2026, 9, 7)
    items = extract_action_items("m", turns, monday)
    assert [(i.seq, i.owner) for i in items] == [
        (3, "오민재"), (5, "한유리"), (8, "한유리"), (10, "오민재"), (13, "정하늘"),
    ]
    due = {i.seq: i.due_date for i in items}
    assert due[5] == date(2026, 9, 15)       # 다음 주 화요일
    assert due[8] == date(2026, 9, 18)       # when the draft is out, not the distribution Monday
    assert due[10] == monday                 # 회의 끝나고
    assert due[13] == date(2026, 9, 8)       # 내일 오전까지
    assert [p.seq for p in extract_pending_items("m", turns)] == [10]


def test_an_office_move_meeting_in_english():
    turns = _turns(
        ("Ana Ruiz", "Okay, let's get started. This is the office move planning."),
        ("Ben Cho", "The landlord confirmed we can get the keys on October 1st."),
        ("Ana Ruiz", "Great. So the move date is Saturday October 3rd. Ben, can you book the movers?"),
        ("Ben Cho", "Yep, I'll get three quotes and book one by Friday."),
        ("Cara Diaz", "What about the internet? Installation takes ten business days."),
        ("Ana Ruiz", "Then we need to order it this week. Cara, that's yours."),
        ("Cara Diaz", "Sure. I'll place the order tomorrow."),
        ("Ana Ruiz", "Let's park the furniture question until we see the space."),
        ("Cara Diaz", "Also, someone should tell the clients about the new address."),
        ("Ana Ruiz", "I'll draft the email, and Ben can send it out the day before the move."),
        ("Ben Cho", "Works for me."),
        ("Cara Diaz", "If the movers cancel, I'll call my cousin's company."),
    )
    tuesday = date(2026, 9, 8)
    items = extract_action_items("m", turns, tuesday)
    assert [(i.seq, i.owner, i.due_date) for i in items] == [
        (3, "Ben Cho", date(2026, 9, 11)),       # by Friday
        (6, "Cara Diaz", date(2026, 9, 9)),      # tomorrow (the acceptance dates it)
        (10, "Ana Ruiz", None),
        (10, "Ben Cho", date(2026, 10, 2)),      # the day before the move (October 3rd)
    ]
    assert [p.seq for p in extract_pending_items("m", turns)] == [8]
