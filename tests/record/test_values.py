"""Value normalisation, table-driven, Korean and English."""

from datetime import date

import pytest

from mithub.record.pair_model import split_values
from mithub.record.values import extract_values, names_match, values_agree

MEETING = date(2026, 5, 13)


def only(text: str, **kwargs):
    values = extract_values(text, reference=MEETING, **kwargs)
    assert len(values) == 1, values
    return values[0]


@pytest.mark.parametrize(
    ("text", "kind", "number"),
    [
        ("총예산은 2억 4천만 원으로 확정", "amount", 240_000_000),
        ("분기 총액은 이억 사천 그대로", "number", 240_000_000),
        ("2억 4천이면 설득할 수 있어요", "number", 240_000_000),
        ("GPU는 월 천오백 안에서", "number", 1_500),
        ("GPU는 월 1,800만 원으로", "amount", 18_000_000),
        ("예산은 3천만 원으로", "amount", 30_000_000),
        ("커버리지 60%로", "percent", 60),
        ("커버리지 육십 퍼센트로", "percent", 60),
        ("GPU 4대 서버", "count", 4),
        ("세 명 더 뽑죠", "count", 3),
        ("열두 명까지", "count", 12),
        ("세 자리로 올리시면 돼요", "count", 3),
        ("2년 보관", "duration", 730.5),
        ("90일 보관하고", "duration", 90),
        ("키 로테이션은 6개월마다", "duration", 182.625),
        ("밤 10시에 끄고", "time", 22 * 60),
        ("a cap of eighty K", "amount", 80_000),
        ("seventy-five K a year", "amount", 75_000),
        ("an annual cap of eighty-four thousand", "number", 84_000),
        ("the cap is $80,000", "amount", 80_000),
        ("twenty-five hundred new subscriptions", "count", 2_500),
        ("three engineers on call", "count", 3),
        ("a two-year term", "duration", 730.5),
        ("we need two years", "duration", 730.5),
        ("Sixty percent social", "percent", 60),
        ("ninety-nine point nine five", "number", 99.95),
        ("a budget of $1.2 million", "amount", 1_200_000),
        ("we need 3 more designers", "count", 3),
        ("by 5:30 pm", "time", 17 * 60 + 30),
        ("2.4억으로", "number", 240_000_000),
        ("좌석은 120석으로", "count", 120),
        ("the cap is a hundred thousand", "number", 100_000),  # the article counts one
        ("a hundred and ten K", "amount", 110_000),
        ("a million dollars for the fit-out", "amount", 1_000_000),
        ("half a million dollars", "amount", 500_000),
        ("a hundred and twenty", "number", 120),
        ("a two fifty crawler", "number", 250),  # the hundreds left unsaid
        ("it's one sixty now", "number", 160),
        ("back in nineteen ninety-nine", "number", 1999),
        ("one point five million dollars", "amount", 1_500_000),
        ("two and a half million dollars", "amount", 2_500_000),
        ("two and a half weeks", "duration", 17.5),
        ("twenty five", "number", 25),
        ("three hundred fifty", "number", 350),
        ("the code is four nine eight oh", "number", 4980),  # said digit by digit
        ("nine nine nine dollars", "amount", 999),
        ("room three oh two", "number", 302),
        ("the flight lands at nineteen oh five", "number", 1905),  # "oh" after a number from ten to 99
        ("it opened in twenty oh one", "number", 2001),
        ("the art line at forty-two five", "number", 42.5),  # a digit after a compound is its decimal
        ("we have ninety-nine nine in the contract", "number", 99.9),
        ("a hundred fifty three nine over the term", "number", 153.9),
        ("twenty - five hundred hertz", "number", 2500),  # a transcript's spaced hyphen
    ],
)
def test_numbers_amounts_counts_durations(text: str, kind: str, number: float) -> None:
    value = only(text)
    assert value.kind == kind
    assert value.number == pytest.approx(number)


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("2억 4천만 원", "이억 사천", True),
        ("월 1,800만 원", "월 천오백", False),
        ("월 1,800만 원", "1,800 정도", True),
        ("60%", "육십 퍼센트", True),
        ("eighty K", "$80,000", True),
        ("seventy-five K", "eighty-four thousand", False),
        ("1년", "12개월", True),
        ("6개월", "3개월", False),
        ("three engineers", "3 engineers", True),
        ("밤 8시", "8시", True),
        ("밤 10시", "밤 8시", False),
    ],
)
def test_values_agree(a: str, b: str, same: bool) -> None:
    assert values_agree(only(a), only(b)) is same


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("베타는 7월 22일에", "지난주에 22일로 잡았던", True),
        ("서류 마감은 6월 12일로", "서류 마감은 다음 달 12일", True),
        ("July fifteenth", "August third", False),
        ("we launch June eighth", "we're still live on the eighth", True),
        ("6월 1일", "6월 5일", False),
    ],
)
def test_dates_as_values(a: str, b: str, same: bool) -> None:
    first = extract_values(a, reference=date(2026, 5, 7))[-1]
    second = extract_values(b, reference=MEETING)[-1]
    assert first.kind == second.kind == "date"
    assert values_agree(first, second) is same


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [("Relay", "Relaymark", True), ("Pinnacle", "Relaymark", False), ("수진", "이수진", True),
     ("SLA", "service level agreement", True), ("Tallgrass", "Tall", True), ("Ra", "Relaymark", False)],
)
def test_names_by_short_name(a: str, b: str, same: bool) -> None:
    assert names_match(a, b) is same


def test_persons_and_things() -> None:
    values = extract_values("Good news, Relay's still the pick and Marcus owns it.", names=["Marcus Oyelaran"])
    kinds = {(v.kind, v.unit) for v in values}
    assert ("name", "relay") in kinds
    assert ("person", "Marcus Oyelaran") in kinds


@pytest.mark.parametrize("text", ["천천히 하죠", "만약에 백엔드가", "일단 이번 주", "3분기 예산"])
def test_words_that_start_with_numerals_are_not_numbers(text: str) -> None:
    assert [v for v in extract_values(text) if v.kind != "date"] == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("날짜는 오월 십삼 일 수요일 출발로 하죠", "오월 십삼 일 수요일"),
        ("We land on the twelfth, a Saturday.", "the twelfth, a Saturday"),
        ("Go-live is June twelfth, Friday.", "June twelfth, Friday"),
    ],
)
def test_a_weekday_after_its_date_is_the_same_value(text: str, said: str) -> None:
    value = only(text)
    assert value.kind == "date" and value.text.rstrip(" 출발로.") == said


def test_a_weekday_that_is_not_the_dates_own_stays_a_value_of_its_own() -> None:
    # 2026-06-12 is a Friday: "Monday" here is another day
    values = extract_values("June 12th Monday", reference=MEETING)
    assert [v.text for v in values] == ["June 12th", "Monday"]


@pytest.mark.parametrize("text", ["I had a coffee", "an hour or so", "a lot of hundreds"])
def test_an_article_without_a_scale_word_is_no_number(text: str) -> None:
    assert extract_values(text) == []


def test_and_joins_number_words_only_after_a_hundred_or_a_scale() -> None:
    assert [v.number for v in extract_values("two and three")] == [2, 3]
    assert [v.number for v in extract_values("two thousand and five hundred")] == [2500]


@pytest.mark.parametrize(("text", "said"), [
    ("seven eight options", ["seven", "eight options"]),  # two digits a step apart: "seven or eight"
    ("six seven weeks", ["six", "seven weeks"]),
])
def test_two_digits_a_step_apart_are_a_loose_range(text: str, said: list[str]) -> None:
    assert [v.text for v in extract_values(text)] == said


@pytest.mark.parametrize(("text", "kind", "said", "number"), [
    ("배송은 3,4일 걸려요.", "duration", "3,4일", 4),  # a comma before one digit groups no thousands
    ("2,3명 더 필요해요", "count", "2,3명", 3),
    ("2~3명 더 필요해요", "count", "2~3명", 3),
    ("2-3명이면 돼요", "count", "2-3명", 3),
    ("150-200명 규모로", "count", "150-200명", 200),
    ("It takes 3-4 weeks", "duration", "3-4 weeks", 28),
    ("two or three days", "duration", "two or three days", 3),
    ("하루에 한두 번 정도 있었어요", "count", "한두 번", 2),  # two native numerals said as one word
    ("길어야 두세 달.", "duration", "두세 달", 3 * 30.4375),
    ("서너 명 더 필요해요", "count", "서너 명", 4),
    ("four to six weeks", "duration", "four to six weeks", 42),
])
def test_a_range_is_one_value_and_an_estimate(text: str, kind: str, said: str, number: float) -> None:
    value = only(text)
    assert (value.kind, value.text, value.approx) == (kind, said, True)
    assert value.number == pytest.approx(number)
    assert split_values(text, [value]) == ([], [])  # an estimate is no settled value, nor an old one


@pytest.mark.parametrize(("text", "numbers"), [
    ("예산은 3,400만 원입니다.", [34_000_000]),  # three digits after the comma: thousands
    ("1,000,000원", [1_000_000]),
    ("we cut it from four to six weeks", [4, 42]),  # "from … to" moves a value: no range
    ("우리 팀 2명, 저쪽 3명", [2, 3]),  # two values with their units: no range
    ("시니어 둘에 주니어 하나, 세 자리로", [2, 1, 3]),
    ("2026, 3명", [2026, 3]),  # a range rises
    ("한도는 그대로 두세요", []),  # a verb, not a range
    ("전화번호 010-1234-5678로 연락 주세요", [10]),  # a hyphenated digit string is one token  # Korean numerals said in words: one, then three
])
def test_what_is_not_a_range(text: str, numbers: list[float]) -> None:
    values = extract_values(text)
    assert [v.number for v in values] == numbers
    assert not any(v.approx for v in values)


@pytest.mark.parametrize(("text", "numbers"), [
    ("We are at twenty oh and then", [20]),  # no digit after the "oh": no year or time
    ("it was twenty, oh well", [20]),
    ("nineteen oh five", [1905]),
    ("room three oh two", [302]),
])
def test_oh_is_a_zero_only_before_a_digit(text: str, numbers: list[float]) -> None:
    assert [v.number for v in extract_values(text)] == numbers


def test_days_it_takes_are_a_duration() -> None:
    assert [(v.kind, v.number) for v in extract_values("4일 걸려요")] == [("duration", 4)]


@pytest.mark.parametrize(("text", "said", "number"), [
    ("주 5일 근무로 하겠습니다.", "주 5일", 5),
    ("주5일제로 갑니다", "주5일", 5),
    ("경로식당은 월요일부터 금요일까지 주 오 일 운영을 원칙으로 합니다.", "주 오 일", 5),
    ("경로식당은 월, 화, 목, 금 주 사 일로 운영하게 됩니다.", "주 사 일", 4),  # 금 is Friday in the list
])
def test_days_a_week_are_a_rate_not_a_day_of_the_month(text: str, said: str, number: float) -> None:
    values = extract_values(text, reference=date(2026, 6, 1))
    assert [(v.kind, v.text, v.number) for v in values if v.unit == "일/주"] == [("count", said, number)]
    assert not any(v.kind == "date" and v.text.startswith(("5일", "금 주")) for v in values)


def test_five_days_a_week_against_four_is_a_new_value_of_the_same_rate() -> None:
    (five,) = extract_values("주 오 일 운영을 원칙으로 합니다.")
    (four,) = extract_values("주 사 일로 운영하게 됩니다.")
    (people,) = extract_values("봉사자 열두 명을 배치하겠습니다.")
    assert values_agree(five, extract_values("주 5일 근무")[0]) and not values_agree(five, four)
    assert not values_agree(five, people)


@pytest.mark.parametrize("text", ["이번 주 5일에 오픈합니다", "금주 5일에 오픈", "매주 5일에 정산"])
def test_a_week_named_before_its_day_is_no_rate(text: str) -> None:
    assert not [v for v in extract_values(text, reference=date(2026, 6, 1)) if v.unit == "일/주"]


@pytest.mark.parametrize("text", ["전체 구조는 지난주에 얘기한 대로고요", "지급하는 구조로 하면", "수강 희망 조사 결과 나왔죠?",
                                  "이원화 하죠", "삼원색으로 가죠", "팀의 일원으로", "사원들이 먼저", "백 조금 넘게 왔어요"])
def test_a_noun_made_of_numeral_syllables_is_no_number(text: str) -> None:
    # "구조" would read as 9 trillion and "조사" as a trillion and four: kiwi reads each as a noun
    assert [v for v in extract_values(text) if v.kind != "date"] == []


@pytest.mark.parametrize(
    ("text", "kind", "said", "number"),
    [
        ("한결이 칠 주, 서진이 팔 주입니다", "duration", "칠 주", 49),
        ("출간 이 주 전까지 초안 드릴게요", "duration", "이 주", 14),
        ("로스 오 프로 보면", "percent", "오 프로", 5),
        ("목표 전환율은 삼 점 오 프로 그대로", "percent", "삼 점 오 프로", 3.5),
        ("가용률은 구십구 점 오 퍼센트로 합시다", "percent", "구십구 점 오 퍼센트", 99.5),
        ("5월분은 팔십 오 프로로 먼저 나가고", "percent", "팔십 오 프로", 85),
        ("삼십 일 동안 보관하죠", "duration", "삼십 일", 30),
        ("백 팔십 오 명으로 하죠", "count", "백 팔십 오 명", 185),
        ("삼천 오백 원으로 올리죠", "amount", "삼천 오백 원", 3500),
        ("천 이백 만 원이면 됩니다", "amount", "천 이백 만 원", 12_000_000),
        ("이백 만 원으로 하죠", "amount", "이백 만 원", 2_000_000),
        ("이백 만원으로 하죠", "amount", "이백 만원", 2_000_000),
        ("이백만원으로 하죠", "amount", "이백만원", 2_000_000),
        ("삼십명으로 하죠", "count", "삼십명", 30),
        ("오백개 주문하죠", "count", "오백개", 500),
    ],
)
def test_numbers_said_aloud_one_syllable_at_a_time(text: str, kind: str, said: str, number: float) -> None:
    value = extract_values(text, reference=MEETING)[0]
    assert (value.kind, value.text.strip(), value.number) == (kind, said, pytest.approx(number))


def test_a_smaller_group_said_apart_joins_its_number_and_a_larger_one_does_not() -> None:
    assert [v.number for v in extract_values("오천 삼천 봤어요", reference=MEETING)] == [5000, 3000]
    # "이천 십구 년식" is one year (2019), not 2000 and nineteen years
    assert [v.number for v in extract_values("이천 십구 년식으로 받기로 했습니다", reference=MEETING)
            if v.number in (2000, 19 * 365, 19)] == []


@pytest.mark.parametrize("text", ["이 주 안에 끝내죠", "이 사람이 맡죠", "삼 점 오면 할 만해요?"])
def test_a_lone_numeral_syllable_needs_a_counter_and_kiwis_numeral_reading(text: str) -> None:
    # "이 주" is "this week" here (a determiner); a bare "삼" with no counter says nothing to compare
    assert extract_values(text, reference=MEETING) == []


@pytest.mark.parametrize(("text", "minutes"), [
    ("매일 아침 여덟 시 반에", 510), ("오후 세 시 반으로 하죠", 930), ("오후 세 시로 하죠", 900),
    ("작년엔 저녁 일곱 시 반이었는데", 1170), ("점심때 오후 12시 반이랑", 750), ("오후 7시 반대 의견", 1140),
])
def test_half_past_an_hour_in_digits_or_native_numerals(text: str, minutes: int) -> None:
    value = only(text)
    assert (value.kind, value.number) == ("time", minutes)
