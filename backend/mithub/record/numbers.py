"""Numbers as people say them, in Korean and English: "2억 4천만", "천오백", "이억 사천",
"1,800", "eighty-four thousand", "twenty-five hundred", "ninety-nine point nine five".

Only the magnitude is read here; what the number counts (won, percent, people, years) is
the job of `record/values.py`.
"""

from __future__ import annotations

import re

SINO_DIGITS = {"영": 0, "공": 0, "일": 1, "이": 2, "삼": 3, "사": 4, "오": 5,
                "육": 6, "륙": 6, "칠": 7, "팔": 8, "구": 9}
_SMALL_UNITS = {"십": 10, "백": 100, "천": 1000}
_BIG_UNITS = {"만": 10**4, "억": 10**8, "조": 10**12}
_UNIT_CHARS = "십백천만억조"
_KO_CHARS = "영공일이삼사오육륙칠팔구" + _UNIT_CHARS

# A run of digits and Sino-Korean numerals. A space may continue it only after a big unit
# ("2억 4천만"), and only into a group that carries a unit or digits, so "1억 이번 주" stops.
KOREAN_NUMBER = re.compile(
    # a comma groups thousands only before three digits: "3,400만" is one number, "3,4일" two (3 or 4 days)
    rf"(?<![가-힣\d.A-Za-z])(?<![^\d]-)(?<!\d\d,)(?<!\d\d\d,)(?:\d+(?:,\d{{3}}(?!\d))*(?:\.\d+)?|[{_KO_CHARS}])"
    rf"(?:\d|,(?=\d{{3}}(?!\d))|\.(?=\d)|[{_KO_CHARS}]|(?<=[만억조]) (?=\d|[일이삼사오육칠팔구]?[{_UNIT_CHARS}])"
    # "팔십 오 프로": a last digit said apart from its tens, hundreds or thousands (not 일:
    # "삼십 일" is also thirty days)
    rf"|(?<=[{_KO_CHARS}][십백천]) (?=[이삼사오육칠팔구](?![가-힣]))"
    # "백 팔십 오", "천 이백": a smaller group said apart after a hundred or a thousand
    rf"|(?<=천) (?=[이삼사오육칠팔구]?[백십])|(?<=백) (?=[이삼사오육칠팔구]?십)"
    # the big unit said apart from its count, alone or before 원 ("이백 만 원", "삼십 만원"; not
    # "백 조금", a word that starts with the unit's syllable)
    rf"|(?<=[십백천]) (?=[만억조](?:원|(?![가-힣]))))*"
)

# Native Korean numerals: "세 명", "두 대", "열두 명", "시니어 둘".
NATIVE_NUMBERS = {
    "열다섯": 15, "열한": 11, "열하나": 11, "열두": 12, "열둘": 12, "열세": 13, "열셋": 13,
    "열네": 14, "열넷": 14, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "스무": 20,
    "스물": 20, "하나": 1, "한": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "열": 10,
}
# Tens and tens-plus-units ("마흔다섯 명", "서른두 대", "여든 명"), built rather than listed.
_NATIVE_TENS = {"열": 10, "스물": 20, "서른": 30, "마흔": 40, "쉰": 50, "예순": 60, "일흔": 70, "여든": 80, "아흔": 90}
_NATIVE_UNITS = {"한": 1, "하나": 1, "두": 2, "둘": 2, "세": 3, "셋": 3, "네": 4, "넷": 4, "다섯": 5, "여섯": 6,
                 "일곱": 7, "여덟": 8, "아홉": 9}
for _ten, _tv in _NATIVE_TENS.items():
    NATIVE_NUMBERS.setdefault(_ten, _tv)
    for _unit, _uv in _NATIVE_UNITS.items():
        NATIVE_NUMBERS.setdefault(_ten + _unit, _tv + _uv)

_EN_ONES = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_DIGIT_WORDS = frozenset(w for w, v in _EN_ONES.items() if v < 10)
_EN_SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}
EN_NUMBER_WORDS = frozenset(_EN_ONES) | frozenset(_EN_SCALES) | {"hundred", "point"}
# "and" joins number words only after a hundred or a scale ("a hundred and twenty"); "two and
# three" are two numbers.
_AND_AFTER = frozenset(_EN_SCALES) | {"hundred"}
_EN_TOKEN = re.compile(
    r"\$?\d{1,2}:\d{2}|\$?\d[\d,]*(?:\.\d+)?(?:%|[kKmMbB]\b)?|[A-Za-z]+(?:['’-][A-Za-z]+)*"
)
_SCALE_LETTERS = {"m": 10**6, "b": 10**9}


def parse_korean_number(run: str) -> float | None:
    """The value of a Korean number run ("2억 4천만" -> 240000000), or None when the run is
    not a well-formed number (units out of order, two digits in a row)."""
    total = 0.0
    section = 0.0
    current: float | None = None
    last_small = 10**5
    last_big = 10**13
    for token in re.findall(r"\d[\d,]*(?:\.\d+)?|\S", run):
        if token[0].isdigit():
            if current is not None:
                return None
            current = float(token.replace(",", ""))
        elif token in SINO_DIGITS:
            if current is not None:
                return None
            current = float(SINO_DIGITS[token])
        elif token in _SMALL_UNITS:
            unit = _SMALL_UNITS[token]
            if unit >= last_small:
                return None
            section += (1.0 if current is None else current) * unit
            current, last_small = None, unit
        elif token in _BIG_UNITS:
            unit = _BIG_UNITS[token]
            if unit >= last_big:
                return None
            section += current or 0.0
            total += (section or 1.0) * unit
            section, current, last_small, last_big = 0.0, None, 10**5, unit
        else:
            return None
    section += current or 0.0
    # Spoken shorthand: "2억 4천" and "이억 사천" mean 2억 4천만; the 만 is left unsaid.
    if last_big == 10**8 and 0 < section < 10**4:
        section *= 10**4
    return total + section


def is_plain_korean_run(run: str) -> bool:
    """A run written without digits must carry a unit and more than one character, so
    "일", "이", "만", "백" on their own (words, not numbers) are not read as numbers."""
    if any(c.isdigit() for c in run):
        return True
    compact = run.replace(" ", "")
    return len(compact) >= 2 and any(c in _UNIT_CHARS for c in compact)


def parse_english_words(words: list[str]) -> float | None:
    """The value of English number words (["twenty-five", "hundred"] -> 2500). A tens word
    after a smaller number stands for its hundreds, as said aloud ("two fifty" -> 250, "one
    forty" -> 140, "nineteen ninety-nine" -> 1999); decimals scale ("one point five million").
    Digits said one by one are a digit string ("four nine eight oh" -> 4980), and a digit after
    a compound is its decimal ("forty-two five" -> 42.5, the thousand left unsaid)."""
    parts: list[str] = []
    for word in words:
        parts.extend(p for p in word.lower().split("-") if p and p != "and")
    if not parts or parts[0] in {"hundred", "point", "oh"} | set(_EN_SCALES):
        return None
    total, current = 0.0, 0.0
    digit_string = True  # every part so far a digit: "four nine eight oh"
    hundreds_oh = False  # "nineteen oh five": the digit after "oh" is the last of four
    for i, part in enumerate(parts):
        if part == "oh" and 10 <= current < 100 and not digit_string and i + 1 < len(parts) \
                and parts[i + 1] in _DIGIT_WORDS and parts[i + 1] != "oh":
            current, hundreds_oh = current * 100, True
            continue
        if hundreds_oh:
            if part not in _DIGIT_WORDS:
                return None
            current += _EN_ONES.get(part, 0)
            hundreds_oh = False
            continue
        if i and _is_digit_word(parts[i - 1], after_digit=i > 1) and _is_digit_word(part, after_digit=True):
            if digit_string:
                current = current * 10 + _EN_ONES.get(part, 0)
            else:  # a digit after a compound is its decimal: "forty-two five" 42.5 (thousand), "ninety-nine nine"
                current += _EN_ONES.get(part, 0) / 10
            continue
        digit_string = digit_string and _is_digit_word(part)
        if part == "point":
            rest = parts[i + 1:]
            scale = _EN_SCALES.get(rest[-1], 1) if rest else 1
            digits = [_EN_ONES.get(p) for p in (rest[:-1] if scale > 1 else rest)]
            if not digits or any(d is None or d > 9 for d in digits):
                return None
            return total + (current + float("0." + "".join(str(d) for d in digits))) * scale
        if part in _EN_ONES:
            value = _EN_ONES[part]
            if 0 < current < 100 and value >= 10:  # "two fifty": the hundreds left unsaid
                current = current * 100 + value
            else:
                current += value
        elif part == "hundred":
            current = (current or 1) * 100
        elif part in _EN_SCALES:
            total += (current or 1) * _EN_SCALES[part]
            current = 0.0
        else:
            return None
    return total + current


def _digit_run(tokens: list[re.Match[str]], i: int) -> tuple[int, int, float]:
    """"$80,000", "5:30" (hours), "1.5M", "1.2 million": a number written in digits."""
    token = tokens[i].group(0)
    start, end = tokens[i].start(), tokens[i].start() + len(token.rstrip("%kK"))
    digits = token.lstrip("$").rstrip("%kK")
    if ":" in digits:
        hours, minutes = digits.split(":")
        return start, end, int(hours) + int(minutes) / 60
    scale = _SCALE_LETTERS.get(digits[-1].lower(), 1)
    number = float(digits.rstrip("mMbB").replace(",", "")) * scale
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if following is not None and following.group(0).lower() in _EN_SCALES \
            and following.start() - end <= 1:
        return start, following.end(), number * _EN_SCALES[following.group(0).lower()]
    return start, end, number


def english_number_runs(text: str) -> list[tuple[int, int, float]]:
    """(start, end, magnitude) of each number said in digits or words."""
    runs: list[tuple[int, int, float]] = []
    tokens = list(_EN_TOKEN.finditer(text))
    i = 0
    while i < len(tokens):
        token = tokens[i].group(0)
        if token[0] in "$0123456789":
            runs.append(_digit_run(tokens, i))
            i += 2 if runs[-1][1] > tokens[i].end() else 1
            continue
        # "a hundred thousand", "half a million": the article counts one (a half)
        article = _scaled_article(tokens, i)
        first = j = i + article
        while j < len(tokens) and _is_number_word(tokens[j].group(0), first=j == first,
                                                  before=tokens[j - 1].group(0) if j > first else "") \
                and not (tokens[j].group(0).lower() == "and" and tokens[j - 1].group(0).lower() not in _AND_AFTER):
            j += 1
        while j - first >= 2 and tokens[j - 1].group(0).lower() == "oh" \
                and not _is_digit_word(tokens[j - 2].group(0).lower()):
            j -= 1  # "twenty oh" with no digit after: the "oh" is no zero ("it was twenty, oh well")
        head = _number_head(token) if j == i else None
        if head is not None:  # "two-year", "three-month": the number before a unit
            runs.append((tokens[i].start(), tokens[i].start() + len(head), _head_value(head)))
            i += 1
            continue
        if j > i:
            if tokens[j - 1].group(0).lower() == "and":  # "a hundred and", the sentence going on
                j -= 1
            half = _and_a_half(tokens, j)  # "two and a half (million)"
            words = [t.group(0) for t in tokens[first:j]]
            if not article and _loose_range(words):
                runs.extend((t.start(), t.end(), float(_EN_ONES[t.group(0).lower()])) for t in tokens[first:j])
                i = j
                continue
            number = parse_english_words(["one"] + words if article else words)
            if number is not None and article == 2:
                number /= 2
            if number is not None and half:
                scale = _EN_SCALES.get(tokens[j + half - 1].group(0).lower(), 1)
                number, j = (number + 0.5) * scale, j + half
            if number is not None and (article or words not in (["one"], ["One"])):
                runs.append((tokens[i].start(), tokens[j - 1].end(), number))
            i = j
        else:
            i += 1
    return runs


def _and_a_half(tokens: list[re.Match[str]], j: int) -> int:
    """Tokens from `j` ("and") that add a half: 3 for "and a half", 4 with a scale word after it
    ("and a half million"), 0 when they are not there."""
    words = [t.group(0).lower() for t in tokens[j:j + 4]]
    if words[:3] != ["and", "a", "half"]:
        return 0
    return 4 if len(words) == 4 and words[3] in _EN_SCALES else 3


def _scaled_article(tokens: list[re.Match[str]], i: int) -> int:
    """How many tokens before the scale word stand for its count: 1 for "a"/"an" ("a hundred",
    "a million"), 2 for "half a" ("half a million"), 0 when the article counts nothing."""
    words = [t.group(0).lower() for t in tokens[i:i + 3]]
    scales = {"hundred", *_EN_SCALES}
    if len(words) >= 2 and words[0] in {"a", "an"} and words[1] in scales:
        return 1
    if len(words) == 3 and words[0] == "half" and words[1] == "a" and words[2] in scales:
        return 2
    return 0


def _number_head(token: str) -> str | None:
    parts = token.split("-")
    if len(parts) > 1 and all(p.lower() in EN_NUMBER_WORDS for p in parts[:-1]):
        return "-".join(parts[:-1])
    return None


def _head_value(head: str) -> float:
    return parse_english_words([head]) or 0.0


def _is_number_word(token: str, first: bool, before: str = "") -> bool:
    parts = token.lower().split("-")
    if not first and token.lower() == "and":
        return True
    if token.lower() == "oh":  # a zero among digits said one by one ("three oh two"), or after
        # a number from ten to ninety-nine, as a time or a year is said ("nineteen oh five")
        said = before.lower().split("-")
        tens = all(p in _EN_ONES for p in said) and 10 <= sum(_EN_ONES[p] for p in said) <= 99
        return _is_digit_word(before.lower()) or tens
    return all(p in EN_NUMBER_WORDS for p in parts)


def _is_digit_word(word: str, after_digit: bool = False) -> bool:
    """"zero" to "nine" ("oh" too after another digit): a number said digit by digit."""
    return word in _DIGIT_WORDS or (after_digit and word == "oh")


def _loose_range(words: list[str]) -> bool:
    """Two digits a step apart said together, "seven eight people": "seven or eight"."""
    if len(words) != 2 or not all(w.lower() in _DIGIT_WORDS for w in words):
        return False
    return _EN_ONES[words[1].lower()] == _EN_ONES[words[0].lower()] + 1
