"""Due-date resolution against a meeting date (rules of the decisions benchmark README)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

import pytest

from mithub.clock import local_date
from mithub.record.dates import resolve_date_expressions

MON = date(2026, 5, 4)  # a Monday
WED = date(2026, 5, 13)
THU = date(2026, 5, 14)

# (sentence, meeting date, expression as said, resolved date or None, kind)
CASES = [
    ("네, 이번 주 안에 구매 요청 올릴게요.", MON, "이번 주 안에", date(2026, 5, 8), "week"),
    ("다음 주까지 2주 치 중단 기록 뽑아 올게요.", MON, "다음 주까지", date(2026, 5, 15), "week"),
    ("다음 주 중에 초안 공유드릴게요.", THU, "다음 주 중에", date(2026, 5, 22), "week"),
    ("금액은 다음 주에 말씀드릴게요.", THU, "다음 주에", date(2026, 5, 22), "week"),
    ("서준 님, 다음 주 금요일까지 정리해 주세요.", MON, "다음 주 금요일까지", date(2026, 5, 15), "weekday"),
    ("이번 주 금요일까지 비교표 드리겠습니다.", WED, "이번 주 금요일까지", date(2026, 5, 15), "weekday"),
    ("기술 항목은 다음 주 화요일까지 코멘트 달아 둘게요.", WED, "다음 주 화요일까지", date(2026, 5, 19), "weekday"),
    ("네, 목요일까지 정리할게요.", THU, "목요일까지", date(2026, 5, 21), "weekday"),
    ("공고 나갑니다. 다음 주 월요일에요.", WED, "다음 주 월요일에요", date(2026, 5, 18), "weekday"),
    ("22일 금요일까지는 하겠습니다.", date(2026, 5, 11), "22일 금요일까지는", date(2026, 5, 22), "day"),
    ("5월 29일 금요일까지 배포하겠습니다.", date(2026, 5, 8), "5월 29일 금요일까지", date(2026, 5, 29), "date"),
    ("서준 님은 7월 5일까지 준비해 주시고요.", MON, "7월 5일까지", date(2026, 7, 5), "date"),
    ("서류 마감은 다음 달 12일, 그대로 갑니다.", THU, "다음 달 12일", date(2026, 6, 12), "date"),
    ("6월 첫 주에 파일럿 돌려 보죠.", date(2026, 5, 11), "6월 첫 주에", date(2026, 6, 5), "week"),
    ("외부 모의해킹은 8월 둘째 주에 진행하기로", MON, "8월 둘째 주에", date(2026, 8, 14), "week"),
    ("네, 내일 오전에 올라가고요.", THU, "내일 오전에", date(2026, 5, 15), "relative_day"),
    ("모레까지 보내 드릴게요.", MON, "모레까지", date(2026, 5, 6), "relative_day"),
    ("정리된 건 제가 오후에 메일로 돌릴게요.", MON, "오후에", MON, "relative_day"),
    ("제가 오늘 안에 전사에 공유할게요.", WED, "오늘 안에", WED, "relative_day"),
    ("월말까지 정산 끝내죠.", MON, "월말까지", date(2026, 5, 31), "month_end"),
    ("매주 월요일 오전에 지난주 치 정리해서 공유드릴게요.", MON, "매주 월요일 오전에", None, "recurring"),
    ("이번 주부터 GPU 항목을 따로 빼서 보여 드릴게요.", MON, "이번 주부터", None, "recurring"),
    ("입고되면 3일 안에 설치할게요.", MON, "3일 안에", None, "duration"),
    ("다음 회의까지 측정해서 가져오겠습니다.", MON, "다음 회의까지", None, "event"),
    ("다음 주 회의 때 보여 드릴게요.", MON, "다음 주 회의 때", None, "event"),
    ("I'll have numbers by next week's meeting.", MON, "by next week's meeting", None, "event"),
    ("공고 나가기 전에 날짜 확인해 주세요.", WED, "공고 나가기 전에", None, "event"),
    ("Raj, can you update the board by end of day tomorrow?", WED, "end of day tomorrow", THU, "relative_day"),
    ("I'll update the budget tracker tonight.", WED, "tonight", WED, "relative_day"),
    ("Okay, I'll tell them today.", date(2026, 5, 12), "today", date(2026, 5, 12), "relative_day"),
    ("Let's ship it next Wednesday.", MON, "next Wednesday", date(2026, 5, 13), "weekday"),
    ("Raj ships it by Wednesday after the load test.", MON, "Wednesday", date(2026, 5, 6), "weekday"),
    ("post a go or no-go by Monday 5 pm", WED, "Monday 5 pm", date(2026, 5, 18), "weekday"),
    ("Can you come back with a proposal next week?", date(2026, 5, 6), "next week", date(2026, 5, 15), "week"),
    ("Draft by May twenty-ninth?", WED, "May twenty-ninth", date(2026, 5, 29), "date"),
    ("Ship on June 12.", MON, "June 12", date(2026, 6, 12), "date"),
    ("I'm aiming to have it done by the twenty-second.", date(2026, 5, 12), "the twenty-second", date(2026, 5, 22), "day"),
    ("Send it by the 5th.", date(2026, 5, 12), "the 5th", date(2026, 6, 5), "day"),
    ("We close the books at the end of the month.", MON, "the end of the month", date(2026, 5, 31), "month_end"),
    ("Weekly vendor sync, Thursdays at two, until we're live.", MON, "Thursdays at two", None, "recurring"),
    ("Let's do it in two weeks.", MON, "in two weeks", None, "duration"),
    ("Please check it before it goes out.", MON, "before it goes out", None, "event"),
    # A span counted in words is a duration like "3일 안에", not the meeting day it starts from.
    ("샘플은 일주일 안에 받아 보겠습니다.", MON, "일주일 안에", None, "duration"),
    ("이틀 뒤에 결과 공유드릴게요.", MON, "이틀 뒤에", None, "duration"),
    ("I'll have the survey back two weeks from today.", MON, "two weeks from today", None, "duration"),
    ("Can we close it at month-end?", MON, "month-end", date(2026, 5, 31), "month_end"),
    # A month said with "within" is its last day, as "5월 안에" and "월말" are.
    ("이번 달 안으로 마무리하겠습니다.", MON, "이번 달 안으로", date(2026, 5, 31), "month_end"),
    ("이달 중에 보내 드릴게요.", MON, "이달 중에", date(2026, 5, 31), "month_end"),
    ("다음 달 중으로 정리하죠.", MON, "다음 달 중으로", date(2026, 6, 30), "month_end"),
    ("12일 자정까지 올릴게요.", MON, "12일", date(2026, 5, 12), "day"),
    ("5/15(금)까지 드릴게요.", MON, "5/15(금)", date(2026, 5, 15), "date"),
    # The week after the weekday: the next week's Wednesday, not this week's.
    ("Can you send it by Wednesday next week?", MON, "Wednesday next week", date(2026, 5, 13), "weekday"),
    ("The review is Tuesday of next week.", MON, "Tuesday of next week", date(2026, 5, 12), "weekday"),
    ("I'll file it by 12 June.", MON, "12 June", date(2026, 6, 12), "date"),
    ("Let's have it by the 3rd of June.", MON, "the 3rd of June", date(2026, 6, 3), "date"),
]


@pytest.mark.parametrize(("text", "reference", "said", "resolved", "kind"), CASES)
def test_expression_resolves_against_the_meeting_date(text, reference, said, resolved, kind):
    mentions = {m.text: m for m in resolve_date_expressions(text, reference)}
    assert said in mentions, f"{said!r} not found in {list(mentions)}"
    mention = mentions[said]
    assert (mention.date, mention.kind) == (resolved, kind)
    assert text[mention.start:mention.end].strip() == said


@pytest.mark.parametrize("text", [
    "30일 지난 로그는 아카이브 티어로 내리죠.",   # a duration, not the 30th
    "음성 원본은 기본 30일, 고객사가 설정",
    "지금 주문 들어온 것만 처리하죠.",          # "금 주" inside words is not 이번 주
    "I'll take the first week, since I know it best.",  # "the first week" is no day of month
    "We'll hold the second open house in the library.",  # a noun after the ordinal: no day
    "They put us on the third floor for the pre-scan.",
    "It may be slower than we thought.",
    "The 3 may be enough, the 2 of us can cover it.",  # a count before the verb "may" is no date
])
def test_no_date_where_none_was_said(text):
    assert [m for m in resolve_date_expressions(text, MON) if m.date is not None] == []


@pytest.mark.parametrize(("text", "said", "day"), [
    ("Northgate has us in the chamber on the twenty-eighth for the pre-scan.", "the twenty-eighth", 28),
    ("We start on the eighth with the new crew.", "the eighth", 8),
    ("Send it by the 5th, because the board meets then.", "the 5th", 5),
])
def test_a_bare_ordinal_followed_by_a_function_word_is_a_day(text, said, day):
    days = [m for m in resolve_date_expressions(text, MON) if m.date is not None]
    assert [(m.text, m.date.day) for m in days] == [(said, day)]


def test_bare_day_takes_the_month_hint():
    [mention] = resolve_date_expressions("그래서 19일에는 제출해야 돼요.", date(2026, 5, 6), month_hint=8)
    assert mention.date == date(2026, 8, 19)
    assert mention.text == "19일에는"


def test_event_offsets_are_kept_for_the_caller():
    [before] = resolve_date_expressions("컷오버 2주 전까지 끝내죠", MON)
    [eve] = resolve_date_expressions("이사 전날 짐 싸죠", MON)
    assert (before.kind, before.anchor, before.offset_days) == ("event", "컷오버", -14)
    assert (eve.anchor, eve.offset_days) == ("이사", -1)
    assert before.date is None and eve.date is None


def test_a_weekday_said_with_a_day_picks_the_matching_month():
    # 3 June 2026 is a Wednesday: "3일 수요일" said on 20 May is June's.
    [mention] = resolve_date_expressions("3일 수요일까지 할게요.", date(2026, 5, 20))
    assert mention.date == date(2026, 6, 3)


@pytest.mark.parametrize(("text", "said", "resolved"), [
    ("6/12까지 보내 주세요.", "6/12", date(2026, 6, 12)),
    ("Send it by 6/12.", "6/12", date(2026, 6, 12)),
    ("Can we wrap it by EOW?", "EOW", date(2026, 5, 8)),
    ("2주 후에 다시 보죠.", "2주 후에", None),
])
def test_short_forms(text, said, resolved):
    [mention] = resolve_date_expressions(text, MON)
    assert (mention.text, mention.date) == (said, resolved)


def test_fractions_are_no_dates():
    assert resolve_date_expressions("We are at 3/4 of the budget, split 1/2 and 1/2.", MON) == []


def test_a_datetime_is_refused_with_what_to_pass_instead():
    from datetime import datetime, timezone

    from mithub.errors import InputError

    with pytest.raises(InputError, match="local date"):
        resolve_date_expressions("내일까지", datetime(2026, 5, 3, 23, 0, tzinfo=timezone.utc))


@pytest.mark.parametrize(("text", "said", "resolved"), [
    ("말일까지 정산해 주세요.", "말일까지", date(2026, 5, 31)),
    ("분기 말까지 마무리하죠.", "분기 말까지", date(2026, 6, 30)),
    ("연말까지 이전 끝내겠습니다.", "연말까지", date(2026, 12, 31)),
    ("퇴근 전까지 보내 드릴게요.", "퇴근 전까지", MON),
    ("회의 끝나고 바로 공유할게요.", "회의 끝나고", MON),
    ("I'll send it by close of business.", "close of business", MON),
    ("We need it by the end of the quarter.", "the end of the quarter", date(2026, 6, 30)),
])
def test_period_ends_and_the_meeting_day(text, said, resolved):
    mentions = {m.text: m.date for m in resolve_date_expressions(text, MON)}
    assert mentions.get(said, "missing") == resolved, mentions


# A meeting's local date is not its UTC date near midnight: 08:30 in Seoul is the evening
# before in UTC, 22:30 in New York is the next day in UTC (issue 19 item 1).
EARLY_SEOUL, LATE_NEW_YORK = time(8, 30), time(22, 30)
ZONES = [pytest.param(EARLY_SEOUL, timezone(timedelta(hours=9)), -1, id="08:30+09:00"),
         pytest.param(LATE_NEW_YORK, timezone(timedelta(hours=-5)), +1, id="22:30-05:00")]


@pytest.mark.parametrize(("at", "zone", "utc_shift"), ZONES)
@pytest.mark.parametrize(("text", "reference", "said", "resolved", "kind"), CASES)
def test_each_expression_resolves_on_the_meeting_day_across_the_utc_day_boundary(
        at, zone, utc_shift, text, reference, said, resolved, kind):
    started = datetime.combine(reference, at, tzinfo=zone)
    stored = started.astimezone(timezone.utc)  # what the store keeps
    assert stored.date() == reference + timedelta(days=utc_shift)
    mentions = {m.text: m for m in resolve_date_expressions(text, local_date(stored, zone))}
    assert (mentions[said].date, mentions[said].kind) == (resolved, kind)


def test_the_issue_example_next_week_friday_from_a_seoul_monday_morning():
    started = datetime(2026, 5, 3, 23, 30, tzinfo=timezone.utc)  # 2026-05-04 08:30 in Seoul
    [seoul] = resolve_date_expressions("다음 주 금요일까지", local_date(started, "Asia/Seoul"))
    [utc] = resolve_date_expressions("다음 주 금요일까지", local_date(started, "UTC"))
    assert (seoul.date, utc.date) == (date(2026, 5, 15), date(2026, 5, 8))


@pytest.mark.parametrize(("text", "said", "resolved"), [
    ("견적은 지난 수요일에 보냈어요.", "지난 수요일에", date(2026, 5, 6)),
    ("지난주 금요일에 고객사랑 통화했죠.", "지난주 금요일에", date(2026, 5, 8)),
    ("저번 주 화요일에 말씀드렸잖아요.", "저번 주 화요일에", date(2026, 5, 5)),
    ("We shipped the fix last Friday.", "last Friday", date(2026, 5, 8)),
    ("지난 목요일에 보고드렸어요.", "지난 목요일에", date(2026, 5, 7)),
])
def test_a_weekday_told_of_the_past_is_the_one_before(text, said, resolved):
    """"지난 수요일", "지난주 금요일", "last Friday" said on Wednesday 13 May are days already past
    (they were read as the next Wednesday or Friday)."""
    [mention] = resolve_date_expressions(text, WED)
    assert (mention.text, mention.date, mention.kind) == (said, resolved, "weekday")


def test_a_past_week_alone_is_no_date():
    """"지난주에 7월 22일로 정했던 …" dates nothing but 7월 22일; "last week" dates nothing."""
    assert [m.text for m in resolve_date_expressions("지난주에 7월 22일로 정했던 베타는", WED)] == ["7월 22일로"]
    assert resolve_date_expressions("Last week we agreed on the vendor.", WED) == []


@pytest.mark.parametrize(("text", "said", "resolved"), [
    ("수요일인 20일까지 올릴게요.", "수요일인 20일까지", date(2026, 5, 20)),
    ("Send it by Wednesday the 20th.", "Wednesday the 20th", date(2026, 5, 20)),
    ("I'll have it by COB Friday.", "COB Friday", date(2026, 5, 15)),
    ("By close of business Thursday, please.", "close of business Thursday", date(2026, 5, 14)),
    ("Let's say a week from Friday.", "a week from Friday", date(2026, 5, 22)),
    ("익일까지 회신 드리겠습니다.", "익일까지", date(2026, 5, 14)),
    ("명일 오전까지 제출하겠습니다.", "명일 오전까지", date(2026, 5, 14)),
    ("오월 이십일까지 마감입니다.", "오월 이십일까지", date(2026, 5, 20)),
    ("이십오 일까지 보내 주세요.", "이십오 일까지", date(2026, 5, 25)),
    ("유월 십일일에 오픈합니다.", "유월 십일일에", date(2026, 6, 11)),
])
def test_a_weekday_beside_its_day_and_days_said_in_words(text, said, resolved):
    """A weekday said with its day number or an end-of-day word dates that day ("COB Friday"
    was today: the COB won); formal 익일/명일 are tomorrow; Sino-Korean day numbers are days."""
    dated = [m for m in resolve_date_expressions(text, WED) if m.date is not None]
    assert [(m.text, m.date) for m in dated] == [(said, resolved)]


@pytest.mark.parametrize("text", ["이십 일 동안 테스트합니다.", "삼일 안에 끝낼게요.", "일일 보고는 계속하죠."])
def test_a_span_or_a_daily_in_words_is_no_day(text):
    assert [m.date for m in resolve_date_expressions(text, WED) if m.date is not None] == []


def test_the_verb_nael_is_not_tomorrow():
    assert resolve_date_expressions("서류는 제가 낼게요.", date(2026, 3, 20)) == []
    [said] = resolve_date_expressions("낼까지 할게요.", date(2026, 3, 20))
    assert said.date == date(2026, 3, 21)
