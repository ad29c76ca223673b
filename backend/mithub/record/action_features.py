"""Features of a commitment turn: for a line of a meeting and a person who might own work said
there, the signals that the line settles an action item for that person.

Each feature has a reason, and none is a phrase read off the development transcripts:
- the sentence's mood, from kiwi morpheme TAGS in Korean (-ㄹ게요 volitional EF, -겠- EP,
  -어 주세요 request VX 주 + 세요, -시죠/-ㅂ시다 propositive, -었- past EP, negation MAG/VX,
  conditional EC 면) and from English closed-class words (first-person future, "can you",
  "let's", second-person modals, negation, conditionals, past auxiliaries);
- who is meant: the speaker (a volunteer), a participant named as the doer (not a recipient or
  someone copied: `commitments.doer_mentions`), the next speaker (an acceptor) or the previous
  one (an unnamed request goes to the person just talked with), a team;
- the answer: the next turns by that person, a yes or a promise of their own;
- the speaker's role (the chair, who talks most, hands out most tasks), the position in the
  meeting (tasks are handed out at its end), a due expression present (`record.dates`);
- done here and now vs later: a deictic "now/지금", past tense.

`pair_rows(turns, meeting_date)` gives one row per (line, candidate owner); the estimator in
`record.action_model` turns rows into probabilities.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from mithub.context.models import Utterance
from mithub.record import commitments as cue
from mithub.record.dates import resolve_date_expressions
from mithub.text.korean import Morpheme, morphemes
from mithub.text.tokens import has_hangul

_DATED = ("date", "day", "weekday", "relative_day", "week", "month_end")
# A name as the subject of the clause: Korean subject/topic particles after the name (and 님/씨),
# English "Raj will / Raj's going to / Raj can / Raj owns".
_SUBJECT_AFTER = re.compile(r"^\s*(?:님|씨)?\s*(?:이|가|께서|은|는)(?![가-힣])|^\s*(?:님|씨)?(?:이|가|께서|은|는)\s"
                            r"|^\s+(?:will|'ll|can|is\s+going\s+to|owns|takes|handles)\b|^'s\s+(?:going|on)\b")

# --- Korean mood by tag ------------------------------------------------------------------------
_VOLITIONAL_EF = frozenset({"ᆯ게요", "을게요", "ᆯ게", "을게", "ᆯ께요", "을께요"})
_PROPOSITIVE_EF = frozenset({"ᆸ시다", "읍시다", "자", "자고요"})
_QUESTION_EF = frozenset({"ᆯ까요", "을까요", "나요", "니까", "ᆸ니까", "습니까", "ᆯ까", "을까"})
_PAST_EP = frozenset({"었", "았", "였", "ᆻ"})
_NEG = frozenset({"안", "못"})
# Speaking in the meeting itself (asked to explain, present, tell): a turn-taking request, not work
# for later. A closed class of speech-act nouns and verbs, in both languages.
_KO_SPEECH_NOUNS = frozenset({"말씀", "설명", "얘기", "이야기", "소개", "발표", "브리핑", "보고"})


def ko_mood(tokens: Sequence[Morpheme]) -> dict[str, float]:
    """Sentence-final mood and modality of a Korean turn from its morpheme tags."""
    f = dict.fromkeys(("ko_volitional", "ko_shall", "ko_request", "ko_propositive", "ko_plan",
                       "ko_past", "ko_negation", "ko_conditional", "ko_question", "ko_first_person",
                       "ko_honorific_subject", "ko_now", "ko_deadline", "ko_topic_noun", "ko_value_ro",
                       "content_nouns", "ko_speech"), 0.0)
    for i, (form, tag) in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else Morpheme("", "")
        prev = tokens[i - 1] if i > 0 else Morpheme("", "")
        if tag == "EF" and form in _VOLITIONAL_EF:
            f["ko_volitional"] = 1.0
        elif tag == "EP" and form == "겠":
            f["ko_shall"] = 1.0
        elif tag == "VX" and form == "주" and (nxt.tag == "EP" and nxt.form == "시" or nxt.form in ("세요", "어요", "어")):
            f["ko_request"] = 1.0
        elif tag == "EF" and form in ("세요", "으세요", "십시오", "으십시오"):
            f["ko_request"] = 1.0
        elif tag == "EF" and (form in _PROPOSITIVE_EF or form == "죠" and prev.tag == "EP" and prev.form == "시"):
            f["ko_propositive"] = 1.0
        elif tag == "NNB" and form in ("거", "것") and prev.tag == "ETM" and prev.form in ("ᆯ", "을"):
            f["ko_plan"] = 1.0
        elif tag == "EP" and form in _PAST_EP:
            f["ko_past"] = 1.0
        elif (tag == "MAG" and form in _NEG) or (tag == "VX" and form in ("않", "못하")):
            f["ko_negation"] = 1.0
        elif tag == "EC" and form in ("면", "으면"):
            f["ko_conditional"] = 1.0
        elif (tag == "SF" and form == "?") or (tag == "EF" and form in _QUESTION_EF):
            f["ko_question"] = 1.0
        elif tag == "NP" and form in ("저", "저희", "나", "제"):
            f["ko_first_person"] = 1.0
        elif tag == "EP" and form in ("시", "으시"):
            f["ko_honorific_subject"] = 1.0
        elif tag == "MAG" and form in ("지금", "바로", "방금"):
            f["ko_now"] = 1.0
        elif tag == "JX" and form == "까지":
            f["ko_deadline"] = 1.0
        elif tag == "JX" and form in ("은", "는") and prev.tag.startswith(("NNG", "NNP", "SL", "SN")):
            f["ko_topic_noun"] = 1.0  # "교육은 …하겠습니다": a topic settled, often a decision
        elif tag == "JKB" and form in ("로", "으로"):
            f["ko_value_ro"] = 1.0  # "3개월로": a value set
        if tag in ("NNG", "NNP", "SL"):
            f["content_nouns"] += 1.0
        if (tag == "NNG" and form in _KO_SPEECH_NOUNS) or (tag == "VV" and form in ("말하", "얘기하", "이야기하")):
            f["ko_speech"] = 1.0
    f["content_nouns"] = math.log1p(f["content_nouns"])
    return f


# --- English modality by closed-class words ----------------------------------------------------
_EN = {
    "en_first_future": r"\bI(?:'ll|\s+will|'m\s+going\s+to|\s+am\s+going\s+to|\s+shall)\b",
    "en_we_future": r"\bwe(?:'ll|\s+will|'re\s+going\s+to|\s+are\s+going\s+to|\s+shall)\b",
    "en_first_can": r"\bI\s+(?:can|could)\b",
    "en_request": r"\b(?:can|could|would|will)\s+you\b|\bplease\b|\bneed\s+you\s+to\b",
    "en_you_modal": r"\byou(?:'ll|\s+will|\s+should|\s+need\s+to|\s+have\s+to|\s+must|'re\s+going\s+to|\s+are\s+going\s+to)\b",
    "en_propositive": r"\blet's\b|\blet\s+us\b",
    "en_let_me": r"\blet\s+me\b",
    "en_negation": r"\bnot\b|n't\b|\bnever\b|\bno\b",
    "en_conditional": r"\bif\b|\bunless\b|\bwhether\b",
    "en_past": r"\b(?:did|was|were|had|already)\b|\b\w+ed\b",
    "en_now": r"\bnow\b|\bhere\b|\btoday\b",
    "en_deadline": r"\bby\b|\buntil\b|\bbefore\b|\bnext\s+(?:week|meeting|time)\b",
    "en_you": r"\byou\b",
    "en_speech": r"\b(?:tell|explain|present|describe|walk\s+(?:us|me|them)\s+through|go\s+over|talk\s+(?:about|through)|show)\b",
    "en_meeting_deixis": r"\b(?:this|the)\s+(?:meeting|call|presentation|slide|screen)\b|\bmy\s+presentation\b",
}
_EN_RE = {k: re.compile(v, re.IGNORECASE) for k, v in _EN.items()}
_FUNCTION = frozenset("that this with have will would could should there their they them then than what when where "
                      "which about just like yeah okay right well also into from your were been going think know "
                      "really maybe some something thing things very because".split())


def en_mood(text: str) -> dict[str, float]:
    return {k: float(bool(p.search(text))) for k, p in _EN_RE.items()}


# --- one turn ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnReading:
    """What a turn says on its own: mood features, dates, who it names as doers."""

    features: dict[str, float]
    doers: tuple[str, ...]
    subjects: tuple[str, ...]  # doers named as the subject ("현우 님이 …", "Raj will …")
    named: tuple[str, ...]
    team: str | None
    affirmative: bool
    accepts: bool


def read_turn(turn: Utterance, names: Sequence[str], meeting_date: date) -> TurnReading:
    text = turn.text
    korean = has_hangul(text)
    f = ko_mood(morphemes(text)) if korean else dict.fromkeys(ko_mood(()), 0.0)
    f.update(en_mood(text) if not korean else dict.fromkeys(_EN, 0.0))
    if not korean:  # content words: what a task is about; a closing line has few
        f["content_nouns"] = math.log1p(sum(1 for w in re.findall(r"[A-Za-z]{4,}", text) if w.lower() not in _FUNCTION))
    f["korean"] = float(korean)
    f["question_mark"] = float("?" in text)
    f["log_words"] = math.log1p(len(text.split()))
    mentions = resolve_date_expressions(text, meeting_date)
    f["dated"] = float(any(m.kind in _DATED for m in mentions))
    f["undated_due"] = float(any(m.kind in ("event", "recurring", "duration") for m in mentions))
    doers: list[str] = []
    subjects: list[str] = []
    for sentence in cue.split_sentences(text) or [text]:
        for m in cue.doer_mentions(sentence, list(names), turn.speaker_name):
            doers.append(m.name)
            if _SUBJECT_AFTER.match(sentence[m.end:]):
                subjects.append(m.name)
    # A yes that is short or promises ("네, 금요일까지 할게요", "Sure, by Friday") accepts.
    affirmative = cue.starts_affirmative(text)
    named = [n for n in names if n != turn.speaker_name and any(form in text for form in cue.name_forms(n))]
    return TurnReading(f, tuple(dict.fromkeys(doers)), tuple(dict.fromkeys(subjects)), tuple(named), cue.team_owner(text),
                       affirmative, affirmative and (len(text.split()) <= 4 or _will(f) > 0))


# --- (line, candidate owner) rows --------------------------------------------------------------

TURN_FEATURES = tuple(ko_mood(())) + tuple(_EN) + ("korean", "question_mark", "log_words", "dated", "undated_due")
ROLE_FEATURES = ("is_speaker", "is_doer", "is_named_other", "is_next", "is_prev", "is_team",
                 "next_accepts", "next_promises", "next_dated", "prev_asks_who", "chair", "talk_share",
                 "position", "last_fifth", "other_doer_named", "prev_request_to_speaker", "accepts_x_speaker",
                 "is_subject", "other_subject_named", "first_tenth", "last_three")
CROSS_FEATURES = ("speaker_x_will", "speaker_x_request", "addressee_x_request", "doer_x_mood",
                  "next_x_request", "speaker_x_now", "speaker_x_past", "chair_x_last_fifth",
                  "speaker_x_dated", "addressee_x_dated", "talk_now")
FEATURE_NAMES = TURN_FEATURES + ROLE_FEATURES + CROSS_FEATURES


@dataclass(frozen=True)
class Candidate:
    line: int
    owner: str
    role: str  # speaker | doer | next | prev | team


def candidates(line: int, turns: Sequence[Utterance], reading: TurnReading) -> list[Candidate]:
    """Who might own work said on this line: the speaker, the doers it names, a team it names,
    and the people who speak just before and after."""
    # A speaker who gives their unit's word ("저희 운영팀에서 뽑아 드리겠습니다") speaks for the
    # team: the team is the volunteer (the benchmark README's convention too).
    out = [Candidate(line, reading.team, "team") if reading.team else Candidate(line, turns[line].speaker_name, "speaker")]
    out += [Candidate(line, name, "doer") for name in reading.doers]
    for role, k in (("next", line + 1), ("prev", line - 1)):
        if 0 <= k < len(turns):
            out.append(Candidate(line, turns[k].speaker_name, role))
    seen: dict[str, Candidate] = {}
    for c in out:  # one row per owner: the first (strongest) role it has
        seen.setdefault(c.owner, c)
    return list(seen.values())


def _will(f: dict[str, float]) -> float:
    return max(f["ko_volitional"], f["ko_shall"], f["ko_plan"], f["en_first_future"], f["en_we_future"],
               f["en_let_me"])


def _asks(f: dict[str, float]) -> float:
    return max(f["ko_request"], f["ko_propositive"], f["en_request"], f["en_you_modal"])


def promises_own_work(reading: TurnReading) -> bool:
    """The line promises the speaker's own work ("I'll …", "I can …", "-ㄹ게요") and asks nobody
    ("해 주시겠어요?" asks, for all its -겠-)."""
    f = reading.features
    return max(_will(f), f["en_first_can"]) > 0 and _asks(f) == 0


def pair_row(c: Candidate, turns: Sequence[Utterance], readings: Sequence[TurnReading],
             meeting: MeetingFacts) -> list[float]:
    line, owner = c.line, c.owner
    r = readings[line]
    f = r.features
    speaker = owner == turns[line].speaker_name or c.role == "team"
    doer = owner in r.doers
    nxt = next((k for k in range(line + 1, min(len(turns), line + 3)) if turns[k].speaker_name == owner), None)
    next_accepts = float(nxt is not None and not speaker and (readings[nxt].accepts or readings[nxt].affirmative))
    next_promises = float(nxt is not None and not speaker and _will(readings[nxt].features) > 0)
    next_dated = float(nxt is not None and not speaker and readings[nxt].features["dated"] > 0)
    prev_who = float(line > 0 and speaker and turns[line - 1].speaker_name != owner
                     and re.search(r"누가|누구|\bwho\b", turns[line - 1].text, re.IGNORECASE) is not None)
    chair = float(owner == meeting.chair)
    addressee = float(not speaker and (doer or c.role in ("next", "prev")))
    position = line / max(1, len(turns) - 1)
    last_fifth = float(position >= 0.8)
    row = {k: f[k] for k in TURN_FEATURES}
    row.update({
        "is_speaker": float(speaker), "is_doer": float(doer),
        "is_named_other": float(owner in r.named and not doer), "is_next": float(c.role == "next"),
        "is_prev": float(c.role == "prev"), "is_team": float(c.role == "team"),
        "next_accepts": next_accepts, "next_promises": next_promises, "next_dated": next_dated,
        "prev_asks_who": prev_who, "chair": chair, "talk_share": meeting.share.get(owner, 0.0),
        "position": position, "last_fifth": last_fifth,
        "other_doer_named": float(bool(r.doers) and not doer),
        "prev_request_to_speaker": float(speaker and line > 0 and turns[line - 1].speaker_name != owner
                                         and _asks(readings[line - 1].features) > 0
                                         and (owner in readings[line - 1].doers or not readings[line - 1].doers)),
        "accepts_x_speaker": float(speaker and (r.accepts or r.affirmative)),
        "is_subject": float(owner in r.subjects), "other_subject_named": float(bool(set(r.subjects) - {owner})),
        "first_tenth": float(position < 0.1), "last_three": float(line >= len(turns) - 3),
        "speaker_x_will": float(speaker) * _will(f), "speaker_x_request": float(speaker) * _asks(f),
        "addressee_x_request": addressee * _asks(f), "doer_x_mood": float(doer) * max(_asks(f), _will(f)),
        "next_x_request": next_accepts * _asks(f), "speaker_x_now": float(speaker) * max(f["ko_now"], f["en_now"]),
        "speaker_x_past": float(speaker) * max(f["ko_past"], f["en_past"]),
        "chair_x_last_fifth": chair * last_fifth, "speaker_x_dated": float(speaker) * f["dated"],
        "addressee_x_dated": addressee * max(f["dated"], next_dated),
        "talk_now": max(f["ko_speech"], f["en_speech"]) * (1.0 - f["dated"]) * max(_asks(f), _will(f)),
    })
    return [row[k] for k in FEATURE_NAMES]


@dataclass(frozen=True)
class MeetingFacts:
    chair: str | None
    share: dict[str, float]


def meeting_facts(turns: Sequence[Utterance]) -> MeetingFacts:
    """The chair is the person who takes the most turns; talk share is each person's turns."""
    counts = Counter(t.speaker_name for t in turns)
    total = max(1, sum(counts.values()))
    chair = counts.most_common(1)[0][0] if counts else None
    return MeetingFacts(chair, {n: c / total for n, c in counts.items()})


def pair_rows(turns: Sequence[Utterance], meeting_date: date
              ) -> tuple[list[Candidate], np.ndarray, list[TurnReading]]:
    """Every (line, candidate owner) of a meeting with its feature row."""
    names = list(dict.fromkeys(t.speaker_name for t in turns))
    readings = [read_turn(t, names, meeting_date) for t in turns]
    facts = meeting_facts(turns)
    cands = [c for line in range(len(turns)) for c in candidates(line, turns, readings[line])]
    rows = np.array([pair_row(c, turns, readings, facts) for c in cands], dtype=np.float64)
    return cands, rows.reshape(len(cands), len(FEATURE_NAMES)), readings
