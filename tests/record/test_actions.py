"""Action items and pending items from the two sample meetings (matching their *.facts.json)
and from short exchanges that show one rule each."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone, UTC
from pathlib import Path

import pytest

from mithub.context.models import Utterance
from mithub.record.actions import action_item_at, extract_action_items
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


def test_english_sample_pending_items_match_the_facts():
    turns, facts = _meeting("en_sprint_review")
    pending = extract_pending_items(facts["meeting_id"], turns)
    assert [p.seq for p in pending] == [73]
    assert "park that" in pending[0].text and "Postgres 16" in pending[0].text


def test_korean_sample_pending_items_match_the_facts():
    turns, facts = _meeting("ko_product_planning")
    pending = {p.seq: p for p in extract_pending_items(facts["meeting_id"], turns)}
    for fact in facts["pending"]:
        assert fact["seq"] in pending, fact["text"]
        assert all(word in pending[fact["seq"]].text for word in fact["must_contain"])






def test_a_deadline_before_a_dated_event_takes_the_event_date():
    turns = _turns(
        ("배상훈", "그럼 6월 1일 월요일부터 관리자 계정 MFA 의무화하겠습니다. 그 전까지 가영 님이 안내해 주시고요."),
        ("신가영", "네."),
    )
    item = action_item_at("m", turns, 1, "신가영", date(2026, 5, 8))
    assert (item.owner, item.due_text, item.due_date) == ("신가영", "그 전까지", date(2026, 6, 1))
    assert item.support_seqs == [2]  # her yes


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
















@pytest.mark.parametrize(("lines", "owner", "seq", "due"), [
    # an offset in Sino-Korean words from a dated event: two weeks before the 7월 22일 release
    ((("정혜원", "출간은 7월 22일로 하겠습니다."), ("조은비", "보도자료는 제가 출간 이 주 전까지 초안 드릴게요.")),
     "조은비", 2, date(2026, 7, 8)),
    # a time of day after an event deadline stays with it ("전날 오후" is not this afternoon)
    ((("최동혁", "오픈은 6월 19일로 하겠습니다."), ("하은지", "현장 점검은 오픈 전날 오후에 제가 돌겠습니다.")),
     "하은지", 2, date(2026, 6, 18)),
    # "그 전까지" after someone is named: the date said just before, not an event called "팀장님"
    ((("한정우", "투자심의위원회가 3월 20일 금요일입니다. 윤 팀장님은 그 전까지 심의 자료 올려 주십시오."),
      ("윤서경", "네, 알겠습니다.")), "윤서경", 1, date(2026, 3, 20)),
    # a day something starts from is no deadline: the deadline is the one said after it
    ((("한정우", "착공은 7월 11일로 하겠습니다."), ("백지은", "7월 11일 이후로 들어온 예약은 제가 다른 층으로 옮기겠습니다. 착공 2주 전까지 정리하겠습니다.")),
     "백지은", 2, date(2026, 6, 27)),
    (((("Paula", "I'll send the contract over to legal, get it back by end of month.")),), "Paula", 1, date(2026, 6, 30)),
])
def test_due_dates_said_in_other_forms(lines, owner, seq, due):
    """Forms a speaker uses that were misread: each dates the item as the README's rules do."""
    turns = _turns(*lines)
    item = action_item_at("m", turns, seq, owner, date(2026, 6, 4))
    assert item.due_date == due, (item.due_text, item.due_date)
