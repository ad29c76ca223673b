"""The change pair model: P(this line changes that past decision), learned from the
`events_m2` labels of the decision series (explicit and implicit changes with the decision
they refer to are positives; restatements, distractors and every other decision are negatives).

A change is a new settled value of the same type for the same subject, differing from the
decision's value. The pair features say exactly that, each with its reason:
- the line settles (the live settle model's probability) and the decision was a firm one;
- value types: the line states a value of a type the decision has; the values agree (a
  restatement) or differ (a new value); the decision's value is cited as the old one;
- the subject: embedding cosine of the line (and of the two lines before it) with the
  decision, key-term overlap, and whether this decision is the line's closest;
- the subject of each value (`value_subjects`: the key terms of the sentence stating it):
  how much a line's value and a decision's value of the same type share it, when the values
  differ and when they agree -- a change gives the same subject a new value, however much else
  the two lines say (a misheard term, "lunch" for "launch", counts by its shared letter pairs);
- the line's stance: it points back ("지난주에", "we said"), changes, keeps, negates, supposes
  or asks;
- options: the line turns down ("A 대신", "instead of A") the option the decision chose, or one
  its line names; the line chooses another option than the decision's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import dropwhile, takewhile
from pathlib import Path

import numpy as np

from mithub.learn.estimator import LogisticModel, read_weights
from mithub.record.dates import names_now
from mithub.record.numbers import english_number_runs
from mithub.record.stance import (
    clause_is_conditional,
    clause_points_back,
    is_approximate,
    revokes,
    stance,
    value_is_rejected,
)
from mithub.record.values import Value, comparable, values_agree
from mithub.text import has_hangul, keyword_candidates, split_sentences
from mithub.text.korean import NEGATORS, tokens_with_offsets
from mithub.text.tokens import ENGLISH_STOPWORDS

PAIR_FILE = "change_pair.json"
_NOT_NAME_WORDS = frozenset(
    """okay yeah yes yep sure fine right alright great good perfect then well also and but because
    monday tuesday wednesday thursday friday saturday sunday january february march april june july
    august september october november december""".split())


@dataclass
class PastDecision:
    """A decision of an earlier meeting as the pair model sees it."""

    key: str
    text: str
    values: list[Value]
    vector: np.ndarray
    terms: set[str]
    confidence: float
    names: set[str] = field(default_factory=set)
    chosen: set[str] = field(default_factory=set)  # the option the decision chose (choice_phrases)
    value_terms: list[frozenset[str]] = field(default_factory=list)  # the subject of each value
    discussed: set[str] = field(default_factory=set)  # the key terms of the talk that led to it


@dataclass
class LineView:
    """A line of today's meeting as the pair model sees it."""

    text: str
    new_values: list[Value]  # stated, not supposed, estimated or pointed back at
    old_values: list[Value]  # pointed back at or turned down ("22일 말고", "we said two years")
    vector: np.ndarray
    context_vector: np.ndarray | None  # the two lines before
    terms: set[str]
    settle: float  # the live settle model's probability
    cues: dict[str, float]
    context_values: list[Value] = field(default_factory=list)  # new values of the two lines before
    names: set[str] = field(default_factory=set)
    chosen: set[str] = field(default_factory=set)
    rejected: set[str] = field(default_factory=set)
    value_terms: list[frozenset[str]] = field(default_factory=list)  # the subject of each new value
    called_off: frozenset[str] | None = None  # the key terms of what a sentence calls off (`called_off`)


_EN_CAPITAL = re.compile(r"(?<![\w'’])([A-Z][A-Za-z0-9-]{2,})")


def name_tokens(text: str) -> set[str]:
    """Names a line mentions (vendors, products, people, places): kiwi's proper nouns and
    Latin-script words in Korean; capitalised words that are not function or filler words in
    English, at a sentence start too ("Veritemp instead of Aldane")."""
    if has_hangul(text):
        from mithub.record.turn_features import korean_morphemes

        return {m.lower() for m, t in korean_morphemes(text) if t in {"NNP", "SL"} and len(m) >= 2}
    return {w.lower() for w in _EN_CAPITAL.findall(text)
            if w.lower() not in ENGLISH_STOPWORDS and w.lower() not in _NOT_NAME_WORDS}


_PHRASE_TAGS = frozenset({"NNG", "NNP", "SL", "SN", "SO", "XSN", "NR"})


# English prepositions of substitution: their object is the option turned down ("Veritemp
# instead of Aldane", "rather than the Starlite").
_EN_INSTEAD = re.compile(r"\b(?:instead\s+of|rather\s+than|in\s+place\s+of)\s+([^.,;:!?]+)", re.IGNORECASE)
_EN_DETERMINERS = frozenset({"the", "a", "an", "our", "their", "your", "my", "that", "this"})


def _english_turned_down(text: str) -> set[str]:
    """The objects of "instead of", "rather than", "in place of": a name runs over its
    capitalised words ("Mercy Street"), anything else is its first word."""
    out: set[str] = set()
    for sentence in split_sentences(text) or [text]:
        matches = list(_EN_INSTEAD.finditer(sentence))  # most lines have none: no stance read
        if not matches or not turns_down_now(sentence, text):
            continue
        for match in matches:
            words = list(dropwhile(lambda w: w.lower() in _EN_DETERMINERS, re.findall(r"[\w'’-]+", match.group(1))))
            if not words:
                continue
            phrase = [words[0], *takewhile(lambda w: w[0].isupper(), words[1:3])] if words[0][0].isupper() else words[:1]
            option = "".join(phrase).lower()
            if len(option) >= 2 and option not in ENGLISH_STOPWORDS:
                out.add(option)
    return out


# An English past verb after its subject: regular -ed, or an irregular past form.
_EN_PAST_VERB = re.compile(
    r"\b(?:i|we|you|they|he|she|it)\s+(?:\w+ly\s+)?(?:\w+ed|went|had|was|were|did|chose|took|got|made|said|"
    r"thought|bought|found|told|saw|gave|ran|kept|paid|sent|spent)\b", re.IGNORECASE)


_EN_NOW_VERB = re.compile(r"\b(?:will|let'?s|going|gonna|is|are|am|do|does|can|must|should|now)\b|['’](?:ll|s|re|m)\b",
                          re.IGNORECASE)


def _leaves_open(sentence: str) -> bool:
    st = stance(sentence)
    return st.question or st.hypothetical or st.hedged or st.reported


_PROPOSES = re.compile(r"\b(?:propos|suggest)|제안", re.IGNORECASE)


@lru_cache(maxsize=4096)
def _line_is_framed(line: str) -> bool:
    """A sentence of the line opens the whole line to discussion: it asks, supposes or
    proposes ("So what I'd propose is we slide the whole thing a week."); a hedge or a reason
    does not ("…안 된다고 해서요.", "원래는 …였는데,")."""
    return any((st := stance(s)).question or st.hypothetical or bool(_PROPOSES.search(s))
               for s in split_sentences(line) or [line])


def turns_down_now(sentence: str, line: str) -> bool:
    """A sentence whose "instead of" or "대신" turns an option down now: it neither asks,
    supposes, hedges nor reports someone else's plan, no sentence of its line asks, supposes or
    proposes ("So what I'd propose is we slide a week. Instead of the nineteenth we start the
    twenty-sixth." is a proposal; "크리에이터랩이 일정이 안 된다고 해서요. 크리에이터랩 대신
    모먼트캐스트로 갑시다." gives a reason), and it is not `told_in_past` ("Last year we used
    Greenleaf instead of Bluefern", "작년엔 한빛렌탈 대신 대성렌탈 썼었죠" turn nothing down)."""
    return not (_leaves_open(sentence) or _line_is_framed(line) or told_in_past(sentence))


_WITH = frozenset({"와", "과", "랑", "이랑", "하고"})  # the party a choice is made with ("A랑 하는 걸로")
_BETWEEN = frozenset({"NNG", "MAG", "NNB", "JX"})  # "셀트론 코리아로 오늘 발주 넣을게요", "한빛관광으로만 가죠"


def _verb_follows(morphs: Sequence, i: int, reach: int) -> bool:
    """A verb closes the argument at `i` within `reach` morphemes, across nouns, adverbs and
    auxiliary particles only, and not negated ("대성중기로는 안 가요" chooses nothing)."""
    for t in morphs[i + 1:i + 1 + reach]:
        if t.tag in {"VV", "XSV"}:
            return True
        if t.tag not in _BETWEEN or (t.form, t.tag) in NEGATORS:
            return False
    return False


def choice_phrases(text: str) -> tuple[set[str], set[str]]:
    """(options chosen, options turned down) of a line; an option is turned down only by a
    sentence that `turns_down_now`. English: only the options turned down, the objects of the
    prepositions of substitution (`_english_turned_down`). Korean, by kiwi tags: the noun phrase
    a verb takes as its goal ("코드링크 CL-9로 갈게요"), as the party the choice is made with
    ("모먼트캐스트랑 하는 걸로") is chosen, not its subject ("순서가 맞겠네요"), unless that
    verb is the past one the line points back at, as a value's is (`stance.clause_points_back`):
    that option was chosen before, and is turned down now only when its sentence calls it off or
    changes it ("다온손해보험으로 하기로 했던 여행자 보험은 취소할게요"; not "…하기로 했던 보험, 서류는 다
    받으셨어요?"). The one before 대신/말고 is turned down ("스캔메이트 대신", "둔치 말고").
    Joined without spaces, so kiwi's splits do not matter."""
    if not has_hangul(text):
        return set(), _english_turned_down(text)
    chosen: set[str] = set()
    rejected: set[str] = set()
    for sentence in split_sentences(text) or [text]:
        morphs = tokens_with_offsets(sentence)
        for i, (form, tag, _, _) in enumerate(morphs):
            choose = tag == "JKB" and (form in {"로", "으로"} and _verb_follows(morphs, i, 4)
                                       or form in _WITH and _verb_follows(morphs, i, 3))
            reject = (form, tag) == ("대신", "NNG") or (form == "말" and tag in {"VV", "VX"} and
                                                       i + 1 < len(morphs) and morphs[i + 1].form == "고")
            if not (choose or reject):
                continue
            k = i
            while k > 0 and morphs[k - 1].tag in _PHRASE_TAGS and morphs[k - 1].form != "대신":
                k -= 1
            phrase = "".join(t.form for t in morphs[k:i]).lower()
            if len(phrase) < 2:
                continue
            if not choose:
                if turns_down_now(sentence, text):
                    rejected.add(phrase)
            elif not clause_points_back(sentence, morphs[i - 1].end):
                chosen.add(phrase)
            elif (revokes(sentence) or stance(sentence).changes) and turns_down_now(sentence, text):
                rejected.add(phrase)
    return chosen, rejected


def _same_option(a: str, b: str) -> bool:
    short, long = sorted((a, b), key=len)
    return short == long or (len(short) >= 2 and (long.startswith(short) or long.endswith(short)))


@lru_cache(maxsize=4096)
def _compact(text: str) -> str:
    return re.sub(r"\s+", "", text.lower())


@lru_cache(maxsize=4096)
def _word_runs(text: str) -> frozenset[str]:
    words = [w.lower() for w in re.findall(r"[\w'’-]+", text)]
    return frozenset("".join(words[i:i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1))


@lru_cache(maxsize=4096)
def _turned_down(text: str) -> frozenset[str]:
    return frozenset(choice_phrases(text)[1])


def names_option(decision: str, option: str) -> bool:
    """The decision's line names the option, and not as one it turned down itself: "스캔메이트
    대신" turns down the decision "스캐너는 스캔메이트 SM-40으로 … 구매하겠습니다", "Veritemp
    instead of Aldane" the decision "Aldane, …". Korean: the option is in the line, spaces aside
    (as `choice_phrases` joins it; kiwi splits a name differently in other contexts, "한솥푸드로"
    as 한 + 솥푸드); English: a run of one to three of its words begins or ends with it, or, for
    a number ("instead of nine"), is it: "eight" begins "eighty" and names no "one eighty"."""
    if has_hangul(decision):
        named = option in _compact(decision)
    elif english_number_runs(option):  # a number said in words or digits
        named = option in _word_runs(decision)
    else:
        named = any(r.startswith(option) or r.endswith(option) for r in _word_runs(decision))
    return named and not any(_same_option(option, r) for r in _turned_down(decision))


def key_terms(text: str) -> set[str]:
    return {t.lower() for t in keyword_candidates(text) if not any(c.isdigit() for c in t)}


# A terse decision says its subject in the talk before it, not in its own line ("So it's Keyframe,
# or Bravo with a headache. Keyframe. Done.", "한빛으로 가. 세 대."): the lines since the last
# decision users see and the one after, at most DISCUSSION_BEFORE lines back (about a topic's
# length in the benchmark's series, 10 lines). A decision whose line has more key terms than
# TERSE_TERMS names its subject itself and is read by its own words: the talk before a summary
# ("보안 쪽 정리할게요. 감사 로그 …") covers other subjects too. Both chosen by leave-one-series-out
# over the benchmark's and the project's series (RESULTS.md, session 30).
DISCUSSION_BEFORE = 12
TERSE_TERMS = 8


def discussed_terms(lines: Mapping[int, str], at: int, after: int) -> list[str]:
    """The key terms, sorted (stored with the decision), of the talk that led to the decision
    on line `at`: the lines after `after` (the decision shown before it), at most
    DISCUSSION_BEFORE back, to the line after it; `lines` holds the meeting's lines by number."""
    talk = (lines[k] for k in range(max(at - DISCUSSION_BEFORE, after + 1), at + 2) if k in lines)
    return sorted(set().union(*(key_terms(t) for t in talk)))


@lru_cache(maxsize=4096)
def _sentence_terms(sentence: str) -> frozenset[str]:
    return frozenset(key_terms(sentence))


_PAST_ENDINGS = frozenset({"었", "았", "였", "ㅆ", "었었", "았었"})
_PREDICATE_TAGS = frozenset({"VV", "VA", "VX", "VCP", "XSV", "XSA"})


@lru_cache(maxsize=4096)
def reports_past(sentence: str) -> bool:
    """A Korean sentence whose main (last) predicate takes the past -었-/-았- (or -었었-) as its
    last pre-final ending (kiwi EP): it tells what happened ("비교표 공유드렸어요", "대성렌탈
    썼었죠"), while "22일로 정했던 베타는 8월 5일로 미루겠습니다" ends in -겠- and "…하기로 했던
    여행자 보험은 취소할게요" has no past on its main verb (its past is the adnominal's). English
    sentences are not judged (no tagger here)."""
    if not has_hangul(sentence):
        return False
    from mithub.record.turn_features import korean_morphemes
    from mithub.text.korean import ending_form

    morphs = korean_morphemes(sentence)
    main = max((i for i, (_, t) in enumerate(morphs) if t in _PREDICATE_TAGS), default=None)
    if main is None:
        return False
    endings = [ending_form(m) for m, t in morphs[main + 1:] if t == "EP"]
    return bool(endings) and endings[-1] in _PAST_ENDINGS


def value_subjects(text: str, values: Sequence[Value]) -> list[frozenset[str]]:
    """The subject of each value: the key terms of the sentence that states it, less the
    value's own words ("단기 인력은 마흔다섯 명으로" -> {단기, 인력}). A change gives a new value
    to the same subject, so two values are about the same thing when their sentences share
    terms, whatever else the two lines talk about."""
    spans = []
    offset = 0
    for sentence in split_sentences(text) or [text]:
        start = text.find(sentence, offset)
        start = offset if start < 0 else start
        spans.append((start, start + len(sentence), sentence))
        offset = start + len(sentence)
    out = []
    for v in values:
        sentence = next((s for a, b, s in spans if a <= v.start < b), text)
        own = v.text.lower()
        out.append(frozenset(t for t in _sentence_terms(sentence) if t not in own))
    return out


# A date that names its day (digits, "칠월 이십이 일", "the seventh") is no relative date.
_NAMES_A_DAY = re.compile(r"\d|[일이삼사오육칠팔구십]\s*일(?!요)|\b(?:first|second|third|\w+th|twenty\w*|thirty\w*)\b",
                          re.IGNORECASE)


def split_values(text: str, values: Sequence[Value]) -> tuple[list[Value], list[Value]]:
    """(new values, old values) of a line, sentence by sentence (record/stance.py's clause cues).
    A relative date told in the past ("금요일에 공유드렸어요") is neither: it was resolved
    forward from today, which the past-tense verb contradicts. The values of a sentence that
    calls something off are old: they name what is called off."""
    new: list[Value] = []
    old: list[Value] = []
    offset = 0
    for sentence in split_sentences(text) or [text]:
        start = text.find(sentence, offset)
        start = offset if start < 0 else start
        end = start + len(sentence)
        offset = end
        # "예비비 8퍼센트는 없던 걸로": a value of a sentence that calls it off is the old one
        off = any(start <= v.start < end for v in values) and revokes(sentence)
        for v in values:
            if not start <= v.start < end or names_now(v.text):
                continue
            if v.kind == "date" and not _NAMES_A_DAY.search(v.text) and reports_past(sentence):
                continue
            local = replace(v, start=v.start - start, end=v.end - start)
            if off or clause_points_back(sentence, local.end) or value_is_rejected(sentence, local):
                old.append(v)
            elif not clause_is_conditional(sentence, local.end) and not is_approximate(sentence, local):
                new.append(v)
    return new, old


def proposed_values(text: str, values: Sequence[Value]) -> list[Value]:
    """The values a proposal puts on the table: those it states, supposes or estimates ("베타
    참가자를 300명으로 줄이면 어떨까요?", "maybe sixty K"), not those it points back at or
    turns down, nor "today"."""
    old = split_values(text, values)[1]
    return [v for v in values if v not in old and not names_now(v.text)]


def puts_on_table(text: str, values: Sequence[Value]) -> bool:
    """A line a later agreement can adopt: it proposes a value or an option, or calls something off."""
    return bool(proposed_values(text, values) or choice_phrases(text)[0] or called_off(text) is not None)


def adopted(proposal: LineView, text: str, values: Sequence[Value], settle: float) -> LineView:
    """A proposal as the agreement that adopts it makes it: its values on the table, settled
    with the agreement's settle probability, no longer asked, hedged or supposed."""
    new = proposed_values(text, values)
    cues = {**proposal.cues, "line_question": 0.0, "line_hedged": 0.0, "line_hypothetical": 0.0}
    return replace(proposal, new_values=new, settle=settle, cues=cues, value_terms=value_subjects(text, new))


def called_off(text: str) -> frozenset[str] | None:
    """What the line calls off (`stance.revokes`): the key terms of the sentences that do (of
    the whole line when they have none: "그거 안 하겠습니다"), or None when it calls nothing off."""
    sentences = [s for s in split_sentences(text) or [text] if revokes(s)]
    if not sentences:
        return None
    return frozenset().union(*(_sentence_terms(s) for s in sentences)) or frozenset(key_terms(text))


def told_in_past(sentence: str) -> bool:
    """A sentence that tells what happened and settles nothing: Korean, its main verb is past
    (`reports_past`); English, a subject and a past verb ("Last year we used …") and no verb of
    the present or the future ("we said two years, we're going to three" is about now)."""
    if has_hangul(sentence):
        return reports_past(sentence)
    return bool(_EN_PAST_VERB.search(sentence)) and not _EN_NOW_VERB.search(sentence)


def line_cues(text: str) -> dict[str, float]:
    sentences = split_sentences(text) or [text]
    cues = [stance(s) for s in sentences]
    out = {f"line_{n}": float(any(getattr(c, n) for c in cues))
           for n in ("points_back", "changes", "keeps", "negated", "hypothetical", "question", "hedged", "reported")}
    out["line_told_past"] = float(all(told_in_past(s) for s in sentences))
    return out


def _cos(a: np.ndarray | None, b: np.ndarray) -> float:
    if a is None:
        return 0.0
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else 0.0


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / math.sqrt(len(a) * len(b)) if a and b else 0.0


def pair_features(line: LineView, past: Sequence[PastDecision]) -> list[dict[str, float]]:
    """One feature dict per past decision."""
    cosines = [_cos(line.vector, d.vector) for d in past]
    overlaps = [_overlap(line.terms, d.terms) for d in past]
    # the share of the line's terms (and the two lines' before it) said in the talk that led to a terse decision
    talk = [d.discussed if d.discussed and len(d.terms) <= TERSE_TERMS else d.terms for d in past]
    discussed = [len(line.terms & t) / len(line.terms) if line.terms else 0.0 for t in talk]
    rows = []
    for i, d in enumerate(past):
        comp = [(v, w) for v in line.new_values for w in d.values if comparable(v, w)]
        differs = any(not any(values_agree(v, w) for w in d.values if comparable(v, w)) for v, _ in comp)
        cited = any(values_agree(o, w) for o in line.old_values for w in d.values)
        # "we said Sentrova last week, we'll be using LogHaven": the line's own old value is the
        # decision's and its new one differs from it, whatever else the decision's line named
        switched = any(comparable(o, v) and not values_agree(o, v)
                       and any(values_agree(o, w) for w in d.values)
                       for o in line.old_values for v in line.new_values)
        differs = differs or switched
        agree = not switched and any(values_agree(v, w) for v, w in comp)
        names = any(v.kind in {"name", "person"} for v, _ in comp)
        others = [c for j, c in enumerate(cosines) if j != i]
        other_overlaps = [o for j, o in enumerate(overlaps) if j != i]
        other_discussed = [o for j, o in enumerate(discussed) if j != i]
        ctx = [(v, w) for v in line.context_values for w in d.values if comparable(v, w)]
        ctx_differs = any(not any(values_agree(v, w) for w in d.values if comparable(v, w)) for v, _ in ctx)
        name_cited = bool(line.names & d.names)
        name_new = bool(d.names) and bool(line.names - d.names)
        subject = _value_subjects(line, d)
        old_choice = any(_same_option(a, b) for a in line.rejected for b in d.chosen)
        old_option = any(names_option(d.text, a) for a in line.rejected)
        same_choice = any(_same_option(a, b) for a in line.chosen for b in d.chosen)
        # A cancellation is a change, with "none" as the subject's new value: the line calls off
        # what it points back at, or names this decision's choice, name or value.
        cancels = line.called_off is not None and bool(line.cues.get("line_points_back") or name_cited or same_choice
                                                       or old_choice or cited)
        if cancels:  # what is called off is the subject of the decision's values (or the decision's)
            about = [_soft_overlap(line.called_off, t) for t in d.value_terms or [frozenset(d.terms)]]
            subject = (max(subject[0], *about), subject[1])
        differs = differs or cancels
        differ_only = float(differs and not agree)
        f = {
            "settle": line.settle, "decision_confidence": d.confidence,
            "context_type_match": float(bool(ctx)), "context_values_differ": float(ctx_differs),
            "choice_turned_down": float(old_choice), "option_turned_down": float(old_option),
            "choice_other": float(bool(line.chosen and d.chosen) and not same_choice), "choice_same": float(same_choice),
            "name_cited": float(name_cited), "name_new": float(name_new), "name_swap": float(name_cited and name_new),
            "differ_x_cosine": differ_only * cosines[i], "differ_x_settle": differ_only * line.settle,
            "context_differ_x_settle": float(ctx_differs and not comp) * line.settle,
            "settle_x_cosine": line.settle * cosines[i], "name_new_x_cosine": float(name_new) * cosines[i],
            "type_match": float(bool(comp) or cancels), "values_agree": float(agree), "values_differ": float(differs),
            "differ_only": differ_only, "old_value_cited": float(cited), "name_values": float(names),
            "line_has_values": float(bool(line.new_values)), "decision_has_values": float(bool(d.values)),
            "cosine": cosines[i], "cosine_margin": cosines[i] - (max(others) if others else 0.0),
            "closest": float(not others or cosines[i] >= max(others)),
            "context_cosine": _cos(line.context_vector, d.vector),
            "subject_differ": subject[0], "subject_agree": subject[1],
            "overlap": overlaps[i], "overlap_margin": overlaps[i] - (max(other_overlaps) if other_overlaps else 0.0),
            "discussed": discussed[i],
            "discussed_margin": discussed[i] - (max(other_discussed) if other_discussed else 0.0),
        }
        f.update(line.cues)
        rows.append(f)
    return rows


@lru_cache(maxsize=65536)
def _bigrams(term: str) -> frozenset[str]:
    padded = f"^{term}$"
    return frozenset(padded[i:i + 2] for i in range(len(padded) - 1))


def _term_similarity(a: str, b: str) -> float:
    """1 for the same term; the Dice overlap of their letter pairs when most are shared (a word
    misheard by speech recognition, "lunch" for "launch"); else 0."""
    if a == b:
        return 1.0
    x, y = _bigrams(a), _bigrams(b)
    dice = 2 * len(x & y) / (len(x) + len(y))
    return dice if dice >= 0.5 else 0.0


def _soft_overlap(a: frozenset[str], b: frozenset[str]) -> float:
    """`_overlap` with near-identical terms counted by their similarity."""
    if not a or not b:
        return 0.0
    shared = sum(max(_term_similarity(x, y) for y in b) for x in a)
    return shared / math.sqrt(len(a) * len(b))


def _value_subjects(line: LineView, d: PastDecision) -> tuple[float, float]:
    """Subject overlap of the line's values with the decision's values of the same type:
    (pairs whose values differ, pairs whose values agree)."""
    differ = agree = 0.0
    for v, vt in zip(line.new_values, line.value_terms, strict=False):
        for w, wt in zip(d.values, d.value_terms, strict=False):
            if not comparable(v, w):
                continue
            o = _soft_overlap(vt, wt)
            if values_agree(v, w):
                agree = max(agree, o)
            else:
                differ = max(differ, o)
    return differ, agree


PAIR_FEATURES = list(pair_features(
    LineView("", [], [], np.zeros(1), None, set(), 0.0, line_cues("x")),
    [PastDecision("", "", [], np.zeros(1), set(), 0.0)])[0])


def plausible(row: dict[str, float]) -> bool:
    """A pair worth weighing: the line (or the two before it) states a value of the decision's
    type, names something, or negates (a cancellation). Other pairs are no change (probability
    0), and the model is fitted on plausible pairs only, so it learns to tell those apart."""
    return bool(row["type_match"] or row["context_type_match"] or row["name_new"] or row["name_cited"]
                or row["line_negated"] or row["choice_turned_down"] or row["option_turned_down"]
                or row["choice_other"])


class PairModel:
    """A fitted pair model and the threshold above which a change is announced."""

    def __init__(self, estimator: LogisticModel, threshold: float, floor: float) -> None:
        self.estimator = estimator
        self.threshold = threshold
        self.floor = floor

    def probabilities(self, line: LineView, past: Sequence[PastDecision]) -> np.ndarray:
        if not past:
            return np.zeros(0)
        rows = pair_features(line, past)
        X = np.asarray([[r[n] for n in self.estimator.feature_names] for r in rows], dtype=np.float64)
        gate = np.asarray([plausible(r) for r in rows], dtype=np.float64)
        return self.estimator.predict_proba(X) * gate

    def to_dict(self) -> dict:
        data = self.estimator.to_dict()
        data["meta"] = {**data.get("meta", {}), "threshold": self.threshold, "floor": self.floor}
        return data

    @classmethod
    def from_dict(cls, data: dict) -> PairModel:
        estimator = LogisticModel.from_dict(data)
        if estimator.feature_names != PAIR_FEATURES:
            raise ValueError("fitted on other pair features")
        return cls(estimator, float(estimator.meta["threshold"]), float(estimator.meta["floor"]))


def load_pair_model(path: Path) -> PairModel:
    from mithub.record.settle_model import REBUILD

    return read_weights(path, PairModel.from_dict, what="change model", rebuild=REBUILD)


@lru_cache(maxsize=4)
def _cached(path: str, stamp: float) -> PairModel:
    return load_pair_model(Path(path))


def pair_model(folder: Path | None = None) -> PairModel:
    from mithub.record.settle_model import WEIGHTS

    path = (folder or WEIGHTS) / PAIR_FILE
    try:
        stamp = path.stat().st_mtime
    except OSError:
        stamp = -1.0
    return _cached(str(path), stamp)
