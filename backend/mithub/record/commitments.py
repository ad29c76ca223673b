"""Sentence-level cues of a commitment, in Korean and English: who is named as the doer, and
whether a sentence requests work, assigns it, commits the speaker to it, or accepts it.

`record/actions.py` assembles these per-sentence readings into action items across turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mithub.record.dates import KO_WEEKDAYS
from mithub.text.korean import morphemes
from mithub.text.tokens import ENGLISH_STOPWORDS


def _syllables(final: int) -> str:
    """Hangul syllables with the given final consonant (0: none, 4: ㄴ, 8: ㄹ)."""
    return "".join(chr(c) for c in range(0xAC00, 0xD7A4) if (c - 0xAC00) % 28 == final)


_L_FINAL = _syllables(8)
_OPEN = _syllables(0)

# The future "-ㄹ게요" (할게요, 드릴게요, 올릴게요), "-겠습니다", "제가 … 하죠", and a stated plan
# with the speaker as subject ("저희는 … 걸 거예요", "제가 공유할 예정이에요").
_KO_WILL = re.compile(rf"[{_L_FINAL}][게께]요|[{_L_FINAL}]게(?=\s*[.!?]|$)|제가\s+(?:\S+\s+){{0,4}}\S*[하맡보]죠")
_KO_SHALL = re.compile(r"겠습니다|겠어요")
_KO_PLAN = re.compile(rf"[{_L_FINAL}]\s*(?:거예요|겁니다|거고요|예정)|려고(?:요|\s*합니다|\s*해요)")
_KO_SELF = re.compile(r"제가|저희가|저희는|저는|저도")
# Steering the meeting ("정리하겠습니다", "여기까지 할게요", "넘어갈게요", "화면 공유할게요"),
# work done right now ("지금 보내 드릴게요"), knowing or acknowledging ("알겠습니다", "알고
# 있을게요"), an opinion ("좋겠습니다"), refusing, or deferring a topic are no work.
_KO_NOT_COMMIT = re.compile(
    r"확정|결정하|보류|마치겠|넘어[가갈]|넘길게|넘기겠|안건|여기까지|시작하겠|시작할게|(?:으로|로)\s*갈게"
    r"|(?:부터|먼저)\s*(?:볼|할|하겠)|지금\s*(?:바로\s*)?\S*[게겠]|화면|이따|말씀드릴\s*게\s"
    r"|(?:간단히|잠깐|먼저|우선)\s*(?:\S+\s+)?(?:설명|말씀|공유|보여)"
    r"|알겠|알고\s*있을|[좋되맞있없]겠|듣기만|(?:안|못)\s*[하할]|않겠|걸로\s*(?:할|하겠)"
    r"|^(?!.*(?:까지|\d))\W*(?:\S+\s+){0,3}(?:정리|마무리)(?:할게요|하겠습니다)\W*$"
)
# "-겠습니다" after a topic ("베타는 8월 5일에 열겠습니다") or a value ("3개월로 당기겠습니다",
# "6월 1일부터 의무화하겠습니다") settles a decision; a promise has no such topic.
_KO_SERVICE = re.compile(r"드리겠|드릴게")
_KO_BY_DATE = re.compile(
    rf"(?:\d\s*일|[{KO_WEEKDAYS}]요일|주|내일|모레|오늘|월말|오후|오전)\s*(?:안에|중에|중으로)?\s*까지"
    r"|(?:내일|모레|오늘|오후에|오전에|이따가?)\s"
)
_SELF_PRONOUNS = frozenset({"저", "제", "저희", "나", "우리"})
_KO_REQUEST = re.compile(
    rf"[{_OPEN}]\s?주(?:세요|시고|실|십시오|시겠)|[{_OPEN}]\s?줄\s*(?:수|래요)|[{_OPEN}]\s?줘요?(?=\s*[.!?]|$)"
    r"|부탁(?:드|해|합)|가능하세요"
)
# "세 자리로 올리시면 돼요": an instruction, or only advice ("태그만 붙여 주시면 돼요") unless
# the other person says yes to it.
_KO_INSTRUCTION = re.compile(r"[가-힣]시면\s*(?:돼요|됩니다)")
_KO_TALK = re.compile(r"말씀|설명해|얘기해|이야기해|의견|현황|진척|상황부터")
_KO_ASSIGN = re.compile(
    r"(?:걸로|기로)\s*(?:할게요|하겠습니다|하죠|해요|합시다)|맡기로|정하죠|[가-힣]시죠"
    r"|담당(?:으로|이|은)?\s*(?:하|해|할|맡)|[가-힣](?<![계으])시고(?:요)?(?=[\s,.]|$)"
)
# A unit as the doer: the speaker's own unit (저희 + a noun ending in 팀, 부, 센터, 본부) or a team
# as the source of the work ("서버팀에서 할게요"), "our QA team will", "the Transportation Division will".
_KO_TEAM = re.compile(r"저희\s*(?P<team>[가-힣A-Za-z0-9]{1,8}(?:팀|부|센터|본부))(?:에서|이|가)(?=\s)"
                      r"|(?<![가-힣])(?P<team2>[가-힣A-Za-z0-9]{1,8}팀)에서(?=\s)")
_EN_TEAM = re.compile(r"\b(?:[Oo]ur|[Mm]y|[Tt]he)?\s*(?P<team>(?:[A-Z]{2,}|[A-Za-z]+)\s+(?:[Tt]eam|Division|Department|Office|Group))"
                      r"\s+(?:will|'ll|can|is\s+going\s+to)\b")
_EN_TEAM_WILL = re.compile(r"\b(?:[Oo]ur|[Mm]y)\s+(?:[A-Z]{2,}|[a-z]+)\s+team\s+(?:will|'ll|is\s+going\s+to)\s+\w+")

_EN_COMMIT = re.compile(
    r"\bI(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|'m\s+aiming\s+to)\b(?!\s+(?:not|never)\b)"
    r"|^\W*(?:\w+,?\s+)?will\s+do\b|\bfrom\s+me\b|^\W*(?:I'm\s+)?on\s+it\b|\bI(?:'ve)?\s+got\s+(?:it|this|that)\b"
    r"|\bI\s+can\s+take\s+(?:it|that|this)\b"
    r"|\blet\s+me\s+(?!know|see|think|guess|be|say|just\s+say|finish|ask\s+you|start|show|share)\w+",
    re.IGNORECASE,
)
_EN_CAN = re.compile(r"\bI\s+can\b(?!'t|\s+not)", re.IGNORECASE)
_EN_NOT_COMMIT = re.compile(
    r"\bI'd\b|\bif\b|\bI'll\s+be\s+(?!\w+ing\b)|\bmake\s+it\s+work\b|\bin\s+the\s+chat\b|\bscreen\b"
    r"|\bright\s+now\b|\bnow\s*[.!]?$"
    # talking in the meeting itself: "I'll tell you what happened", "I'll stop there"
    r"|\bI(?:'ll|\s+will)\s+(?:just\s+)?(?:tell\s+you|show\s+you|walk\s+you|explain|say|admit|start\s+with"
    r"|stop|leave\s+it|hand\s+(?:it\s+)?over|pass\s+it|turn\s+it\s+over|keep\s+it|be\s+quick|be\s+brief)\b"
    # A shift in a rotation is a schedule, not a task.
    r"|\btak(?:e|es|ing)\s+(?:the\s+)?(?:first|second|next|this|that)?\s*(?:week|shift|day|weekend|rotation)\b",
    re.IGNORECASE,
)
# Going through the meeting's own agenda ("먼저 지난주 액션 아이템부터 하나씩 확인할게요",
# "I'll go through last week's action items one by one") is the chair's talk, unless it
# hands something over or names a deadline ("…확인해서 금요일까지 공유드릴게요"). In Korean:
# items in turn ("하나씩", "차례로", "한 분씩"), or the agenda first ("먼저 액션 아이템부터"),
# with a verb of looking or talking.
_KO_IN_TURN = re.compile(r"하나씩|차례로|차례대로|순서대로|한\s*분씩|돌아가면서")
_KO_AGENDA = re.compile(r"안건|아젠다|액션\s*아이템|지난\s*(?:주|번|회의)\s*(?:건|것|거|내용|과제|숙제)")
_KO_FIRST = re.compile(r"먼저|우선|부터")
_KO_STEER_VERB = re.compile(
    r"(?:확인|점검|체크|리뷰|얘기|이야기|진행)\s*(?:해\s*)?(?:하|할|볼|보)[게께겠]"
    r"|(?:짚어|훑어|살펴|들어)\s*(?:볼|보)[게께겠]|(?:^|\s)(?:볼|보)[게께겠]"
)
_EN_AGENDA = re.compile(r"\bagenda\b|\baction\s+items?\b|\blast\s+(?:week|time|meeting)'s\b|\bone\s+by\s+one\b"
                        r"|\bin\s+order\b|\bround\s+the\s+(?:table|room)\b", re.IGNORECASE)
_EN_STEER_VERB = re.compile(r"\b(?:I(?:'ll|\s+will)|let\s+me)\s+(?:just\s+|quickly\s+|first\s+)?(?:go\s+(?:through|over)"
                            r"|run\s+through|check\s+in\s+on|review|walk\s+through|start\s+off)\b",
                            re.IGNORECASE)
_EN_STEER = re.compile(r"\b(?:I(?:'ll|\s+will)|let\s+me)\s+(?:just\s+)?(?:move\s+(?:us\s+)?on|kick\s+(?:us|things)\s+off"
                       r"|wrap\s+(?:us|things)\s+up|hand\s+over\s+to)\b", re.IGNORECASE)
_DELIVERS = re.compile(r"드릴|드리겠|까지|내일|모레|다음\s*주|이번\s*주|요일|월말|\bby\s+(?!one\b)|\bsend\b|\bshare\b"
                       r"|\bcirculate\b|\bemail\b|\btomorrow\b|\btonight\b|\bnext\s+week\b|day\b", re.IGNORECASE)
# Work already assigned, reported on: "나머지는 원래대로 화요일까지 끝낼게요", "스크립트도
# 일정대로 준비할게요", "I'll finish the rest by Tuesday as planned".
_STATUS = re.compile(
    r"(?:원래|예정|일정|계획|약속(?:한|드린|했던)\s*)\s*대로"
    r"|\bas\s+(?:originally\s+)?(?:planned|scheduled|promised|agreed)\b"
    r"|\b(?:still\s+)?on\s+(?:track|schedule)\s+(?:to|for)\b",
    re.IGNORECASE,
)
# Only attending: "오늘도 예산 쪽만 듣겠습니다", "I'll just listen in today", "I'll be observing"
# (but "인터뷰 들어 보고 화요일까지 정리해 드릴게요", "I'll listen to the recordings").
_KO_LISTEN = re.compile(r"듣겠|들을게|듣고만|참관")
_EN_LISTEN = re.compile(
    r"\bI(?:'ll|\s+will|'m\s+going\s+to)\s+(?:just\s+|mostly\s+|only\s+|mainly\s+)?"
    r"(?:listen(?!\s+to\b)|observe(?!\s+(?:the|how|what|whether|if|it|them)\b)|sit\s+in|lurk"
    r"|be\s+(?:just\s+)?(?:listening|observing|lurking|on\s+mute)|stay\s+(?:on\s+mute|quiet))\b",
    re.IGNORECASE,
)
_EN_TALK = re.compile(
    r"\bwalk\s+us\b|\btell\s+us\b|\bsee\s+(?:the|my|it)\b|\bhear\s+me\b|\bremind\s+us\b"
    r"|\btake\s+notes\b|\brecord\s+(?:the|this)\s+(?:meeting|call)\b",
    re.IGNORECASE,
)
# "Raj, you should check with legal": told to the person named.
_EN_TOLD = re.compile(r"\byou\s+(?:should|need\s+to|have\s+to)\b|\bI'd\s+like\s+you\s+to\b|\bmake\s+sure\s+you\b",
                      re.IGNORECASE)
# "Who's taking the brief?" - "I can." / "누가 하죠?" - "제가요.": volunteering.
_VOLUNTEER = re.compile(r"^\W*(?:I\s+can\b|me\b|I\s+will\b|I'll\b|제가(?:요|\s*할게요)?|저요|저희가요)", re.IGNORECASE)
_EN_REQUEST = re.compile(
    r"\b(?:can|could|would|will)\s+(?:you|someone|somebody)\b|\bplease\b(?!\s+(?:not|don't)\b)"
    r"|\byou\s+(?:run|own|take|handle|drive|lead|do)\s+(?:it|that|this)\b|\byou\s+can\s+\w+\s+it\b"
    r"|\byou're\s+on\s+(?:it|that|this)\b|(?:\bis|\bare|'s)\s+(?:all\s+)?yours\b|\bneed\s+you\s+to\b|\bon\s+you\b",
    re.IGNORECASE,
)
_EN_NOT_ACTION_VERBS = frozenset(
    "is was has says said thinks wants needs likes knows seems agrees asked mentions does gets".split()
)
_HYPOTHETICAL = re.compile(r"만약|만일|\bsuppose\b|\bin case\b", re.IGNORECASE)
_OWNERSHIP_QUESTION = re.compile(r"누가|누구|\bwho\b", re.IGNORECASE)
_AFFIRMATIVE = re.compile(
    r"^\W*(?:(?:하하|아|음|오|ha|oh|um|uh)\W+)*(?:네+|넵|예|응|알겠습니다|알겠어요|그럴게요|좋아요|sure|yes|yep"
    r"|yeah|okay|ok|will do|works for me|sounds good|on it|got it|of course|absolutely|definitely)\b",
    re.IGNORECASE,
)
# "action item for Sam", "assigned to Raj", "담당은 성민 님": the name that follows owns it.
_NAMED_OWNER = re.compile(
    r"(?:\baction\s+items?\s+(?:for|to)|\bassign(?:ed)?\s+(?:\w+\s+)?to|\bowned\s+by|\bowner\s+(?:is|will\s+be)"
    r"|담당(?:자)?(?:는|은)?|오너(?:는|은)?)\s*:?\s*$",
    re.IGNORECASE,
)
_KO_RECIPIENT = re.compile(r"^\s*(?:님|씨)?\s*(?:께|에게|한테|이랑|하고|랑|과|와|을|를|의|도\s*초대)")
# Who only gets a copy ("민호 님 참조로", "cc Raj", "copy Dana on it", "with Sam in cc") is a
# recipient, not the doer.
_COPIED_AFTER = re.compile(r"^\s*(?:님|씨)?\s*(?:을|를|도|은|는)?\s*(?:참조|씨씨|cc\b)"
                           r"|^\s*(?:in|on)\s+(?:cc|copy)\b|^\s*(?:cc'?d|copied)\b", re.IGNORECASE)
_COPIED_BEFORE = re.compile(r"(?:참조|씨씨|\bcc|\bcc'ing|\bcopy|\bcopying|\bloop\s+in|\blooping\s+in)\s*(?:로|는|은|:)?\s*$",
                            re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class NameMention:
    """A participant named as a possible doer: `name` is their speaker_name."""

    name: str
    start: int
    end: int


def split_sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(text.strip()) if s]


def name_forms(name: str) -> set[str]:
    """How a participant is called: the full name, a Korean given name ("성민" for 박성민,
    said with 님/씨), an English first name ("Raj" for Raj Patel) unless it is also a common
    word ("Will", "May")."""
    forms = {name}
    if re.fullmatch(r"[가-힣]{3,4}", name):
        forms.add(name[1:])
    parts = name.split()
    if len(parts) > 1 and len(parts[0]) >= 2 and parts[0].lower() not in ENGLISH_STOPWORDS:
        forms.add(parts[0])
    return forms


def doer_mentions(sentence: str, names: list[str], speaker: str) -> list[NameMention]:
    """Participants named in the sentence as subject or addressee, in order; a recipient
    ("서준 님께", "저한테") or object ("ask Raj") is no doer, and neither is the speaker."""
    every = _all_mentions(sentence, names, speaker)
    doers = []
    for i, m in enumerate(every):
        rest = sentence[m.end:]
        # "수민 님이랑 서준 님이 같이 해 주세요": a name joined to the next one shares the work.
        joined = i + 1 < len(every) and re.match(r"\s*(?:이랑|랑|하고|와|과)\s*$", sentence[m.end:every[i + 1].start])
        if (_KO_RECIPIENT.match(rest) and not joined) or _english_object(sentence, m.start):
            continue
        if _COPIED_AFTER.match(rest) or _COPIED_BEFORE.search(sentence[: m.start]):
            continue
        doers.append(m)
    return doers


# Korean job titles: a colleague is often called by surname and title ("윤 차장", "한 팀장님").
_KO_TITLE = r"(?:[가-힣]{0,2}장|대리|주임|책임|선임|수석|교수|선생|매니저|프로|위원|간사|사원)(?:님)?"


def _title_forms(names: list[str], speaker: str) -> list[tuple[str, str]]:
    """(surname-and-title pattern, name) for Korean names whose surname no one else shares."""
    surnames = [n[0] for n in names if re.fullmatch(r"[가-힣]{3,4}", n)]
    return [(rf"{re.escape(n[0])}\s?{_KO_TITLE}", n) for n in names
            if n != speaker and re.fullmatch(r"[가-힣]{3,4}", n) and surnames.count(n[0]) == 1]


def _all_mentions(sentence: str, names: list[str], speaker: str) -> list[NameMention]:
    found: list[NameMention] = []
    for pattern, name in _title_forms(names, speaker):
        for m in re.finditer(rf"(?<![가-힣A-Za-z]){pattern}", sentence):
            found.append(NameMention(name, m.start(), m.end()))
    for name in names:
        if name == speaker:
            continue
        for form in sorted(name_forms(name), key=len, reverse=True):
            korean_given = form != name and re.fullmatch(r"[가-힣]+", form) is not None
            pattern = re.escape(form) + (r"\s*(?:님|씨)" if korean_given else r"(?:\s*(?:님|씨))?")
            for m in re.finditer(rf"(?<![가-힣A-Za-z]){pattern}", sentence):
                if all(m.start() >= f.end or m.end() <= f.start for f in found):
                    found.append(NameMention(name, m.start(), m.end()))
    return sorted(found, key=lambda f: f.start)


def _english_object(sentence: str, start: int) -> bool:
    before = sentence[:start]
    if _NAMED_OWNER.search(before):
        return False
    return re.search(r"\b(?:to|with|from|for|ask|tell|call|email|ping|cc|thanks|thank)\s+$",
                     before, re.IGNORECASE) is not None


def is_commit(sentence: str, previous_line: str | None) -> bool:
    """The speaker promises to do something ("제가 할게요", "I'll send it", "Will do")."""
    if _HYPOTHETICAL.search(sentence):
        return False
    if _KO_NOT_COMMIT.search(sentence) or _gives_no_new_work(sentence):
        return False
    if _KO_WILL.search(sentence):
        return True
    own = _KO_SELF.search(sentence) is not None
    if _KO_SHALL.search(sentence) and (own or not _settles_a_topic(sentence)):
        return True
    if _KO_PLAN.search(sentence) and own:
        return True
    if _EN_NOT_COMMIT.search(sentence):
        return False
    if _EN_COMMIT.search(sentence) or _EN_TEAM_WILL.search(sentence):
        return True
    if previous_line is None:
        return False
    if _OWNERSHIP_QUESTION.search(previous_line) and "?" in previous_line and _VOLUNTEER.search(sentence):
        return True
    # "I can ask." answers "Can we ...?"; elsewhere "I can" only says what is possible.
    asked = re.search(r"\b(?:can|could)\b.*\?", previous_line, re.IGNORECASE)
    return bool(_EN_CAN.search(sentence) and asked)


def _gives_no_new_work(sentence: str) -> bool:
    """A promise-shaped sentence that gives nobody new work: the chair steering the meeting
    through its agenda, a report on work assigned before ("원래대로", "as planned"), or
    saying one will only listen."""
    if _STATUS.search(sentence) or _EN_STEER.search(sentence) or _EN_LISTEN.search(sentence):
        return True
    if _DELIVERS.search(sentence):
        return False
    if _KO_LISTEN.search(sentence):
        return True
    in_turn = _KO_IN_TURN.search(sentence) or _KO_AGENDA.search(sentence) and _KO_FIRST.search(sentence)
    return bool(in_turn and _KO_STEER_VERB.search(sentence)
                or _EN_AGENDA.search(sentence) and _EN_STEER_VERB.search(sentence))


def _settles_a_topic(sentence: str) -> bool:
    """A topic other than the speaker ("베타는", "수수료 상한은") or a value set with 로/부터:
    the "-겠습니다" announces a decision. Morphemes tell the topic 은/는 from a verb's -는."""
    tokens = morphemes(sentence)
    if any((t.tag == "JKB" and t.form in ("로", "으로")) or (t.tag == "JX" and t.form == "부터") for t in tokens):
        return True
    # Doing something for the others ("보내드리겠습니다") or by a date ("수요일까지 …") is a
    # promise even after a topic ("자료는 내일 보내드리겠습니다").
    if _KO_SERVICE.search(sentence) or _KO_BY_DATE.search(sentence):
        return False
    return any(
        tok.tag == "JX" and tok.form in ("은", "는") and prev.tag.startswith(("NN", "NR", "NP", "SN"))
        and prev.form not in _SELF_PRONOUNS
        for prev, tok in zip(tokens, tokens[1:])
    )


def is_request(sentence: str) -> bool:
    """Work asked of someone ("해 주세요", "can you", "you run it")."""
    if _HYPOTHETICAL.search(sentence) or _OWNERSHIP_QUESTION.search(sentence):
        return False
    if _KO_TALK.search(sentence) or _EN_TALK.search(sentence):
        return False
    return bool(_KO_REQUEST.search(sentence) or _EN_REQUEST.search(sentence))


def is_instruction(sentence: str) -> bool:
    """"-시면 돼요": work handed over only if the next speaker accepts it."""
    return _KO_INSTRUCTION.search(sentence) is not None and not _HYPOTHETICAL.search(sentence)


def is_open_call(sentence: str) -> bool:
    """A request to whoever it applies to ("혹시 빠진 거 있으면 댓글 달아 주세요")."""
    return re.search(r"있으면|혹시|다들|모두|여러분|\beveryone\b|\banyone\b|\bif\b", sentence,
                     re.IGNORECASE) is not None


def is_assignment(sentence: str, mention: NameMention) -> bool:
    """A statement giving the named person the work ("성민 님이 하는 걸로 할게요",
    "Raj ships it by Wednesday", "Priya owns it")."""
    if _HYPOTHETICAL.search(sentence) or _EN_NOT_COMMIT.search(sentence):
        return False
    if _KO_TALK.search(sentence) or _EN_TALK.search(sentence):
        return False
    if _KO_ASSIGN.search(sentence[mention.end:]) or _NAMED_OWNER.search(sentence[: mention.start]):
        return True
    after = sentence[mention.end:]
    if _EN_TOLD.search(sentence) or re.search(r"(?:하시|주시|주)면\s*좋겠", after):
        return True
    if re.search(r"\b(?:have|get)\s+$", sentence[: mention.start], re.IGNORECASE):
        return re.match(r"\s+[a-z]+\b", after) is not None
    if re.match(r"'s\s+(?:going\s+to|on\s+(?:it|that|this))\b", after):
        return True
    verb = re.match(r"\s+(?:(?:will|'ll|is\s+going\s+to|can)\s+(\w+)|([a-z]+s)\b)", after)
    if verb is None:
        return False
    word = verb.group(1) or verb.group(2)
    return word.lower() not in _EN_NOT_ACTION_VERBS


def partners(sentence: str, names: list[str], speaker: str) -> list[str]:
    """Participants doing the work together with the speaker ("제가 재석 님이랑 같이 할게요",
    "저랑 재석 님이 만들고 있어요", "Sam and I will set it up"): each gets the item too."""
    found = []
    for name in names:
        if name == speaker:
            continue
        for form in name_forms(name):
            f = re.escape(form)
            if re.search(rf"(?<![가-힣A-Za-z]){f}\s*(?:님|씨)?\s*(?:이랑|랑|하고|와|과)\s*(?:같이|함께|제가|저)"
                         rf"|(?:저랑|저하고|저와)\s*{f}|\b{f}\s+and\s+I\b|\bme\s+and\s+{f}\b", sentence):
                found.append(name)
                break
    return found


def team_owner(sentence: str) -> str | None:
    """"저희 IT팀에서 할게요", "our QA team will cover it": the team takes the work."""
    m = _KO_TEAM.search(sentence) or _EN_TEAM.search(sentence)
    if m is None:
        return None
    team = m["team"] or m.groupdict().get("team2") or ""
    return team[:1].upper() + team[1:]


def is_acceptance(text: str) -> bool:
    """A short yes to a request ("네", "Sure", "Yep, by Friday"), or a yes with a promise."""
    if not _AFFIRMATIVE.search(text):
        return False
    words = re.findall(r"[\w'-]+", text)
    return len(words) <= 4 or is_commit(text, None)


def starts_affirmative(text: str) -> bool:
    return _AFFIRMATIVE.search(text) is not None
