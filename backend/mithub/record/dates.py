"""Date expressions in Korean and English meeting speech, resolved against the meeting's date.

`resolve_date_expressions(text, reference)` finds every expression ("다음 주 화요일까지",
"end of day tomorrow", "6월 첫 주", "Thursdays at two") and resolves it by the rules of the
decisions benchmark README: a week-only expression is the Friday of that week, 이번 주 X요일
is in the reference week and 다음 주 X요일 in the next, a bare weekday is the next such day
after the reference, a day number without a month takes the month from `month_hint` (the
last month the meeting named) or the reference. Recurring schedules, durations and
deadlines relative to an event keep their text with no date; an event-relative one carries
the event phrase (`anchor`) and its offset so the caller can date it once it knows when the
event is.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from typing import Literal

from pydantic import BaseModel

from mithub.errors import InputError

DateKind = Literal[
    "date", "day", "weekday", "relative_day", "week", "month_end", "recurring", "duration", "event",
]


# "오늘", "today": the meeting itself, not a value anyone settles nor the date of an event.
NOW_WORDS = frozenset({"오늘", "금일", "today", "tonight", "now"})


def names_now(text: str) -> bool:
    """A date said as "today" ("오늘은", "today"), with its particle."""
    return text.strip(" 은는이가에도") in NOW_WORDS


class DateMention(BaseModel):
    """One date expression as said; `date` is None when it names no single calendar day."""

    text: str
    start: int
    end: int
    date: date | None
    kind: DateKind
    anchor: str | None = None
    offset_days: int = 0


KO_WEEKDAYS = "월화수목금토일"
EN_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
EN_MONTHS = {
    name: index + 1
    for index, names in enumerate((
        ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",),
        ("june", "jun"), ("july", "jul"), ("august", "aug"), ("september", "sept", "sep"),
        ("october", "oct"), ("november", "nov"), ("december", "dec"),
    ))
    for name in names
}
_UNITS = ("", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_ORD_UNITS = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORD_TEENS = ("tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth",
              "seventeenth", "eighteenth", "nineteenth")


def _ordinal_words() -> dict[str, int]:
    words = {w: i for i, w in enumerate(_ORD_UNITS) if w}
    words.update({w: 10 + i for i, w in enumerate(_ORD_TEENS)})
    words.update({"twentieth": 20, "thirtieth": 30})
    for tens, base in (("twenty", 20), ("thirty", 30)):
        for i, unit in enumerate(_ORD_UNITS[1:10 if base == 20 else 2], start=1):
            for sep in ("-", " ", ""):
                words[f"{tens}{sep}{unit}"] = base + i
    return words


EN_ORDINAL_DAY = _ordinal_words()
EN_NUMBER_WORDS = {w: i for i, w in enumerate(_UNITS) if w} | {"ten": 10, "eleven": 11, "twelve": 12}
KO_WEEK_OF_MONTH = {"첫": 1, "첫째": 1, "두": 2, "둘째": 2, "세": 3, "셋째": 3, "네": 4, "넷째": 4, "마지막": -1}
_WEEK_SHIFT = {"이번": 0, "금": 0, "다음": 1, "담": 1, "차": 1, "다다음": 2, "지난": -1, "저번": -1,
               "this": 0, "next": 1, "last": -1}


def en_day_number(word: str) -> int | None:
    """"12", "12th", "twelfth", "twenty-second" -> the day number."""
    word = word.lower().strip()
    digits = re.match(r"\d{1,2}", word)
    if digits:
        return int(digits.group(0))
    return EN_ORDINAL_DAY.get(word)


# --- calendar arithmetic ------------------------------------------------------------------


def _monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def _friday_of_week(day: date) -> date:
    return _monday(day) + timedelta(days=4)


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _add_months(day: date, months: int) -> tuple[int, int]:
    index = day.year * 12 + day.month - 1 + months
    return index // 12, index % 12 + 1


def _year_for(reference: date, month: int) -> int:
    """A month far behind the reference month is next year's (a January deadline said in
    November)."""
    return reference.year + (1 if month < reference.month - 6 else 0)


def _next_weekday(reference: date, weekday: int) -> date:
    """The first such weekday strictly after the reference: "목요일까지" said on a Thursday
    means next week's."""
    return reference + timedelta(days=(weekday - reference.weekday() - 1) % 7 + 1)


def _safe_date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


def _day_only(reference: date, day: int, hint: int | None, weekday: int | None) -> date | None:
    """A day number with the month from the hint, else the reference month or the next one
    (a deadline is not in the past); a weekday said with it picks the month that fits."""
    months = [_add_months(reference.replace(day=1), k) for k in (0, 1)]
    if hint is not None:
        months = [(_year_for(reference, hint), hint)]
    options = [d for y, m in months if (d := _safe_date(y, m, day)) is not None]
    if weekday is not None:
        # The weekday said with it outranks the month hint: "24일 금요일" after "8월 28일" is July's.
        nearby = [d for y, m in months + [_add_months(reference.replace(day=1), k) for k in (0, 1)]
                  if (d := _safe_date(y, m, day)) is not None and d.weekday() == weekday]
        options = nearby or options
    elif hint is None:
        options = [d for d in options if d >= reference] or options
    return options[0] if options else None


def day_of_month(reference: date, day: int, month_hint: int | None, weekday: int | None = None) -> date | None:
    """A day number said without its month ("19일 착수", "on the twenty-eighth"), dated as
    `resolve_date_expressions` dates one."""
    return _day_only(reference, day, month_hint, weekday)


def _week_of_month(year: int, month: int, nth: int) -> date:
    """Friday of the nth week of a month; the first week holds the month's first working day
    (-1: the last week)."""
    if nth < 0:
        return _friday_of_week(_month_end(year, month))
    first = date(year, month, 1)
    while first.weekday() >= 5:
        first += timedelta(days=1)
    return _friday_of_week(first) + timedelta(weeks=nth - 1)


# --- resolvers: (match, reference, month hint) -> (date, kind) ----------------------------

_Resolved = tuple[date | None, DateKind]
_Resolver = Callable[[re.Match[str], date, int | None], _Resolved]


def _in_year(ref: date, month: int, day: int | None) -> date | None:
    """The month and day in the reference year, or the next when that is long past."""
    found = _safe_date(ref.year, month, day) if day else None
    if found is not None and (ref - found).days > 183:
        found = _safe_date(ref.year + 1, month, found.day)
    return found


def _month_day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    month = _month_number(m["mon"])
    return _in_year(ref, month, en_day_number(m["day"])), "date"


def _numeric_month_day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    lang = "en" if m["enmon"] else "ko"
    return _in_year(ref, int(m[f"{lang}mon"]), int(m[f"{lang}day"])), "date"


def _next_month_day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    year, month = _add_months(ref.replace(day=1), 1)
    return _safe_date(year, month, int(m["day"])), "date"


def _weekday_index(word: str) -> int:
    word = word.lower()
    return KO_WEEKDAYS.index(word) if word in KO_WEEKDAYS else EN_WEEKDAYS.index(word)


def _month_number(word: str) -> int:
    """"6", "June", "jun.", "유월" -> 6."""
    word = word.lower().rstrip(".")
    return int(word) if word.isdigit() else EN_MONTHS.get(word) or KO_MONTH_WORDS[word]


def ko_number(word: str) -> int | None:
    """A Sino-Korean numeral up to 99 ("이십오" -> 25, "십일" -> 11, "삼" -> 3)."""
    digits = {d: i for i, d in enumerate("영일이삼사오육칠팔구")}
    tens, _, units = word.rpartition("십")
    if "십" not in word:
        return digits.get(word) if len(word) == 1 else None
    if len(tens) > 1 or len(units) > 1 or (tens and tens not in digits) or (units and units not in digits):
        return None
    return (digits[tens] if tens else 1) * 10 + (digits[units] if units else 0)


def _day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    """A day number, with a weekday said beside it when there is one ("24일 금요일", "수요일인
    20일", "Wednesday the 20th")."""
    weekday = _weekday_index(m["wd"]) if m.groupdict().get("wd") else None
    day = en_day_number(m["day"])
    return (_day_only(ref, day, hint, weekday) if day else None), "day"


def _ko_word_day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    day = ko_number(m["kday"] or m["kday2"])
    if m["kmon"]:
        return (_in_year(ref, _month_number(m["kmon"]), day) if day else None), "date"
    return (_day_only(ref, day, hint, None) if day else None), "day"


def _weeks_from(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    """"a week from Friday": the weekday said, then that many weeks on."""
    count = m["n"].lower()
    weeks = 1 if count in ("a", "one") else int(count) if count.isdigit() else EN_NUMBER_WORDS.get(count, 1)
    return _next_weekday(ref, _weekday_index(m["wd"])) + timedelta(weeks=weeks), "weekday"


def _weekday(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    weekday = _weekday_index(m["wd"])
    which = (m.groupdict().get("which") or m.groupdict().get("weekafter") or "").lower()
    if m.groupdict().get("past") or which == "last":
        # "지난 수요일", "last Friday": the latest such day before the reference (told of the
        # past, never the next one); "지난주 금요일" is a week back (below).
        return ref - timedelta(days=(ref.weekday() - weekday - 1) % 7 + 1), "weekday"
    if which in _WEEK_SHIFT:
        monday = _monday(ref) + timedelta(weeks=_WEEK_SHIFT[which])
        return monday + timedelta(days=weekday), "weekday"
    return _next_weekday(ref, weekday), "weekday"


def _weekday_eod(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    """"COB Friday", "Thursday EOD": the end of that weekday."""
    which = (m["which"] or m["which2"] or "").lower()
    weekday = _weekday_index(m["wd"] or m["wd2"])
    if which in _WEEK_SHIFT:
        return _monday(ref) + timedelta(weeks=_WEEK_SHIFT[which], days=weekday), "weekday"
    return _next_weekday(ref, weekday), "weekday"


def _week(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    which = (m.groupdict().get("which") or "this").lower()
    return _friday_of_week(ref) + timedelta(weeks=_WEEK_SHIFT.get(which, 0)), "week"


def _week_of_month_res(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    month = int(m["mon"])
    return _week_of_month(_year_for(ref, month), month, KO_WEEK_OF_MONTH[m["nth"]]), "week"


def _month_end_res(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    mon = m.groupdict().get("mon")
    if mon:
        month = _month_number(mon)
        return _month_end(_year_for(ref, month), month), "month_end"
    year, month = _add_months(ref.replace(day=1), 1 if (m["which"] or "") in ("다음", "담", "next") else 0)
    return _month_end(year, month), "month_end"


def _period_end(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    """End of the quarter ("분기 말", "EOQ") or of the year ("연말", "end of the year")."""
    said = m.group(0).lower()
    if "분기" in said or "quarter" in said or said == "eoq":
        last_month = (ref.month - 1) // 3 * 3 + 3
        return _month_end(ref.year, last_month), "month_end"
    return date(ref.year, 12, 31), "month_end"


def _relative_day(m: re.Match[str], ref: date, hint: int | None) -> _Resolved:
    word = re.sub(r"\s+", " ", (m.groupdict().get("rel") or "").lower())
    offsets = {"내일": 1, "낼": 1, "명일": 1, "익일": 1, "모레": 2, "내일모레": 2, "글피": 3, "tomorrow": 1,
               "day after tomorrow": 2}
    return ref + timedelta(days=offsets.get(word, 0)), "relative_day"


def _undated(kind: DateKind) -> _Resolver:
    return lambda m, ref, hint: (None, kind)


# --- patterns -----------------------------------------------------------------------------

_KWD = f"[{KO_WEEKDAYS}]"
_KO_TIME = (r"(?:\s*(?:오전|오후|저녁|아침|점심|밤)(?:\s*\d{1,2}\s*시(?:\s*반|\s*\d{1,2}\s*분)?)?"
            r"|\s*\d{1,2}\s*시(?:\s*반)?)?")
_KO_WITHIN = r"(?:\s*(?:안에|안으로|중에|중으로|내로|내에|이내))?"
_KO_WHICH = r"(?<![가-힣])(?P<which>이번|금|다음|담|다다음|차)"
# A weekday of a week told of the past ("지난주 금요일"); a past week alone is no date to keep.
_KO_WHICH_WEEKDAY = r"(?<![가-힣])(?P<which>이번|금|다음|담|다다음|차|지난|저번)"
_EN_WD = "|".join(EN_WEEKDAYS)
_EN_TIME = (r"(?:\s+(?:at\s+)?(?:\d{1,2}(?::\d{2})?\s*[ap]\.?m\.?|noon|\d{1,2}:\d{2})"
            r"|\s+(?:morning|afternoon|evening|night))?")
_EN_END_OF_DAY = r"eod|cob|close\s+of\s+business|end\s+of\s+(?:the\s+)?(?:business\s+)?day"
_EN_MON = "|".join(sorted(EN_MONTHS, key=len, reverse=True))
_EN_MON_NOT_MAY = "|".join(sorted((m for m in EN_MONTHS if m != "may"), key=len, reverse=True))
_EN_ORD = "|".join(sorted(EN_ORDINAL_DAY, key=len, reverse=True))
_EN_NUM = "|".join(EN_NUMBER_WORDS) + r"|\d{1,2}"
# A bare ordinal is a day only when no noun follows it: the sentence moves on after it ("by
# the 5th.", "on the twenty-eighth for the pre-scan"), not in "the first week". What may follow
# is a function word: a preposition, a conjunction, a verb of being or a modal.
_EN_DAY_END = (r"(?=\s*(?:$|[.,;!?)]|(?:at|and|or|then|so|please|latest|if|is|works|for|by|from|with|before|after"
               r"|until|till|but|because|was|will|would|should|could|instead)\b))")

_NUMERIC_MD = r"(?P<{g}mon>1[0-2]|0?[1-9])/(?P<{g}day>3[01]|[12]\d|0?[1-9])(?![\d/])"
# Offsets said in words ("이틀 전에", "일주일 전까지"), in days.
KO_OFFSET_DAYS = {"하루": 1, "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "일주일": 7, "열흘": 10,
                  "보름": 15, "한 주": 7, "두 주": 14, "세 주": 21}
_KO_OFFSET_WORDS = "(?:" + "|".join(w.replace(" ", r"\s*") for w in KO_OFFSET_DAYS) + ")"
_KO_DAY_FOLLOWS = (r"(?=\s*(?:까지|에(?!\s*안|서)|부터|전|날|자(?![가-힣])|오전|오후|그대로|이요|이에요"
                   r"|자정|정오|아침|점심|저녁|밤))")
_KO_NOT_A_DAY = r"(?<![\d.])(?<!월 )(?<!기본 )(?<!최대 )(?<!최소 )"

KO_DEMONSTRATIVES = frozenset({"그", "이", "저"})
KO_MONTH_WORDS = {"일": 1, "이": 2, "삼": 3, "사": 4, "오": 5, "유": 6, "육": 6, "칠": 7, "팔": 8, "구": 9, "시": 10,
                  "십": 10, "십일": 11, "십이": 12}
_KO_MONTH_WORDS = "|".join(sorted(KO_MONTH_WORDS, key=len, reverse=True))
_KO_DIGIT = "[일이삼사오육칠팔구]"
_KO_NUMERAL = f"(?:[이삼]?십{_KO_DIGIT}?|{_KO_DIGIT})"
_KO_NUMERAL2 = f"(?:[이삼]십{_KO_DIGIT}?|십{_KO_DIGIT})"  # 10-39 in words, two syllables at least

# (pattern, resolver): at overlapping places the longest match wins, then the earlier entry.
_KOREAN: list[tuple[str, _Resolver]] = [
    # the meeting's own day ("퇴근 전까지", "점심 전에", "회의 끝나고"), before other "X 전까지"
    ((r"(?:퇴근|점심)\s*(?:하기\s*|먹기\s*)?전(?:까지|에)?"
      r"|(?<!다음 )(?<!다음)(?<!지난 )(?<!지난)회의\s*(?:끝나고|끝나면|마치고|마치면|후에|끝난\s*뒤에?)"),
     _relative_day),
    ((rf"(?:매주|격주|매달|매월|매일)(?:\s*{_KWD}요일|\s*\d{{1,2}}\s*일)?{_KO_TIME}"
      rf"|{_KWD}요일\s*마다|(?:이번|다음)\s*주\s*부터"), _undated("recurring")),
    ((rf"(?P<anchor>[가-힣A-Za-z0-9]+(?:\s+(?!\d|{_KO_OFFSET_WORDS})[가-힣A-Za-z0-9]+)?)\s+"
      rf"(?P<off>(?:(?:\d+|{_KO_NUMERAL})\s*(?:일|주)|{_KO_OFFSET_WORDS})\s*)?(?:전까지|전에|전날|직전|당일)"
      # a time of day said after it stays with it ("타설 전날 오후에" is not this afternoon)
      r"(?:\s*(?:오전|오후|아침|저녁|점심|밤)(?:\s*\d{1,2}\s*시)?(?:에|까지)?)?"), _undated("event")),
    # the next meeting, also when its week is said ("다음 주 회의 때"): an event, not a week-only deadline
    (r"다음\s*(?:주\s*)?(?:회의|미팅|스프린트|정기\s*회의)\s*(?:때|전|까지)?", _undated("event")),
    ((r"(?<![\d.])\d{1,3}\s*(?:일|주|달|개월|시간)\s*(?:안에|이내|내에|내로|동안|정도|만에|간|후|뒤)"
      r"|(?:한|두|세|네)\s*(?:달|주|시간)\s*(?:안에|이내|내에|동안|정도|후|뒤)"
      rf"|{_KO_OFFSET_WORDS}\s*(?:안에|이내|내에|내로|동안|만에|후|뒤)"), _undated("duration")),
    # "6/12까지", "by 6/12": a numeric month/day, only where it reads as a date.
    ((r"(?:(?<=\bby\s)|(?<=\bon\s)|(?<=\buntil\s)|(?<=\bdue\s)|(?<=\bbefore\s))"
      + _NUMERIC_MD.format(g="en")
      + r"|(?<![\d/])" + _NUMERIC_MD.format(g="ko") + rf"(?:\s*\({_KWD}\))?(?=\s*(?:까지|에|일))"), _numeric_month_day),
    ((rf"(?P<mon>\d{{1,2}})\s*월\s*(?P<day>\d{{1,2}})\s*일(?:\s*{_KWD}요일)?"
      rf"{_KO_TIME}{_KO_WITHIN}"), _month_day),
    (rf"(?:다음|담)\s*달\s*(?P<day>\d{{1,2}})\s*일(?:\s*{_KWD}요일)?{_KO_TIME}", _next_month_day),
    ((rf"{_KO_NOT_A_DAY}(?P<day>\d{{1,2}})\s*일"
      rf"(?:\s*(?P<wd>{_KWD})요일{_KO_TIME}|{_KO_DAY_FOLLOWS})"), _day),
    # the weekday first ("수요일인 20일까지", "금요일, 24일에")
    ((rf"(?P<wd>{_KWD})요일(?:인|이고)?\s*,?\s*{_KO_NOT_A_DAY}(?P<day>\d{{1,2}})\s*일"
      rf"(?:{_KO_TIME}|{_KO_DAY_FOLLOWS})"), _day),
    # a day in words ("오월 이십일까지", "이십오 일에"): two syllables at least, or its month said
    ((rf"(?:(?P<kmon>{_KO_MONTH_WORDS}|\d{{1,2}})\s*월\s*(?P<kday>{_KO_NUMERAL})\s*일"
      rf"|(?<![가-힣])(?P<kday2>{_KO_NUMERAL2})\s*일{_KO_DAY_FOLLOWS})"), _ko_word_day),
    (rf"{_KO_WHICH_WEEKDAY}\s*주\s*(?P<wd>{_KWD})요일{_KO_TIME}{_KO_WITHIN}", _weekday),
    (rf"(?<![가-힣])(?P<past>지난|저번)\s*(?P<wd>{_KWD})요일{_KO_TIME}", _weekday),
    (rf"(?<![매격])(?P<wd>{_KWD})요일{_KO_TIME}{_KO_WITHIN}", _weekday),
    ((r"(?P<mon>\d{1,2})\s*월\s*(?P<nth>첫째|첫|둘째|두|셋째|세|넷째|네|마지막)"
      r"\s*(?:째\s*)?주"), _week_of_month_res),
    (rf"{_KO_WHICH}\s*주(?:\s*(?:안에|안으로|중에|중으로|내로|내에|중|말|까지))?", _week),
    ((r"(?P<mon>\d{1,2})\s*월\s*(?:말(?!씀)|안에|중에)"
      r"|(?P<which>이번|다음|담)\s*달\s*(?:말일?|안에|안으로|중에|중으로|내로|내에)"
      r"|이달\s*(?:말일?|안에|안으로|중에|중으로|내로|내에)|월말|말일"), _month_end_res),
    (r"(?:이번\s*)?분기\s*(?:말|안에|내)|연말|올해\s*(?:말|안에)", _period_end),
    # not inside a word: "끝낼게요", "보낼게요" say no 낼 (tomorrow), and neither does the verb "낼게요"
    (rf"(?<![가-힣])(?P<rel>내일\s*모레|내일|낼(?=$|[\s,.?!]|까지|은|도|부터)|명일|익일|모레|글피|오늘|금일)"
     rf"{_KO_TIME}{_KO_WITHIN}", _relative_day),
    (r"(?<![가-힣])(?:오후|이따가?|오전\s*중)(?:에|\s*중에?|까지)", _relative_day),
]
_ENGLISH: list[tuple[str, _Resolver]] = [
    ((rf"(?i:\bevery\s+(?:{_EN_WD}|day|week|morning|other\s+week)\b{_EN_TIME}"
      rf"|\b(?:{_EN_WD})s\b(?:\s+at\s+(?:{_EN_NUM})(?:\s*[ap]\.?m\.?)?)?"
      r"|\bweekly\b|\bdaily\b|\beach\s+week\b)"), _undated("recurring")),
    # "in three days", "two weeks from today": a span, not a day said (the README's durations)
    ((rf"(?i:\b(?:in|within|for)\s+(?:a|an|{_EN_NUM})"
      r"\s+(?:days?|weeks?|months?|hours?)\b"
      rf"|\b(?:a|an|{_EN_NUM})\s+(?:days?|weeks?|months?)\s+from\s+(?:today|now)\b)"), _undated("duration")),
    ((rf"(?i:(?:\b(?:the\s+)?(?P<enoff>(?:a|an|one|{_EN_NUM})\s+(?:days?|weeks?)|day)\s+)?"
      r"\b(?:before|ahead\s+of)\s+"
      r"(?P<anchor>(?:it|we|they|the|our|this)\b[\w\s-]{0,30}?)(?=[.,;!?]|$)"
      r"|\bon\s+(?:launch|release|go-live)\s+day\b"
      r"|\bby\s+(?:the\s+next|next\s+week's)\s+(?:meeting|sprint|sync)\b)"), _undated("event")),
    # "three days before, so the Friday": the event was named just before (no anchor here).
    ((rf"(?i:\b(?P<enoff>(?:a|an|one|{_EN_NUM})\s+(?:days?|weeks?))\s+(?:before|earlier)\b"
      r"(?=\s*(?:[.,;!?]|$)))"), _undated("event")),
    # a weekday said before the full date is part of it ("Saturday November seventh")
    ((rf"(?i:\b(?:{_EN_WD}),?\s+)?(?i:\b(?P<mon>{_EN_MON})\.?\s+(?:the\s+)?"
      rf"(?P<day>{_EN_ORD}|\d{{1,2}}(?:st|nd|rd|th)?)\b)"), _month_day),
    ((rf"(?i:\b(?:{_EN_WD}),?\s+)?(?i:\bthe\s+(?P<day>{_EN_ORD}|\d{{1,2}}(?:st|nd|rd|th))"
      rf"\s+of\s+(?P<mon>{_EN_MON})\b)"), _month_day),
    # "12 November", "3rd of June" (day first); "may" only capitalised, else it is the verb
    ((rf"(?i:\b(?P<day>\d{{1,2}}(?:st|nd|rd|th)?)\s+(?:of\s+)?)"
      rf"(?P<mon>(?i:{_EN_MON_NOT_MAY})\b\.?|May\b)"), _month_day),
    (rf"(?i:\bthe\s+(?P<day>{_EN_ORD}|\d{{1,2}}(?:st|nd|rd|th)){_EN_DAY_END})", _day),
    ((rf"(?i:\b(?P<wd>{_EN_WD}),?\s+(?:the\s+)?"
      rf"(?P<day>{_EN_ORD}|\d{{1,2}}(?:st|nd|rd|th))\b)"), _day),
    (rf"(?i:\b(?P<n>a|one|two|three|\d)\s+weeks?\s+from\s+(?:this\s+)?(?P<wd>{_EN_WD})\b)", _weeks_from),
    ((rf"(?i:\b(?:{_EN_END_OF_DAY})\s+(?:on\s+)?(?:(?P<which>this|next)\s+)?(?P<wd>{_EN_WD})\b(?!s)"
      rf"|\b(?:(?P<which2>this|next)\s+)?(?P<wd2>{_EN_WD})\s+(?:{_EN_END_OF_DAY})\b)"), _weekday_eod),
    ((rf"(?i:\b(?:(?P<which>this|next|last)\s+)?(?P<wd>{_EN_WD})\b(?!s){_EN_TIME}"
      r"(?:,?\s+(?:of\s+)?(?P<weekafter>this|next)\s+week\b)?)"), _weekday),
    ((r"(?i:\b(?:(?:the\s+)?end\s+of\s+)?(?P<which>this|next)\s+week\b"
      r"|\b(?:the\s+)?end\s+of\s+(?:the\s+)?week\b|\beow\b)"), _week),
    ((r"(?i:\b(?:the\s+)?end\s+of\s+"
      rf"(?:(?:(?P<which>this|next|the)\s+)?month|(?P<mon>{_EN_MON}))\b|\beom\b|\bmonth[\s-]end\b)"), _month_end_res),
    ((r"(?i:\b(?:(?:the\s+)?end\s+of\s+(?:the\s+)?day\s+|eod\s+)?"
      r"(?P<rel>day\s+after\s+tomorrow|tomorrow|today|tonight)"
      r"\b(?:\s+(?:morning|afternoon|evening|night))?"
      r"|\b(?:the\s+)?end\s+of\s+(?:the\s+)?day\b|\beod\b"
      r"|\bthis\s+(?:afternoon|morning|evening)\b|\bcob\b|\bclose\s+of\s+business\b"
      r"|\bafter\s+(?:the|this)\s+(?:meeting|call)\b)"), _relative_day),
    ((r"(?i:\b(?:the\s+)?end\s+of\s+(?:the\s+|this\s+)?(?:quarter|year)\b|\beo[qy]\b"
      r"|\bthis\s+(?:quarter|year)\b)"), _period_end),
]
_PATTERNS = _KOREAN + _ENGLISH
_COMPILED = [(re.compile(pattern), resolver) for pattern, resolver in _PATTERNS]
_PARTICLE_TAIL = re.compile(r"[가-힣]*")


def _offset_days(m: re.Match[str]) -> int:
    """"2주 전까지" -> -14, "전날" -> -1, "the day before" -> -1: the offset from the event
    the caller dates."""
    groups = m.groupdict()
    if groups.get("off"):
        said = " ".join(groups["off"].split())
        if said.replace(" ", "") in {w.replace(" ", "") for w in KO_OFFSET_DAYS}:
            return -next(v for w, v in KO_OFFSET_DAYS.items() if w.replace(" ", "") == said.replace(" ", ""))
        digits = re.match(r"\d+", said)
        amount = int(digits.group(0)) if digits else ko_number(said[:-1].strip()) or 0  # "이 주" -> 2 weeks
        return -amount * (7 if "주" in said else 1)
    if groups.get("enoff"):  # "the day before the move", "two weeks before launch"
        count, unit = ["1", *groups["enoff"].lower().split()][-2:]
        amount = int(count) if count.isdigit() else EN_NUMBER_WORDS.get(count, 1)
        return -amount * (7 if unit.startswith("week") else 1)
    return -1 if "전날" in m.group(0) else 0


def _candidates(text: str) -> list[tuple[int, int, int, re.Match[str], _Resolver]]:
    found = []
    for order, (pattern, resolver) in enumerate(_COMPILED):
        for m in pattern.finditer(text):
            if m.end() > m.start():
                found.append((m.start(), m.end(), order, m, resolver))
    return found


_WEEK_SAID = re.compile(r"이번|다음|담|차|\bthis\b|\bnext\b", re.IGNORECASE)
_WEEKDAY_SAID = re.compile(r"[월화수목금토일]요일|monday|tuesday|wednesday|thursday|friday|saturday|sunday",
                           re.IGNORECASE)


def _short(m: DateMention) -> str | None:
    """What a date said in short leaves out: "day" (a day number without its month) or
    "weekday" (a weekday without its week); None when it says it in full."""
    if m.kind == "day" and not _WEEKDAY_SAID.search(m.text):
        return "day"
    if m.kind == "weekday" and not _WEEK_SAID.search(m.text):
        return "weekday"
    return None


def repeated_date(m: DateMention, before: Sequence[DateMention]) -> date | None:
    """The date a mention said in short repeats ("24일에 올리겠습니다" after "24일 금요일에",
    "We submit on the twenty-fourth then" after "Friday the twenty-fourth"): the last of
    `before` (the reply's line before) said in full with the same day number or weekday."""
    short = _short(m)
    if short is None or m.date is None:
        return None
    for said in reversed(before):
        if said.date is None or _short(said) is not None or said.kind not in ("date", "day", "weekday"):
            continue
        if (said.date.day == m.date.day) if short == "day" else (said.date.weekday() == m.date.weekday()):
            return said.date
    return None


def _particle_marked(word: str) -> bool:
    """A Korean word ending in a topic, subject or object particle ("저는", "팀장님께서", "파일은")."""
    if not re.search(r"[가-힣]$", word):
        return False
    from mithub.text.korean import morphemes

    found = morphemes(word)
    return bool(found) and found[-1].tag in {"JX", "JKS", "JKO"}


def resolve_date_expressions(text: str, reference: date, *, month_hint: int | None = None) -> list[DateMention]:
    """Every date expression in `text`, in order, each resolved against `reference` (the
    meeting's local date). `month_hint` is the month for a bare day number ("19일에는")."""
    if isinstance(reference, datetime):
        # A UTC timestamp's date can be the day before the meeting's local date.
        raise InputError("date resolution needs the meeting's local date, not a datetime: "
                         "pass started_at.astimezone(<meeting time zone>).date()")
    chosen: list[tuple[int, int, int, re.Match[str], _Resolver]] = []
    for cand in sorted(_candidates(text), key=lambda c: (-(c[1] - c[0]), c[2], c[0])):
        if all(cand[1] <= c[0] or cand[0] >= c[1] for c in chosen):
            chosen.append(cand)
    mentions = []
    for start, end, _, m, resolver in sorted(chosen, key=lambda c: c[0]):
        resolved, kind = resolver(m, reference, month_hint)
        if text[end - 1:end].isalpha() and "\uac00" <= text[end - 1] <= "\ud7a3":
            end += _PARTICLE_TAIL.match(text, end).end() - end  # type: ignore[union-attr]
        anchor = m.groupdict().get("anchor")
        if anchor and len(anchor.split()) > 1 and m.start() == m.start("anchor") and (
                anchor.split()[-1] in KO_DEMONSTRATIVES or _particle_marked(anchor.split()[0])):
            # "팀장님은 그 전까지": the event is the one just said; "저는 점검 전날까지", "파일은 출간
            # 삼 주 전까지": a word its particle marks as the clause's topic or subject is no part of the event
            last = anchor.split()[-1]
            start = m.start("anchor") + anchor.rindex(last)
            anchor = last
        said = text[start:end].strip()
        if said.endswith(".") and not said.endswith(("a.m.", "p.m.")):
            said, end = said[:-1], end - 1  # "Monday 5 pm." keeps its words, not the full stop
        mentions.append(DateMention(
            text=said, start=start, end=end, date=resolved, kind=kind,
            anchor=anchor.strip() if anchor else None,
            offset_days=_offset_days(m) if kind == "event" else 0,
        ))
    return mentions
