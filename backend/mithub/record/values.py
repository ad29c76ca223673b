"""Value normalisation: the amounts, counts, percentages, durations, times, dates and names
a decision settles, in a canonical form so two mentions can be compared.

"2억 4천만 원", "이억 사천" and "2억 4천" are one amount; "eighty K" and "$80,000" are one
amount; "Relay" names "Relaymark". `extract_values` finds them in a line, `values_agree`
says whether two of them are the same value, `comparable` whether they could be.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal

from mithub.record.dates import EN_WEEKDAYS, KO_WEEKDAYS, resolve_date_expressions
from mithub.record.numbers import (
    EN_NUMBER_WORDS,
    KOREAN_NUMBER,
    english_number_runs,
    NATIVE_NUMBERS,
    SINO_DIGITS,
    is_plain_korean_run,
    parse_korean_number,
)
from mithub.text.korean import tokens_with_offsets
from mithub.text.tokens import ENGLISH_STOPWORDS

ValueKind = Literal["amount", "percent", "count", "duration", "time", "number", "date", "person", "name"]
NUMERIC_KINDS = frozenset({"amount", "percent", "count", "duration", "time", "number"})

_DAYS = {"year": 365.25, "month": 30.4375, "week": 7.0, "day": 1.0, "hour": 1 / 24, "minute": 1 / 1440}


@dataclass(frozen=True)
class Value:
    """One value mentioned in a text. `number` is in the kind's base unit (won or dollars,
    percent points, days for durations, minutes after midnight for times); `unit` is the
    currency, the counter ("person", "engineer") or, for dates, the ISO date."""

    kind: ValueKind
    text: str
    start: int
    end: int
    number: float | None = None
    unit: str = ""
    loose: bool = False  # a date said without its month, a time without am/pm
    approx: bool = False  # a range said as an estimate ("2~3명", "3,4일", "two or three days")

    @property
    def canonical(self) -> str:
        if self.kind in {"date", "person", "name"}:
            return f"{self.kind}:{self.unit}"
        number = f"{self.number:.6g}" if self.number is not None else "?"
        return f"{self.kind}:{number}" + (f":{self.unit}" if self.unit else "")


# ---------------------------------------------------------------- Korean
# "90일 보관", "30일 이내": days as a span, not a day of the month.
_KO_DAY_SPAN = re.compile(r"\s?일(?=\s?(?:간|동안|이내|안에|후|뒤|보관|경과|지난|지나|치|씩|마다|걸))")
_KO_LOOSE_DAY = re.compile(
    r"\s?일(?:로|에(?!서)|까지|부터|자|\s?(?:월|화|수|목|금|토|일)요일|\s(?!정도|동안|걸|간|이상|이하|내|만에)[가-힣])"
)
_KO_SUFFIXES: list[tuple[re.Pattern[str], str, str, float]] = [
    # (pattern right after the number, kind, unit, multiplier to the base unit)
    (re.compile(r"\s?원"), "amount", "KRW", 1),
    (re.compile(r"\s?(?:달러|불)(?![가-힣])"), "amount", "USD", 1),
    (re.compile(r"\s?(?:%|퍼센트|프로(?![젝그세])|퍼)\s?(?:포인트|p\b)?"), "percent", "", 1),
    (re.compile(r"\s?개월"), "duration", "", _DAYS["month"]),
    (re.compile(r"\s?년(?!도)"), "duration", "", _DAYS["year"]),
    (re.compile(r"\s?주(?:일|간)?(?![년차])"), "duration", "", _DAYS["week"]),
    (re.compile(r"\s?시간"), "duration", "", _DAYS["hour"]),
    (re.compile(r"\s?분(?![석기류야])"), "duration", "", _DAYS["minute"]),
    (re.compile(r"\s?초(?![가-힣])|\s?초(?=[간이내에로는만])"), "duration", "", _DAYS["minute"] / 60),
    (_KO_DAY_SPAN, "duration", "", 1),
    (re.compile(r"\s?시(?![작간장청])"), "time", "", 60),
    (re.compile(r"\s?(?:명|사람|자리|인(?![가-힣]))"), "count", "person", 1),
    (re.compile(r"\s?(?:곳|군데)"), "count", "place", 1),
    (re.compile(r"\s?개(?!월)"), "count", "item", 1),
    (re.compile(r"\s?대(?![가-힣]|로\s?(?:가|하))|\s?대(?=[가로를는도까만에의])"), "count", "unit", 1),
    (re.compile(r"\s?(?:회|번)(?![가-힣])|\s?(?:회|번)(?=[씩은는이도만으로에])"), "count", "times", 1),
    (re.compile(r"\s?건"), "count", "case", 1),
]
# Other counters ("120석", "3층", "2가지"): counts of that thing, comparable only with the same.
_KO_COUNTER = re.compile(r"\s?(석|층|권|장|통|잔|채|종|팀|가지|마리|개사|점|위|차례|박|세트|라인)(?=[\s,.?!…]|$|[이가은는을를에의도로으만까와과씩])")
_PARTICLE_TAIL = re.compile(r"(?<=[가-힣0-9%])(?:으로|로|에서|에|까지|부터|은|는|이|가|을|를|도|만|으로요|로요)$")
_NATIVE_COUNTER = r"(명|사람|분|대|개|곳|군데|자리|번|회|달|해|시간|시|주)(?=[\s,.?!…]|$|[이가은는을를에의도로으만까와과씩째])"


def _native(numerals: Iterable[str]) -> re.Pattern[str]:
    """Native numerals (longest first) before one of their counters ("세 명", "두세 달")."""
    return re.compile(r"(?<![가-힣])(" + "|".join(sorted(numerals, key=len, reverse=True)) + r")\s?" + _NATIVE_COUNTER)


_KO_NATIVE = _native(NATIVE_NUMBERS)
_KO_NATIVE_ALONE = re.compile(
    r"(?<![가-힣])(하나|둘|셋|넷|다섯|여섯|일곱|여덟|아홉|열둘|열하나)(?=[\s,.?!…]|$|[이가은는을를에의도로만까와과씩])"
)
_NATIVE_COUNTERS = {
    "명": ("count", "person", 1), "사람": ("count", "person", 1), "분": ("count", "person", 1),
    "자리": ("count", "person", 1), "대": ("count", "unit", 1), "개": ("count", "item", 1),
    "곳": ("count", "place", 1), "군데": ("count", "place", 1), "번": ("count", "times", 1),
    "회": ("count", "times", 1), "달": ("duration", "", _DAYS["month"]),
    "해": ("duration", "", _DAYS["year"]), "시간": ("duration", "", _DAYS["hour"]),
    "주": ("duration", "", _DAYS["week"]), "시": ("time", "", 60),
}
_KO_HALF = re.compile(r"\s?반(?![가-힣])|\s?반(?=[에으로까부쯤이은는도만과와랑을의])")
_EVENING = re.compile(r"(?:오후|저녁|밤)\s*$")
_MORNING = re.compile(r"(?:오전|아침|새벽)\s*$")
_PLAIN_FOLLOWER = re.compile(r"(?![가-힣])|[이가은는을를에의도로으만까와과씩쯤정]")


def _time_value(text: str, start: int, end: int, hours: float) -> Value | None:
    """An hour said at `start`..`end` ("7시", "여덟 시"), with "반" after it half past."""
    if hours > 24:
        return None
    half = _KO_HALF.match(text, end)
    end = half.end() if half else end
    minutes = hours * 60 + (30 if half else 0)
    before = text[max(0, start - 6):start]
    loose = False
    if _EVENING.search(before) and hours < 12:
        minutes += 12 * 60
    elif not _MORNING.search(before):
        loose = True
    return Value("time", text[start:end], start, end, minutes, "", loose)


_SINO = frozenset(SINO_DIGITS)


def _trim_run(run: str) -> str:
    """Cut a run where a Sino digit follows a digit ("90일" is 90 and a day, "이삼" no number)."""
    for i in range(1, len(run)):
        if run[i] in _SINO and (run[i - 1].isdigit() or run[i - 1] in _SINO):
            return run[:i]
    return run


# A decimal point said aloud, its digits one by one: "구십구 점 오 퍼센트", "삼 점 이오 프로".
_KO_SPOKEN_POINT = re.compile(r"\s?점\s?([영일이삼사오육칠팔구]{1,3})(?=[\s,.%]|$|퍼센트|프로|배|[이가은는을를에의도로면요])")


def _read_as_numeral(text: str, start: int) -> bool:
    """Kiwi reads the word at `start` as a numeral (NR): "칠 주", not the "이" of "이 주 안에"."""
    return any(t.start == start and t.tag == "NR" for t in tokens_with_offsets(text))


def _counter_follows(text: str, end: int) -> bool:
    """Kiwi reads a numeral up to `end` and a counter right after it: "삼십명", "오백개",
    "이백 만원" (not "이원화", "삼원색": nouns)."""
    tokens = tokens_with_offsets(text)
    return any(t.end == end and t.tag == "NR" for t in tokens) and \
        any(t.start == end and t.tag == "NNB" for t in tokens)


def _read_as_noun(text: str, start: int, end: int) -> bool:
    """Kiwi reads the whole run as one common noun: "구조로" is a structure and no 9 trillion,
    "조사" a survey."""
    return any(t.start == start and t.end >= end and t.tag == "NNG" for t in tokens_with_offsets(text))


def _korean_number_values(text: str) -> list[Value]:
    values: list[Value] = []
    for match in KOREAN_NUMBER.finditer(text):
        run = _trim_run(match.group(0)).rstrip(",. ")
        after = match.start() + len(run)
        if len(run) > 1 and run[-1] in _SINO and re.match(r"[가-힣]", text[after:after + 1]):
            run = run[:-1].rstrip()  # "4천이면": the particle, not a digit
        # one Sino numeral said alone ("칠 주", "오 프로"): a number only where kiwi reads a
        # numeral (NR), not the determiner of "이 주 안에", and only with a counter after it
        single = len(run) == 1 and run in SINO_DIGITS and _read_as_numeral(text, match.start())
        if not (is_plain_korean_run(run) or single):
            continue
        end = match.start() + len(run)
        plain = not any(c.isdigit() for c in run)
        if plain and not (_PLAIN_FOLLOWER.match(text, end) or (not single and _counter_follows(text, end))):
            continue  # "천천히", "만큼": words that start with a numeral character
        if plain and _read_as_noun(text, match.start(), end):
            continue  # "구조로": kiwi reads a noun made of numeral syllables
        number = parse_korean_number(run)
        if number is None:
            continue
        if plain and (point := _KO_SPOKEN_POINT.match(text, end)) is not None:  # "삼 점 오" is 3.5
            number += float("0." + "".join(str(SINO_DIGITS[c]) for c in point.group(1)))
            end = point.end()
        value = _with_korean_suffix(text, match.start(), end, number)
        if value is not None and not (single and value.kind == "number"):
            values.append(value)
    return values


def _with_korean_suffix(text: str, start: int, end: int, number: float) -> Value | None:
    following = text[end:end + 2].lstrip()[:1]
    if following == "월":
        return None  # "7월": a month, part of a date (record/dates.py)
    if following == "일" and number <= 31 and _KO_DAY_SPAN.match(text, end) is None:
        # "22일로 잡았던", "26일 그대로": a day of the month that record/dates.py leaves to
        # context; "기본 30일," or "0일에서" is an amount of days, not a date.
        day = _KO_LOOSE_DAY.match(text, end)
        if day is None or re.search(r"(?:기본|최대|최소|약|총)\s*$", text[:start]):
            return None
        day_end = text.index("일", end) + 1
        return Value("date", text[start:day_end], start, day_end, unit=f"day-{int(number):02d}", loose=True)
    for pattern, kind, unit, scale in _KO_SUFFIXES:
        suffix = pattern.match(text, end)
        if suffix is None:
            continue
        if kind == "duration" and "년" in suffix.group(0) and number >= 100:
            return None  # "2026년" is the year of a date
        if kind == "time":
            return _time_value(text, start, suffix.end(), number)
        return Value(kind, text[start:suffix.end()], start, suffix.end(), number * scale, unit)  # type: ignore[arg-type]
    counter = _KO_COUNTER.match(text, end)
    if counter is not None:
        return Value("count", text[start:counter.end()], start, counter.end(), number, counter.group(1))
    if following == "일":
        day_end = text.index("일", end) + 1
        return Value("duration", text[start:day_end], start, day_end, number)
    if not _PLAIN_FOLLOWER.match(text, end):
        return None  # "3분기", "1차": a number inside a word
    return Value("number", text[start:end], start, end, number)


# Two native numerals said as one word, a range ("한두 번", "두세 달", "서너 명"): its upper end.
_NATIVE_RANGES = {"한두": 2, "두세": 3, "두서너": 4, "서너": 4, "너덧": 5, "네댓": 5, "대여섯": 6, "예닐곱": 7}
_KO_NATIVE_RANGE = _native(_NATIVE_RANGES)


def _korean_native_values(text: str) -> list[Value]:
    values = []
    for match in _KO_NATIVE_RANGE.finditer(text):  # an estimate (`Value.approx`), as "2~3명" is
        kind, unit, scale = _NATIVE_COUNTERS[match.group(2)]
        if kind == "time":
            continue  # "두세 시" names no hour
        values.append(Value(kind, match.group(0), match.start(), match.end(),  # type: ignore[arg-type]
                            float(_NATIVE_RANGES[match.group(1)]) * scale, unit, approx=True))
    for match in _KO_NATIVE.finditer(text):
        number = float(NATIVE_NUMBERS[match.group(1)])
        kind, unit, scale = _NATIVE_COUNTERS[match.group(2)]
        if kind == "time":
            value = _time_value(text, match.start(), match.end(), number)
            if value is not None:
                values.append(value)
            continue
        values.append(Value(kind, match.group(0), match.start(), match.end(), number * scale, unit))  # type: ignore[arg-type]
    for match in _KO_NATIVE_ALONE.finditer(text):
        values.append(Value("number", match.group(0), match.start(), match.end(), float(NATIVE_NUMBERS[match.group(1)])))
    return values


# "주 5일", "주 사 일": days a week, a rate; its day is no day of the month. A Sino numeral
# said alone is one to seven here (a week has seven days).
_KO_DAYS_A_WEEK = re.compile(r"(?<![가-힣])주\s?(?P<n>[1-7]|[일이삼사오육칠])\s?일(?![가-힣]*요일)")
# "이번 주 5일에", "한 주 이 일": the week named, then its day, not a rate
_KO_WEEK_NAMED = re.compile(r"(?:이번|다음|담|지난|저번|차|매|한|두|세|네|몇|첫|첫째|둘째|셋째|넷째|마지막)\s?$")


def _days_a_week(text: str) -> list[Value]:
    return [Value("count", m.group(0), m.start(), m.end(), parse_korean_number(m.group("n")), "일/주")
            for m in _KO_DAYS_A_WEEK.finditer(text) if not _KO_WEEK_NAMED.search(text, 0, m.start())]


# ---------------------------------------------------------------- English
_EN_UNITS: list[tuple[re.Pattern[str], str, str, float]] = [
    (re.compile(r"\s?(?:k|K)\b"), "amount", "", 1000),
    (re.compile(r"\s?(?:%|percent(?:age points?)?|per cent|points?\b)", re.I), "percent", "", 1),
    (re.compile(r"\s?(?:dollars?|bucks|usd)\b", re.I), "amount", "USD", 1),
    (re.compile(r"[\s-]?(?:years?|yrs?)\b", re.I), "duration", "", _DAYS["year"]),
    (re.compile(r"[\s-]?months?\b", re.I), "duration", "", _DAYS["month"]),
    (re.compile(r"[\s-]?weeks?\b", re.I), "duration", "", _DAYS["week"]),
    (re.compile(r"[\s-]?(?:business )?days?\b", re.I), "duration", "", 1),
    (re.compile(r"[\s-]?hours?\b", re.I), "duration", "", _DAYS["hour"]),
    (re.compile(r"[\s-]?minutes?\b", re.I), "duration", "", _DAYS["minute"]),
]
_EN_TIME = re.compile(r"\s?(?:a\.?m\.?|p\.?m\.?|o'clock)(?![a-z])", re.I)
_EN_COUNT_NOUN = re.compile(r"\s+(?:([a-z]+)\s+)?([a-z][a-z-]{2,}s)\b")
_EN_COUNT_NOUN_NEXT = re.compile(r"\s+()([a-z][a-z-]{2,}s)\b")
_EN_COUNT_ADJECTIVES = frozenset({"more", "new", "extra", "additional", "full-time", "senior", "junior"})


def _english_number_values(text: str) -> list[Value]:
    values = []
    for start, end, number in english_number_runs(text):
        values.append(_with_english_unit(text, start, end, number))
    return values


def _with_english_unit(text: str, start: int, end: int, number: float) -> Value:
    dollars = text[max(0, start - 1):start + 1].find("$") >= 0
    for pattern, kind, unit, scale in _EN_UNITS:
        suffix = pattern.match(text, end)
        if suffix is not None:
            return Value(kind, text[start:suffix.end()], start, suffix.end(), number * scale,  # type: ignore[arg-type]
                         "USD" if dollars else unit)
    if dollars:
        return Value("amount", text[start:end], start, end, number, "USD")
    time = _EN_TIME.match(text, end)
    if time is not None and number <= 12:
        minutes = number * 60 + (12 * 60 if "p" in time.group(0).lower() and number < 12 else 0)
        return Value("time", text[start:time.end()], start, time.end(), minutes)
    if re.search(r"\bat\s+$", text[max(0, start - 4):start]) and number <= 12:
        return Value("time", text[start:end], start, end, number * 60, "", loose=True)
    for pattern in (_EN_COUNT_NOUN_NEXT, _EN_COUNT_NOUN):  # "two designers", then "3 more designers"
        noun = pattern.match(text, end)
        if noun is not None and not ({noun.group(1), noun.group(2)} & (ENGLISH_STOPWORDS - _EN_COUNT_ADJECTIVES)) \
                and noun.group(1) not in EN_NUMBER_WORDS:  # "seven eight options": the noun is eight's
            return Value("count", text[start:noun.end()], start, noun.end(), number, noun.group(2).rstrip("s"))
    return Value("number", text[start:end], start, end, number)


# ---------------------------------------------------------------- names and dates
_EN_NAME = re.compile(r"(?<![\w'’])([A-Z][a-z]+(?:[A-Z][a-z]+)*)(?:['’]s)?\b")
_SENTENCE_START = re.compile(r"(?:^|[.!?…]\s+|[\"“(]\s*)$")
_NOT_NAMES = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays
    fridays i okay ok yeah yes no so good great fine cool perfect sure right hi hey hello thanks
    um uh oh well""".split()
) | EN_NUMBER_WORDS


def _name_forms(names: Iterable[str]) -> list[tuple[str, str]]:
    """(form, full name) pairs: the full name, a Korean given name ("수진" for "이수진"),
    English first and last names."""
    forms: list[tuple[str, str]] = []
    for name in names:
        forms.append((name, name))
        if re.fullmatch(r"[가-힣]{3,4}", name):
            forms.append((name[1:], name))
        forms.extend((part, name) for part in name.split() if len(part) >= 3 and part != name)
    return sorted(forms, key=lambda f: len(f[0]), reverse=True)


def _person_values(text: str, names: Iterable[str]) -> list[Value]:
    values: list[Value] = []
    taken: list[tuple[int, int]] = []
    for form, full in _name_forms(names):
        for match in re.finditer(rf"(?<![가-힣A-Za-z]){re.escape(form)}(?![a-z])", text):
            if any(s < match.end() and match.start() < e for s, e in taken):
                continue
            taken.append((match.start(), match.end()))
            values.append(Value("person", form, match.start(), match.end(), unit=full))
    return values


def _thing_names(text: str, persons: list[Value]) -> list[Value]:
    values = []
    for match in _EN_NAME.finditer(text):
        word = match.group(1)
        if word.lower() in _NOT_NAMES or word.lower() in ENGLISH_STOPWORDS:
            continue
        if _SENTENCE_START.search(text[:match.start()]):
            continue  # a capital that only starts a sentence says nothing
        if any(p.start <= match.start() < p.end for p in persons):
            continue
        values.append(Value("name", word, match.start(), match.start() + len(word), unit=word.lower()))
    return values


def _date_values(text: str, reference: date | None) -> list[Value]:
    """Dated mentions from record/dates.py; a bare day ("26일", "the eighth") is loose, so it
    agrees with any date on that day of the month."""
    if reference is None:
        return []
    values = []
    mentions = [m for m in resolve_date_expressions(text, reference) if m.date is not None]
    for i, mention in enumerate(mentions):
        following = mentions[i + 1] if i + 1 < len(mentions) else None
        if mention.kind == "weekday" and following is not None and following.start - mention.end <= 3:
            continue  # "Monday, June eighth": the weekday only names the date that follows
        values.append(Value("date", text[mention.start:mention.end], mention.start, mention.end,
                            unit=mention.date.isoformat(), loose=mention.kind == "day"))
    return values


# ---------------------------------------------------------------- public API
def extract_values(text: str, *, reference: date | None = None, names: Iterable[str] = ()) -> list[Value]:
    """Every value in `text`, in order. `reference` (the meeting's local date) resolves
    relative dates; `names` (the participants) are recognised as persons."""
    korean = re.search(r"[가-힣]", text) is not None
    rates = _days_a_week(text) if korean else []
    dates = [d for d in _date_values(text, reference)
             if not any(r.start < d.end and d.start < r.end for r in rates)]
    if korean:
        numeric = _korean_number_values(text) + _korean_native_values(text)
    else:
        numeric = _english_number_values(text)
    taken = dates + rates
    numeric = [v for v in numeric if not any(d.start < v.end and v.start < d.end for d in taken)]
    numeric = _ranges(text, sorted(numeric, key=lambda v: v.start))
    persons = _person_values(text, names)
    found = _drop_overlaps(rates + dates + numeric + persons + _thing_names(text, persons))
    return _weekdays_in_apposition(text, sorted(found, key=lambda v: v.start))


# Between the two ends of a range: "2~3명", "2-3명", "3,4일" (a comma before fewer than three
# digits groups no thousands), "two or three days".
_RANGE_SEPARATOR = re.compile(r"\s?(?:~|-|–|,)\s?|\s(?:or|to)\s", re.IGNORECASE)
_AFTER_DIGIT_HYPHEN = re.compile(r"\d[-–]$")
_LEADING_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _rises(low: Value, high: Value) -> bool:
    """The second end of a range written in digits is the larger ("150-200명"; not "2026, 3명")."""
    said = _LEADING_DIGITS.match(high.text)
    return said is None or (low.number or 0.0) < float(said.group(0))


def _ranges(text: str, values: list[Value]) -> list[Value]:
    """A bare number, a range separator and a value with its unit are one value, an estimate
    (`approx`): its number is the upper end, its kind and unit the second's. Korean ranges are
    written in digits ("2~3명"; said, they are one word, `_NATIVE_RANGES`: "두세 명"), so "주니어
    하나, 세 자리" stays one and three. English "to" is a range only without a "from" before it
    ("from four to six weeks" moves a value). The other bare numbers after a digit and a hyphen are the later parts
    of one digit string ("2026-05-04", "010-1234-5678"), no values."""
    out: list[Value] = []
    i = 0
    while i < len(values):
        a = values[i]
        b = values[i + 1] if i + 1 < len(values) else None
        sep = _RANGE_SEPARATOR.fullmatch(text, a.end, b.start) if b is not None else None
        korean_words = re.search(r"[가-힣]", a.text) is not None  # "하나, 세 자리" is one and three
        if b is not None and sep is not None and a.kind == "number" and b.kind in NUMERIC_KINDS - {"number", "time"} \
                and not korean_words \
                and a.number is not None and b.number is not None and _rises(a, b) \
                and not (sep.group(0).strip().lower() == "to" and re.search(r"\bfrom\s+$", text[:a.start], re.I)):
            out.append(Value(b.kind, text[a.start:b.end], a.start, b.end, b.number, b.unit, approx=True))
            i += 2
            continue
        if not (a.kind == "number" and _AFTER_DIGIT_HYPHEN.search(text, 0, a.start)):
            out.append(a)
        i += 1
    return out


_WEEKDAY_ONLY = re.compile(rf"[{KO_WEEKDAYS}]요일|{'|'.join(EN_WEEKDAYS)}", re.IGNORECASE)
_APPOSITION = re.compile(r"\s*,?\s*(?:an?\s+)?", re.IGNORECASE)


def _weekday(value: Value) -> int | None:
    try:
        return date.fromisoformat(value.unit).weekday()
    except ValueError:
        return None


def _weekdays_in_apposition(text: str, values: list[Value]) -> list[Value]:
    """"오월 십삼 일 수요일", "the twelfth, a Saturday": a weekday right after a date names that
    date again (its own weekday when the date is a full one), so the two are one value. (A
    weekday before its date is folded in `_date_values`; a day said in number words comes from
    the numeric readers, hence this pass over every value.)"""
    out: list[Value] = []
    for v in values:
        before = out[-1] if out else None
        if (before is not None and v.kind == before.kind == "date"
                and _WEEKDAY_ONLY.fullmatch(display_text(v))
                and not _WEEKDAY_ONLY.fullmatch(display_text(before))
                and _APPOSITION.fullmatch(text[before.end:v.start])
                and (before.loose or (_weekday(v) is not None and _weekday(before) == _weekday(v)))):
            out[-1] = Value("date", text[before.start:v.end], before.start, v.end,
                            unit=before.unit, loose=before.loose)
            continue
        out.append(v)
    return out


def display_text(value: Value) -> str:
    """The value as said, without a trailing particle ("7월 15일 수요일로" -> "7월 15일 수요일")."""
    return _PARTICLE_TAIL.sub("", value.text.strip())


def _drop_overlaps(values: list[Value]) -> list[Value]:
    kept: list[Value] = []
    for value in sorted(values, key=lambda v: v.end - v.start, reverse=True):
        if not any(k.start < value.end and value.start < k.end for k in kept):
            kept.append(value)
    return kept


def names_match(a: str, b: str) -> bool:
    """Same named thing: equal, one a prefix of the other ("Relay", "Relaymark"; "수진",
    "이수진" by its given name), or one the initials of the other."""
    a, b = a.lower().strip(), b.lower().strip()
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    if len(short) >= 3 and (long.startswith(short) or long.split()[0] == short):
        return True
    if re.fullmatch(r"[가-힣]{2,3}", short) and len(long) == len(short) + 1 and long.endswith(short):
        return True
    initials = "".join(w[0] for w in re.split(r"[\s-]+", long) if w)
    return len(short) >= 2 and short == initials


def _counters_match(a: str, b: str) -> bool:
    return not a or not b or a == b or a.startswith(b[:3]) or b.startswith(a[:3])


def comparable(a: Value, b: Value) -> bool:
    """Could `a` and `b` be values of the same attribute (so that different values
    contradict)? Same kind, or a bare number against an amount, percent or count."""
    if a.kind == b.kind:
        return a.kind != "count" or _counters_match(a.unit, b.unit)
    kinds = {a.kind, b.kind}
    return "number" in kinds and bool(kinds & {"amount", "percent", "count"})


def values_agree(a: Value, b: Value) -> bool:
    """The same value said two ways ("이억 사천" and "2억 4천만 원"; "the 12th" and
    "6월 12일"; "1,800" and "1,800만 원")."""
    if not comparable(a, b):
        return False
    if a.kind == "date":
        return a.unit[-2:] == b.unit[-2:] if (a.loose or b.loose) else a.unit == b.unit
    if a.kind in {"person", "name"}:
        return names_match(a.unit, b.unit) or names_match(a.text, b.text)
    if a.number is None or b.number is None:
        return False
    if a.kind == "duration":
        return abs(a.number - b.number) <= 0.03 * max(a.number, b.number)
    if a.kind == "time":
        return a.number == b.number or ((a.loose or b.loose) and a.number % 720 == b.number % 720)
    if "number" in {a.kind, b.kind} and "amount" in {a.kind, b.kind}:
        bare, amount = (a, b) if a.kind == "number" else (b, a)
        return any(abs(bare.number * s - amount.number) < 1e-6 * amount.number  # type: ignore[operator]
                   for s in (1, 10**3, 10**4, 10**8))
    return abs(a.number - b.number) <= 1e-9 * max(abs(a.number), abs(b.number), 1.0)
