"""Due dates read in the meeting's context: a deadline hung on an event takes the date the meeting
gives that event (wherever in the meeting it is said, the latest one if it changed), and none when
the meeting never dates it; a date repeated in short in a reply is the date just said."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from mithub.context.models import Utterance
from mithub.record.actions import action_item_at
from mithub.record.dates import resolve_date_expressions

START = datetime(2026, 10, 13, 1, 0, tzinfo=UTC)


def _turns(*lines: tuple[str, str]) -> list[Utterance]:
    return [
        Utterance(id=i, speaker_id=name, speaker_name=name, text=text,
                  absolute_timestamp=START + timedelta(seconds=10 * i))
        for i, (name, text) in enumerate(lines, start=1)
    ]


def _due(lines: list[tuple[str, str]], seq: int, owner: str, meeting: date) -> tuple[str | None, date | None]:
    item = action_item_at("m", _turns(*lines), seq, owner, meeting)
    return item.due_text, item.due_date


# --- Korean --------------------------------------------------------------------------------


def test_ko_event_dated_later_in_the_meeting():
    lines = [("하유진", "발주는 제가 출시 2주 전까지 넣을게요."),
             ("권다솜", "출시는 11월 5일로 가겠습니다.")]
    said, due = _due(lines, 1, "하유진", date(2026, 10, 13))
    assert said.endswith("출시 2주 전까지") and due == date(2026, 10, 22)


def test_ko_event_dated_by_a_day_number_beside_it():
    lines = [("주형석", "그래, 5일 출시로 가."),
             ("하유진", "발주는 제가 출시 2주 전까지 넣을게요.")]
    assert _due(lines, 2, "하유진", date(2026, 10, 13))[1] == date(2026, 10, 22)


def test_ko_changed_event_date_replaces_the_old_one():
    lines = [("권다솜", "출시는 11월 5일로 가겠습니다."),
             ("변재민", "섭외는 제가 출시 전까지 끝낼게요."),
             ("권다솜", "5일 출시는 못 해요, 12일로 한 주 밀게요.")]
    assert _due(lines, 2, "변재민", date(2026, 10, 20))[1] == date(2026, 11, 12)


def test_ko_of_two_openings_the_deadline_comes_before_the_first():
    lines = [("강태윤", "71병동 오픈은 6월 29일 월요일로 하겠습니다."),
             ("강태윤", "83병동 오픈은 7월 20일 월요일로 공지 내겠습니다."),
             ("배지훈", "여분 스캐너랑 배터리는 제가 오픈 전날까지 챙겨 놓을게요.")]
    said, due = _due(lines, 3, "배지훈", date(2026, 6, 16))
    assert said.endswith("오픈 전날까지") and due == date(2026, 6, 28)


def test_ko_offset_said_in_words():
    lines = [("류지안", "점검은 7월 9일 새벽에 하겠습니다."),
             ("남도현", "공지는 제가 점검 이틀 전에 커뮤니티에 올릴게요.")]
    assert _due(lines, 2, "남도현", date(2026, 6, 2))[1] == date(2026, 7, 7)


def test_ko_a_date_said_alone_completes_the_sentence_before():
    lines = [("윤다은", "모집 인원은 300명으로 공고 나갑니다. 다음 주 월요일에요."),
             ("한서연", "공고 나가기 전에 제가 날짜 바뀐 거 한 번 더 확인할게요.")]
    assert _due(lines, 2, "한서연", date(2026, 5, 13))[1] == date(2026, 5, 18)


def test_ko_today_closing_the_meeting_dates_no_event_said_before():
    """"오늘은 여기까지 하죠" after a line naming the check: today is the meeting itself, so the
    check keeps the date it was given (it used to become today, and the item due yesterday)."""
    lines = [("최민호", "보안 점검은 7월 29일 수요일이에요."),
             ("이수민", "그럼 저는 점검 전날까지 체크리스트 정리해 둘게요."),
             ("김지현", "모의해킹은 고객사 보안 점검이랑 범위가 겹쳐서요."),
             ("김지현", "네, 그럼 오늘은 여기까지 하죠.")]
    assert _due(lines, 2, "이수민", date(2026, 5, 18))[1] == date(2026, 7, 28)


def test_ko_event_never_dated_gives_no_due_date():
    lines = [("양미경", "교육 자료는 금요일에 받았어요."),
             ("양미경", "대상자 명단은 저희 운영팀에서 교육 전날까지 뽑아 드리겠습니다.")]
    said, due = _due(lines, 2, "양미경", date(2026, 6, 23))
    assert said.endswith("교육 전날까지") and due is None  # the words stay, with no date


def test_ko_a_reply_repeats_the_weekday_just_said():
    lines = [("최병훈", "공장 실사는 윤재석 님이 다음 주 목요일에 다녀오세요."),
             ("윤재석", "네, 목요일로 잡겠습니다.")]
    assert _due(lines, 2, "윤재석", date(2026, 6, 2))[1] == date(2026, 6, 11)


def test_ko_each_event_of_a_sentence_keeps_its_own_date():
    lines = [("권다솜", "킥오프는 다음 주 월요일이고, 리허설은 금요일에 해요."),
             ("하유진", "자료는 제가 킥오프 전날까지 보낼게요.")]
    assert _due(lines, 2, "하유진", date(2026, 9, 8))[1] == date(2026, 9, 13)


def test_ko_a_word_ending_in_nael_is_not_tomorrow():
    assert resolve_date_expressions("섭외 끝낼게요", date(2026, 9, 8)) == []
    assert [m.date for m in resolve_date_expressions("낼 보낼게요", date(2026, 9, 8))] == [date(2026, 9, 9)]


def test_ko_that_event_not_in_the_table_takes_the_date_just_said():
    """Kept from before (it passed then too): "그 회의" points back at what was just said."""
    lines = [("김지현", "다음 주 화요일 오후에 벤더랑 미팅 있어요."),
             ("박서준", "네, 그 회의 전까지 제가 자료 정리해 둘게요.")]
    assert _due(lines, 2, "박서준", date(2026, 6, 2))[1] == date(2026, 6, 9)


# --- English -------------------------------------------------------------------------------


def test_en_event_dated_later_and_the_first_of_two():
    lines = [("Linh Nguyen", "I'll meet with the merchants association before the first open house."),
             ("Evelyn Marsh", "The open houses will be October twentieth and October twenty-ninth.")]
    assert _due(lines, 1, "Linh Nguyen", date(2026, 10, 6))[1] == date(2026, 10, 20)


def test_en_offset_before_an_event_named_just_before():
    lines = [("Grant Sokolov", "Northgate has us in the chamber on the twenty-eighth for the pre-scan."),
             ("Grant Sokolov", "I want to bench-scan the boards before we go in the chamber."),
             ("Grant Sokolov", "And I'll ship two boards to Northgate three days before, so the Friday.")]
    assert _due(lines, 3, "Grant Sokolov", date(2026, 9, 8)) == ("three days before", date(2026, 9, 25))
    assert _due(lines, 2, "Grant Sokolov", date(2026, 9, 8))[1] == date(2026, 9, 28)


def test_en_changed_event_date_replaces_the_old_one():
    lines = [("Maya Chen", "The launch is on October 5th."),
             ("Raj Patel", "I'll finish the deck before the launch."),
             ("Maya Chen", "Actually the launch moves to October 12th.")]
    assert _due(lines, 2, "Raj Patel", date(2026, 9, 28))[1] == date(2026, 10, 12)


def test_en_event_never_dated_gives_no_due_date():
    lines = [("Maya Chen", "We discussed the hearing at length. The budget is due on the 14th."),
             ("Raj Patel", "I'll brief the mayor before the hearing.")]
    assert _due(lines, 2, "Raj Patel", date(2026, 10, 6)) == ("before the hearing", None)


# --- which expression of the item's line is the due ---------------------------------------


def test_the_items_own_line_outranks_its_support_line():
    # A recurring schedule said on the item's own line is its due (none), not the date a
    # neighbouring support line mentions.
    lines = [("Ana Ruiz", "The draft goes to the board on the 20th."),
             ("Ben Okoro", "Can we meet every Monday until then? I'll host it.")]
    said, due = _due(lines, 2, "Ben Okoro", date(2026, 3, 2))
    assert said.lower().startswith("every monday") and due is None


def test_ko_next_weeks_meeting_is_an_event_not_a_week_deadline():
    # "다음 주 회의 때" names a meeting, not the week: the due is the day said for the work.
    lines = [("정다인", "네, 다음 주 회의 때 초안 보여 드리고 27일에 제출하겠습니다.")]
    assert _due(lines, 1, "정다인", date(2026, 3, 10)) == ("27일에", date(2026, 3, 27))


def _due_with_support(lines: list[tuple[str, str]], line: int, owner: str, support: int, meeting: date):
    """The due of an item on `line` for `owner` whose model also marked `support` as its line."""
    import numpy as np

    from mithub.record.action_features import Candidate, read_turn
    from mithub.record.action_model import ScoredPair
    from mithub.record.actions import _item, _to_action_item
    from mithub.record.due_dates import MeetingDates

    turns = _turns(*lines)
    names = [t.speaker_name for t in turns]
    readings = [read_turn(t, names, meeting) for t in turns]
    item = _item(ScoredPair(line, owner, "speaker", 0.9, False), turns, readings,
                 [Candidate(support, owner, "prev")], np.array([0.9]), 2, 0.2)
    return _to_action_item("m", item, turns, MeetingDates(turns, meeting), False).due_date


def test_ko_a_third_persons_own_promise_beside_the_item_is_not_its_due():
    lines = [("한지우", "가격표는 다은 님이 맡아 주세요."),
             ("오다은", "네, 알겠습니다."),
             ("서태오", "포스터는 제가 다음 주 화요일까지 만들어 올게요.")]
    assert _due_with_support(lines, 1, "오다은", 2, date(2026, 4, 1)) is None


def test_en_a_third_persons_offer_beside_the_item_is_not_its_due():
    lines = [("Ana Ruiz", "Ben, can you update the price sheet?"),
             ("Ben Okoro", "Sure, I'll do it."),
             ("Cy Lam", "I can get the photos by the 20th.")]
    assert _due_with_support(lines, 1, "Ben Okoro", 2, date(2026, 4, 1)) is None


def test_a_request_on_a_support_line_still_gives_the_due():
    # A request with -겠- ("해 주시겠어요?") asks; it is no promise of the asker's own.
    lines = [("오다은", "네, 제가 할게요."),
             ("한지우", "다은 님, 가격표 정리 좀 해 주시겠어요? 이번 주 금요일까지요.")]
    assert _due_with_support(lines, 0, "오다은", 1, date(2026, 4, 1)) == date(2026, 4, 3)


def test_a_line_handing_work_to_someone_else_is_not_where_the_items_due_is_said():
    lines = [("오다은", "가격표는 제가 정리할게요."),
             ("한지우", "태오 님은 포스터를 금요일까지 만들어 주세요."),
             ("오다은", "네, 그럼 저는 그렇게 할게요."),
             ("서태오", "네.")]
    assert _due_with_support(lines, 0, "오다은", 2, date(2026, 4, 1)) is None


# --- the expressions themselves ------------------------------------------------------------


@pytest.mark.parametrize(("text", "offset"), [
    ("공지는 점검 이틀 전에 올릴게요", -2), ("출시 일주일 전까지 끝내요", -7),
    ("I'll ship them three days before, so the Friday.", -3),
])
def test_offsets_before_an_event(text, offset):
    [event] = [m for m in resolve_date_expressions(text, date(2026, 6, 2)) if m.kind == "event"]
    assert event.offset_days == offset


def test_a_weekday_said_with_a_day_outranks_the_month_hint():
    [m] = resolve_date_expressions("개편안은 24일 금요일에 넘깁니다", date(2026, 7, 8), month_hint=8)
    assert m.date == date(2026, 7, 24)


# --- the series' earlier meetings ------------------------------------------------------------


def _earlier_item(earlier_lines, lines, meeting: date, previous: date):
    from mithub.record.actions import extract_action_items

    items = extract_action_items("m2", _turns(*lines), meeting, earlier=[(previous, _turns(*earlier_lines))])
    [item] = [a for a in items if a.owner == "하유진"]
    return item


def test_an_event_dated_in_the_series_earlier_meeting():
    item = _earlier_item([("주형석", "좋아요. 출시는 11월 5일 목요일로 갑니다.")],
                         [("권다솜", "소스 발주 얘기 하죠."), ("하유진", "발주는 제가 출시 2주 전까지 넣을게요.")],
                         date(2026, 10, 20), date(2026, 10, 13))
    assert item.due_date == date(2026, 10, 22)


def test_this_meeting_changes_the_date_an_earlier_meeting_gave():
    item = _earlier_item([("주형석", "좋아요. 출시는 11월 5일 목요일로 갑니다.")],
                         [("권다솜", "5일 출시는 못 해요, 12일로 한 주 밀게요."),
                          ("하유진", "발주는 제가 출시 2주 전까지 넣을게요.")],
                         date(2026, 10, 20), date(2026, 10, 13))
    assert item.due_date == date(2026, 10, 29)


# --- event dates read by grammar (the project's own series, session 13) ----------------------


def test_en_a_weekday_before_a_full_date_is_part_of_it():
    [said] = resolve_date_expressions("The tasting is booked for Saturday November seventh.", date(2026, 10, 20))
    assert said.text == "Saturday November seventh" and said.date == date(2026, 11, 7)


def test_ko_a_date_word_written_into_the_event_noun():
    lines = [("주형석", "신규 프로그램 시행일은 3월 9일로 하겠습니다."),
             ("하유진", "안내문은 제가 시행 1주 전까지 돌릴게요.")]
    assert _due(lines, 2, "하유진", date(2026, 2, 16))[1] == date(2026, 3, 2)


def test_ko_an_event_set_off_by_a_comma_before_its_new_date():
    lines = [("주형석", "지난번에 4월 3일로 정했던 착공일, 4월 10일로 미룰게요."),
             ("하유진", "착공 신고 서류는 제가 착공 사흘 전까지 낼게요.")]
    assert _due(lines, 2, "하유진", date(2026, 3, 20))[1] == date(2026, 4, 7)


def test_en_a_date_said_by_the_copula_dates_the_event():
    lines = [("Ana Ruiz", "The site visit's the twelfth now."),
             ("Ben Cole", "I'll send the agenda before the site visit.")]
    assert _due(lines, 2, "Ben Cole", date(2026, 10, 1))[1] == date(2026, 10, 12)


def test_a_day_repeated_in_short_is_the_date_just_said_not_the_month_named_last():
    lines = [("Ana Ruiz", "The board meets on July 20th."),
             ("Ana Ruiz", "Our internal deadline is Friday the twelfth."),
             ("Ben Cole", "We file on the twelfth then."),
             ("Ben Cole", "I'll check the forms before we file.")]
    assert _due(lines, 4, "Ben Cole", date(2026, 6, 1))[1] == date(2026, 6, 12)


def test_en_an_answer_dates_the_event_the_question_asked_about():
    lines = [("Ana Ruiz", "When does the crane arrive?"),
             ("Ben Cole", "Thursday the eleventh."),
             ("Ben Cole", "I'll check the ground before the crane arrives.")]
    assert _due(lines, 3, "Ben Cole", date(2027, 3, 1))[1] == date(2027, 3, 11)


def test_ko_a_word_kiwi_splits_is_still_the_event():
    lines = [("주형석", "3층 슬래브 타설은 6월 19일 금요일로 하겠습니다."),
             ("하유진", "거푸집 점검은 타설 전날 오후에 제가 하겠습니다.")]
    assert _due(lines, 2, "하유진", date(2026, 6, 8))[1] == date(2026, 6, 18)


def test_ko_a_date_as_a_past_predicate_is_the_former_date():
    lines = [("주형석", "처음 공정표로는 16일 타설이었잖아요."),
             ("주형석", "3층 슬래브 타설은 6월 19일로 하겠습니다."),
             ("하유진", "거푸집 점검은 제가 타설 전날까지 할게요.")]
    assert _due(lines, 3, "하유진", date(2026, 6, 8))[1] == date(2026, 6, 18)


def test_ko_a_date_as_the_predicate_dates_the_event():
    lines = [("주형석", "타설이 23일이니까 철근은 그 뒤에 들이죠."),
             ("하유진", "펌프카는 제가 타설 이틀 전까지 잡을게요.")]
    assert _due(lines, 2, "하유진", date(2026, 6, 15))[1] == date(2026, 6, 21)


def test_this_meetings_fuller_phrase_outranks_the_earlier_meetings_date():
    item = _earlier_item([("주형석", "네, 그럼 프로그램 개시는 1월 4일로 의결합니다.")],
                         [("주형석", "건강식단 프로그램 개시일은 한 주 미루어서 1월 11일로 하겠습니다."),
                          ("하유진", "안내문은 제가 개시 2주 전까지 배부할게요.")],
                         date(2026, 12, 21), date(2026, 12, 14))
    assert item.due_date == date(2026, 12, 28)


def test_a_word_marked_as_topic_or_subject_is_no_part_of_the_event():
    lines = [("주형석", "출간은 8월 5일로 하겠습니다."),
             ("하유진", "네. 그럼 표지 파일은 출간 삼 주 전까지 제가 넘길게요.")]
    assert _due(lines, 2, "하유진", date(2026, 6, 1)) == ("출간 삼 주 전까지", date(2026, 7, 15))
