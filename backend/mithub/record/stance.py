"""How a sentence holds what it says: settled, proposed, hypothetical, rejected, asked, or
reported as someone else's plan. Decisions and change detection read the same cues.

Korean and English cue patterns; no names or values of any meeting.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from mithub.record.values import Value
from mithub.text.korean import (
    CONDITIONAL_ENDING,
    NEGATORS,
    PROPOSITIVE_ENDINGS,
    VOLITIONAL_ENDINGS,
    ending_form,
    tokens_with_offsets,
)

# A settling verb: "으로 하겠습니다", "걸로 하죠", "확정", "let's go with", "final", "we launch".
_KO_SETTLE = re.compile(
    r"확정|결정(?:하|합|했|입니다)|하기로\s*(?:하|합)|기로\s*했습니다"
    r"|(?:으로|로|걸로|거로|것으로)\s*(?:하|할|합|해|가|갈|갑|정하|정할|묶|잡|올리|내리|당기|미루|밀|바꾸|변경|늘리|늘려|줄이|줄여|연장|단축|조정|정리하|정리할|맞추|맞춰|픽스|바뀌|바뀐|변경됐|변경되)"
    r"|(?:하|가|열|시작하|배정하|진행하|배포하|의무화하|올리|내리|당기|미루|바꾸|변경하|사)(?:겠습니다|겠어요|죠|시죠|자고요)"
    r"|(?:시작합니다|진행합니다|갑니다|나갑니다|엽니다|오픈합니다)(?=\W*$)|(?:제가|저희가)\s*(?:할게요|하겠습니다|맡)|맡(?:는|아|기로)"
    r"|사죠|(?:그대로|대로)\s*(?:가|갑|하|유지)|(?:걸로|거로)(?![는도])"
)
_EN_SETTLE = re.compile(
    r"\blet'?s\b(?! (?:see|think|talk|discuss|figure|check|look|revisit|park|circle|come back|start|move on|wrap|hear|get into))|\bwe(?:'ll| will) go with\b|\bgoing with\b|\bfinal (?:answer|decision|call)\b|\bthat'?s final\b|, final\b"
    r"|\bagreed\b|\bdecided\b|\bsettled\b|\bthat works\b|\bfixed\b|\blocked\b|\bwe require\b|\bmust-have\b"
    r"|\bowns?\b|\bis the pick\b|\bwe(?:'re| are) going (?:to|with)\b|\bmoves? to\b|\bwe launch\b|\bdropping\b"
    r"|\b(?:so|okay|ok|then)\b.*(?:\b(?:is|are)\b|\w['’]s\b(?! been))|\bthen\W*$|\binstead\b|\bwe'?ll (?:do|use|keep|run)\b"
    r"|\b(?:switch|chang|mov|push|bump|cut|rais|lower|extend|reduc|increas|shift)\w*\b(?! on\b)[^.,]{0,25}\bto\b(?!\s+(?:be|do|have|get|make|go|see|the\s+next)\b)"
    r"|\bnow (?:is|are)\b|\b(?:is|are) now\b|\bnow\W*$|\b(?:goes|went) (?:up |down )?to\b|\bwill be\b|'ll be\b"
    r"|\bwe(?:'re| are) (?:hiring|moving|launching|shipping|using|switching|going|doing|keeping|capping|setting"
    r"|pushing|dropping|raising|lowering|cutting|adding|signing|picking)\b"
    r"|\bwe(?:'ll| will) (?!(?:see|think|talk|discuss|figure|check|look|revisit|need|probably|maybe|have to|try)\b)|\bit is\W*$|\bsounds good\b|\bdeal\b|\bdone\W*$",
    re.IGNORECASE,
)
_KO_STATES = re.compile(r"[가-힣A-Za-z0-9]+(?:은|는)\s[^.?!]*[0-9가-힣%]\s?(?:입니다|이에요|예요|이고요)\W*$")
_OPENING = re.compile(r"^\W*(?:okay|ok|alright|fine|good|great|makes sense|perfect|so|sounds good|deal)\b", re.IGNORECASE)

# Proposals and hedges: the value is on the table, not settled.
_KO_HEDGE = re.compile(
    r"것 같|거 같|할까|어때|어떨|좋겠|싶|할지|인지|일지|수도 있|가능(?:은|하긴)|긴 해|긴 한데|는데(?:요)?\W*$"
    r"|추천|제안|원래|정도면|예상|게 좋|는 게 나|생각했|생각하고|생각 중|라고|다고|보류|미정|보고\s*(?:정|결정)|긴 하|대요\W*$|알아보|검토\s*중|검토하고|고민\s*중"
    r"|해야|돼야|되어야|[어아]야\s*(?:해요|합니다|돼요|됩니다|하거든요)\W*$|다음\s*(?:주|번|회의)에?\s*(?:같이\s*)?(?:정하|결정|얘기|논의)|나중에"
)
_EN_HEDGE = re.compile(
    r"\b(?:maybe|might|could|would|should we|how about|what about|was thinking|i think|i'd|suggest|propose"
    r"|probably|guess|options|feels?|seems?|more like|looks like|revisit|close (?:that|this|it) out|pick (?:that|this|it) (?:back )?up|come back to|option \w+ (?:is|was|would)|versus|vs|or|offered|figure (?:that |it )?out|next week too)\b",
    re.IGNORECASE,
)
# Hypotheticals: a condition ("-면", "만약", "if") other than "-면 돼요" (it is enough to).
# A request on the table ("요청드렸어요", "asked for"): a proposal for a decision, a firm
# statement for a change ("…하는 걸로 업체에 요청드렸어요").
_KO_REQUEST = re.compile(r"요청(?:드렸|했|하신)")
_EN_REQUEST = re.compile(r"\b(?:asked for|requested)\b", re.IGNORECASE)
_KO_IF = re.compile(r"만약|만일|혹시|면(?!서|\s*(?:되|돼|됩))|다면|라면|경우에?(?:는)?")
_EN_IF = re.compile(r"\bif\b|\bin case\b|\bunless\b|\bfallback\b|\bwhat if\b|\bsuppose\b", re.IGNORECASE)
# Rejected options and negations: "안 하기로 했잖아요", "안 하는 걸로", "not happening".
_KO_NOT = re.compile(r"(?<![가-힣])안\s*(?:하|가|되|돼|쓰|받|할)|안\s+내|않|아니|말고|없던|생각\s*안|못\s*(?:하|해)|안\s*됩|기각")
_EN_NOT = re.compile(r"\bnot\b|n't\b|\bno longer\b|\bruled out\b|\bdropped\b|\brejected\b", re.IGNORECASE)
# Someone else's plan, reported ("…하기로 했어요", "they decided"), not settled by this team.
_KO_REPORTED = re.compile(r"(?:하기로|기로)\s*했(?:어요|대요|답니다|다고|다네요|더라고요)|한대요|했대요|한다고\s*(?:했|하더)")
_KO_WE = re.compile(r"저희|우리|제가")
_EN_REPORTED = re.compile(
    r"\b(?:they|he|she)(?:'ll|'re|'d)?\s+(?:only\s+)?(?:decided|said|want|plan|are going|will|would|do|offered)\b"
    r"|\bthey'll\b|\bthey'd\b",
    re.IGNORECASE,
)
# The sentence points back at an earlier decision: "지난주에 …로 정했던", "last week we said".
_KO_PAST = re.compile(
    r"지난(?:주|번|\s*회의|달)|저번|전에\s*(?:정|얘기)|(?:정|잡|묶|하|말씀하|얘기하)(?:았|었|였|셨)?던|했던|정한|잡은|원래"
)
_EN_PAST = re.compile(
    r"\blast (?:week|time|meeting)\b|\bwe(?:'d| had)? (?:said|agreed|decided|landed on|picked|settled on)\b"
    r"|\bpreviously\b|\boriginally\b|\bthe date we picked\b|\binstead\b|\bno longer\b|\banymore\b",
    re.IGNORECASE,
)
_KO_CHANGE = re.compile(r"변경|바꾸|바꿔|바뀌|미루|밀어|밀게|당기|올리|내리|늘리|줄이|조정|대신")
_EN_CHANGE = re.compile(
    r"\bchang|\bmov(?:e|es|ing) (?:to|it)\b|\bpush|\bdrop|\bbump|\braise|\blower|\bcut\b|\binstead\b|\bswitch",
    re.IGNORECASE,
)
_KO_SAME = re.compile(r"그대로|(?:번|한|던|신|획|정)\s?대로|지금처럼|변함|유지|계속")
_EN_SAME = re.compile(r"\bstill\b|\bas planned\b|\bunchanged\b|\bsame\b|\bremains?\b|\bon track\b", re.IGNORECASE)


def _korean_settles(text: str) -> bool:
    """A settling form that is not itself the condition of a "-면" clause ("자동으로 내리면")."""
    for match in _KO_SETTLE.finditer(text):
        rest = text[match.end():]
        word_rest = re.match(r"[가-힣]*", rest).group(0)  # type: ignore[union-attr]
        enough = re.match(r"\s*(?:되|돼|됩)", rest[len(word_rest):]) is not None  # "-면 돼요": it is enough to
        ongoing = word_rest.endswith("고") and re.match(r"\s*있", rest[len(word_rest):]) is not None
        if ongoing:
            continue  # "자동으로 내리고 있어요": a status report, not a decision
        if enough or not re.search(r"면$|다면$", word_rest):
            return True
    return False


# Spoken contractions as transcripts and speech recognition write them: "we're gonna go with".
# Only these cues read them in full: in the action features "I'm gonna" read as "I'm going to"
# takes "I'm gonna show you" (said for the meeting itself) for a commitment (RESULTS, session 34).
_SPOKEN_EN_FULL = {"gonna": "going to", "wanna": "want to", "gotta": "got to"}
_SPOKEN_EN = re.compile(r"\b(?:gonna|wanna|gotta)\b", re.IGNORECASE)


def is_korean(text: str) -> bool:
    return re.search(r"[가-힣]", text) is not None


@dataclass(frozen=True)
class Stance:
    """The cues of one sentence. `settles` is a settling form, `opening` an agreement word
    at the start ("Okay, …"), the rest say why a value in it is not a new decision."""

    settles: bool
    states: bool  # a plain statement of a value about a topic ("모집 인원은 300명입니다")
    opening: bool
    hedged: bool
    requested: bool
    hypothetical: bool
    negated: bool
    question: bool
    reported: bool
    points_back: bool
    changes: bool
    keeps: bool


def stance(sentence: str) -> Stance:
    korean = is_korean(sentence)
    text = sentence.strip()
    if korean:
        reported = bool(_KO_REPORTED.search(text)) and not _KO_WE.search(text)
        return Stance(
            settles=_korean_settles(text), states=bool(_KO_STATES.search(text)), opening=bool(re.match(r"^\W*(?:네|그럼|좋아요|그러면)", text)),
            hedged=bool(_KO_HEDGE.search(text)), requested=bool(_KO_REQUEST.search(text)), hypothetical=bool(_KO_IF.search(text)),
            negated=bool(_KO_NOT.search(text)), question=text.endswith("?"), reported=reported,
            points_back=bool(_KO_PAST.search(text)), changes=bool(_KO_CHANGE.search(text)),
            keeps=bool(_KO_SAME.search(text)),
        )
    text = _SPOKEN_EN.sub(lambda m: _SPOKEN_EN_FULL[m.group(0).lower()], text)
    return Stance(
        settles=bool(_EN_SETTLE.search(text)), states=False, opening=bool(_OPENING.search(text)),
        hedged=bool(_EN_HEDGE.search(text)), requested=bool(_EN_REQUEST.search(text)), hypothetical=bool(_EN_IF.search(text)),
        negated=bool(_EN_NOT.search(text)), question=text.endswith("?"),
        reported=bool(_EN_REPORTED.search(text)), points_back=bool(_EN_PAST.search(text)),
        changes=bool(_EN_CHANGE.search(text)), keeps=bool(_EN_SAME.search(text)),
    )


def clause_is_conditional(sentence: str, value_end: int) -> bool:
    """Whether the clause a value sits in is a condition: the words after the value up to
    the next comma end in "-면" ("8시로 당기면", "if it slips")."""
    rest = sentence[value_end:]
    clause = re.split(r"[,，.]|\s(?:그럼|그러면|then)\s", rest, maxsplit=1)[0]
    if is_korean(sentence):
        return re.search(r"면(?!서|\s*(?:되|돼|됩))(?:\s|$)|다면|라면", clause) is not None
    head = sentence[:value_end]
    last_comma = max(head.rfind(","), head.rfind(";"))
    return _EN_IF.search(head[last_comma + 1:]) is not None


def clause_points_back(sentence: str, value_end: int) -> bool:
    """Whether a value is the old one being referred to: "60%로 정했던", "we said two years".
    Besides the verbs below, by grammar: in Korean the value's predicate is a past adnominal
    ("19일로 못 박았던 출간일", "모아로 가기로 한 거"; a bare -ㄴ adnominal only when the sentence
    points to an earlier time: "23일로 미룬 일정" is the new date); in English the value's clause
    speaks of an earlier time ("the one forty we said last week, it's one sixty now")."""
    after = sentence[value_end:value_end + 16]
    if is_korean(sentence):
        if re.match(r"\s?(?:으?로|에|을|를|이|가)?\s?(?:[가-힣]+\s)?(?:정했|잡았|묶자고\s*했|정한|했던|잡은|하기로\s*했)", after):
            return True
        return _ko_past_adnominal(sentence, value_end)
    before = sentence[max(0, value_end - 60):value_end]
    if re.search(r"\b(?:said|had|landed on|picked|agreed on|was|were)\b[^.,;]*$", before, re.IGNORECASE):
        return True
    return _en_clause_of_earlier_time(sentence, value_end)


_EARLIER_TIME_KO = re.compile(r"지난\s*(?:주|번|회의|달|미팅)|저번|전\s*회의")
_EARLIER_TIME_EN = re.compile(r"\blast (?:week|time|meeting|call)\b|\bpreviously\b|\boriginally\b", re.IGNORECASE)
# Clause ends: punctuation and conjunctions; "now" opens the new value's clause ("that now becomes …").
_EN_CLAUSE_END = re.compile(r"[,;.!?]|\s(?:and|but|so|now)\s", re.IGNORECASE)
_ADNOMINAL_N = frozenset({"\u11ab", "ㄴ", "은"})  # kiwi writes the coda -ㄴ as a jamo


def _ko_past_adnominal(sentence: str, value_end: int) -> bool:
    """The first predicate after the value (within its clause) ends in a past adnominal: -던
    ("잡았던", "했던"), or -ㄴ/은 ("가기로 한", "정한") when the sentence names an earlier time."""
    predicate = False
    for t in [t for t in tokens_with_offsets(sentence) if t.start >= value_end][:8]:
        if t.tag in ("SF", "SP", "EF") or (predicate and (t.tag == "EC" or t.tag.startswith("N"))):
            return False
        if t.tag in ("VV", "VX", "XSV"):
            predicate = True
        elif predicate and t.tag == "ETM":
            return t.form == "던" or (t.form in _ADNOMINAL_N and bool(_EARLIER_TIME_KO.search(sentence)))
    return False


def _en_clause_of_earlier_time(sentence: str, value_end: int) -> bool:
    """The value's clause (between commas and conjunctions) speaks of an earlier time."""
    starts = [m.end() for m in _EN_CLAUSE_END.finditer(sentence, 0, value_end)]
    end = _EN_CLAUSE_END.search(sentence, value_end)
    clause = sentence[(starts[-1] if starts else 0): (end.start() if end else len(sentence))]
    return bool(_EARLIER_TIME_EN.search(clause))


# Estimates, not bounds: "최소 6주" and "5% 이하" are settled limits and stay values.
_APPROX_BEFORE = re.compile(r"(?:대략|약|한|거의|얼추)\s*$")
_APPROX_AFTER = re.compile(r"\s*(?:정도|쯤|가량|내외|안팎|남짓)|\s*(?:or so|ish)\b")
_EN_APPROX_BEFORE = re.compile(r"\b(?:about|around|roughly|approximately|maybe|almost|nearly)\s+$", re.IGNORECASE)


def is_approximate(sentence: str, value: Value) -> bool:
    """An estimate rather than a settled value: "한 300 정도", "about 40 percent"."""
    if value.approx:  # a range: "2~3명", "two or three days"
        return True
    before = sentence[max(0, value.start - 12):value.start]
    if _APPROX_AFTER.match(sentence, value.end):
        return True
    return bool(_APPROX_BEFORE.search(before) or _EN_APPROX_BEFORE.search(before))


_KO_VALUE_NOT = re.compile(r"[^,.?!]{0,12}?(?:말고|대신|[가이]\s?아니라|(?<![가-힣])안\s*(?:하|되|돼|됩|가|갈|쓰)|않|못\s*(?:하|해))")
_EN_VALUE_NOT = re.compile(r"\b(?:not|no longer|instead of|rather than|never)\b[^,.;]{0,20}$|n't\b[^,.;]{0,20}$", re.IGNORECASE)


def value_is_rejected(sentence: str, value: Value) -> bool:
    """The value itself is the option turned down: "22일 말고", "2년은 안 하는 걸로",
    "not three years"; other values of the sentence still stand."""
    if is_korean(sentence):
        return _KO_VALUE_NOT.match(sentence, value.end) is not None
    return _EN_VALUE_NOT.search(sentence[max(0, value.start - 40):value.start]) is not None


# Verbs that call a decision off, the opposites of settling one ("취소할게요", "접자", "scrap").
_KO_REVOKE_STEMS = frozenset({"취소", "철회", "백지화", "접", "무르", "보류"})
# Endings of an act the speaker settles: propositive, volitional, "-죠" (besides -겠- and "걸로 하다").
_KO_ACT_ENDINGS = PROPOSITIVE_ENDINGS | VOLITIONAL_ENDINGS | {"죠", "지요"}
_PHRASE_BREAK = frozenset({"EC", "EF", "JX", "JKS", "JKO", "SP", "SF"})
# English: a verb of calling off with its object ("Scrap the LOI", "we're cancelling that"), not a
# noun or an idiom ("Killing machines!", "scratch your head"); or the plan said not to happen.
_EN_REVOKE = re.compile(
    r"\b(?:cancel(?:s|led|ling)?|scrap(?:s|ped|ping)?|shelve[ds]?|kill(?:s|ed|ing)?|scratch(?:es|ed)?)"
    r"\s+(?:the|that|this|it|those|these|our|all)\b|\bcall(?:ing|ed)? (?:it|that|this) off\b|\bpull(?:ing)? the plug\b"
    r"|\bnot (?:happening|going ahead)\b|\b(?:won't|aren't|isn't) (?:be )?(?:happening|going ahead)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def revokes(sentence: str) -> bool:
    """Whether a sentence calls something off as an act it settles: its main predicate (the
    last one, by kiwi's tags) is negated ("그거 안 하겠습니다", "없던 걸로 해", "안 하는 걸로
    해요") or is a verb of calling off ("취소할게요", "모아는 접자"; "Scrap the LOI", "that's
    not happening"), in a settling form (-겠-, -자, -ㄹ게요, -죠, "걸로 하다"); not a question, a
    condition, a negated change ("안 바꾸겠습니다" keeps the decision) or a "not possible" ("안
    돼요")."""
    text = sentence.strip()
    if not text or text.endswith("?"):
        return False
    if not is_korean(text):
        return bool(_EN_REVOKE.search(text)) and not _EN_IF.search(text) and not _EN_SAME.search(text)
    tokens = tokens_with_offsets(text)
    ends = [i for i, t in enumerate(tokens) if t.tag == "EF"]
    if not ends:
        return False
    last = ends[-1]
    start = last
    while start > 0 and tokens[start - 1].tag not in _PHRASE_BREAK:
        start -= 1
    # "-지 않다", "-지 말다": the negated verb's phrase continues before its -지
    while start > 1 and tokens[start - 1].tag == "EC" and tokens[start - 1].form == "지":
        start -= 1
        while start > 0 and tokens[start - 1].tag not in _PHRASE_BREAK:
            start -= 1
    phrase = tokens[start:last + 1]
    forms = [t.form for t in phrase]
    conditional = any(t.tag == "EC" and CONDITIONAL_ENDING.search(ending_form(t.form)) for t in tokens)
    if conditional or _KO_CHANGE.search("".join(forms)):
        return False  # "비 오면 안 하는 걸로": only on a condition; "안 바꾸겠습니다": a change negated keeps it
    negated = False
    for i, t in enumerate(phrase):
        after = phrase[i + 1] if i + 1 < len(phrase) else None
        if (t.form, t.tag) not in NEGATORS or t.tag == "VCN" or (t.tag == "MAG" and after is not None
                                                                   and after.form in {"되", "돼"}):
            continue  # "잘못이 아니지요" negates what something is, "안 돼요" says it cannot be: no act called off
        # 없다 only as "없던/없는 걸로" (as if it had not been decided), not "문제 없습니다"
        negated = negated or t.form != "없" or (after is not None and after.tag == "ETM")
    called_off = any(t.form in _KO_REVOKE_STEMS and t.tag in ("VV", "NNG", "XR") for t in phrase)
    settled = ("겠" in forms or ending_form(tokens[last].form) in _KO_ACT_ENDINGS
               or any(forms[i:i + 3] in (["걸", "로", "하"], ["것", "으로", "하"]) for i in range(len(forms))))
    return (negated or called_off) and settled
