"""Turn-level features for the record's learned models (a decision-settling turn, a
commitment turn). Every feature has a reason; none is a phrase of any meeting:

- `korean_morphology`: kiwi morpheme TAGS -- the final ending's mood (declarative,
  volitional -ㄹ게, propositive -자/-ㅂ시다/-시죠, interrogative), pre-final -겠-/past/-시-,
  the -기로 construction (ETN+JKB), a choice "X로 + verb" (JKB+VV), negation (MAG 안/못,
  VX 않/말, VCN), conditionals (EC -면), quotation (JKQ), the predicate's part of speech.
- `english_modality`: modal verbs, person, mood, negation, conditionals (closed-class words).
- `value_types`: the values present and their kinds (record/values.py extract_values).
- `stance_cues`: the existing stance cues (record/stance.py), each a single feature.
- `dialogue_context`: agreement in the next turns, who speaks next, a proposal or question
  just before, a value taken up from the lines before (causal part) or by the next line.
- `speaker_role`: SpeakerContext's role of the speaker so far (facilitator, ...).
- `embedding_shift`: novelty against the lines before, and a shift after (topic closing).

    turns = [Turn("김지현", "그럼 15대로 모집하자."), ...]
    rows = meeting_features(turns, reference=date(2026, 5, 4), lookahead=2)
    X = vectorize(rows, names)         # names: the model's feature names, in order

`lookahead` is how many later turns a feature may read: 0 for the live path (a line is
judged when it is said), 2 when a finished meeting is read. Features that need later turns
are 0 when `lookahead` is 0, so a model must be trained with the lookahead it runs with.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

import numpy as np

from mithub.context.models import Utterance
from mithub.context.speaker_context import SpeakerContext
from mithub.record.stance import stance
from mithub.record.values import Value, extract_values, values_agree
from mithub.text import has_hangul, split_sentences
from mithub.text.korean import CONDITIONAL_ENDING, NEGATORS, PROPOSITIVE_ENDINGS, VOLITIONAL_ENDINGS, ending_form

VALUE_KINDS = ("amount", "percent", "count", "duration", "time", "number", "date", "person", "name")
ROLES = ("facilitator", "presenter", "participant", "observer")


@dataclass(frozen=True)
class Turn:
    """One line of a meeting as the models see it."""

    speaker: str
    text: str


@dataclass(frozen=True)
class TurnInfo:
    """What one turn's features are computed from, computed once per turn."""

    text: str
    korean: bool
    morphemes: tuple[tuple[str, str], ...]
    values: tuple[Value, ...]
    words: int
    agrees: bool  # opens with an agreement (IC interjection, 좋다/맞다, "okay", "sure")
    asks: bool  # ends as a question


# ---------------------------------------------------------------- Korean morphology
# Final endings (EF) by mood. kiwi writes a coda-initial ending with a jamo ("ᆸ시다",
# "ᆯ게요"); the form is compared after that jamo is dropped.
# "-ㄹ까요" asks; the causal "-니까요" closing a sentence ("제가 담당이니까요") does not.
_INTERROGATIVE = re.compile(r"(?:까|(?<!니)까요|나|나요|니|냐|가요|ㄴ가|는가|는지|는지요|래요)$")
_FIRST_PERSON_KO = frozenset({"저", "제", "저희", "우리", "나", "내"})


@lru_cache(maxsize=4096)
def _korean_morphemes(text: str) -> tuple[tuple[str, str], ...]:
    from mithub.text.korean import morphemes

    return tuple((m.form, m.tag) for m in morphemes(text))


korean_morphemes = _korean_morphemes  # (form, tag) pairs of a Korean text, cached


def korean_morphology(morphs: Sequence[tuple[str, str]]) -> dict[str, float]:
    """Mood of the last final ending and the grammatical morphemes that settle, hedge,
    negate or suppose, by kiwi tag."""
    f: dict[str, float] = {}
    finals = [i for i, (_, tag) in enumerate(morphs) if tag == "EF"]
    last = finals[-1] if finals else None
    form = ending_form(morphs[last][0]) if last is not None else ""
    before = morphs[last - 1] if last is not None and last > 0 else ("", "")
    question = any(t == "SF" and m == "?" for m, t in morphs[-2:])
    f["mood_interrogative"] = float(question or bool(form and _INTERROGATIVE.search(form)))
    f["mood_propositive"] = float(form in PROPOSITIVE_ENDINGS or (form == "죠" and before == ("시", "EP")))
    f["mood_volitional"] = float(form in VOLITIONAL_ENDINGS)
    f["mood_jyo"] = float(form in {"죠", "지요"} and before != ("시", "EP"))
    f["mood_declarative"] = float(bool(form) and not any(f[k] for k in
                                  ("mood_interrogative", "mood_propositive", "mood_volitional", "mood_jyo")))
    f["mood_none"] = float(last is None)  # a fragment: "네, 1억 8천."
    f["ko_ends_connective"] = float(bool(morphs) and _last_content_tag(morphs) == "EC")
    f["ko_future_gyet"] = float(any(m == ("겠", "EP") for m in morphs))
    f["ko_past"] = float(any(t == "EP" and ending_form(m) in {"었", "았", "였", "ㅆ"} for m, t in morphs))
    f["ko_honorific_si"] = float(any(m == ("시", "EP") for m in morphs))
    f["ko_giro"] = float(_follows(morphs, ("기", "ETN"), "JKB"))
    f["ko_choice_ro"] = float(_choice_construction(morphs))
    f["ko_adnominal_future"] = float(any(t == "ETM" and m in {"ᆯ", "을"} for m, t in morphs))
    f["ko_nominal_hedge"] = float(_hedge_construction(morphs))
    f["negated"] = float(any((m, t) in NEGATORS for m, t in morphs))
    f["conditional"] = float(any(t == "EC" and CONDITIONAL_ENDING.search(m) for m, t in morphs))
    f["quotative"] = float(any(t == "JKQ" for _, t in morphs) or
                           any(t == "EC" and m in {"다고", "라고", "자고", "냐고"} for m, t in morphs))
    f["first_person"] = float(any(t == "NP" and m in _FIRST_PERSON_KO for m, t in morphs))
    pred = _predicate_tag(morphs, last)
    for tag in ("VV", "VA", "VCP", "XSV", "VX"):
        f[f"predicate_{tag}"] = float(pred == tag)
    f["proper_nouns"] = min(2.0, float(sum(t == "NNP" for _, t in morphs)))
    f["opens_interjection"] = float(bool(morphs) and morphs[0][1] == "IC")
    return f


def _last_content_tag(morphs: Sequence[tuple[str, str]]) -> str:
    for _, tag in reversed(morphs):
        if not tag.startswith("S"):
            return tag
    return ""


def _follows(morphs: Sequence[tuple[str, str]], first: tuple[str, str], tag: str) -> bool:
    return any(morphs[i] == first and morphs[i + 1][1] == tag for i in range(len(morphs) - 1))


def _choice_construction(morphs: Sequence[tuple[str, str]]) -> bool:
    """"X(으)로 + verb": a value or option chosen (JKB 로 then a verb within two morphemes)."""
    for i, (m, t) in enumerate(morphs):
        if t == "JKB" and m in {"로", "으로"} and any(tt in {"VV", "XSV"} for _, tt in morphs[i + 1:i + 3]):
            return True
    return False


def _hedge_construction(morphs: Sequence[tuple[str, str]]) -> bool:
    """"-ㄹ/-는 것 같다" and "-면 좋겠다": a dependent noun or a wish before an evaluative adjective."""
    for i in range(len(morphs) - 1):
        (m, t), (m2, t2) = morphs[i], morphs[i + 1]
        if t == "NNB" and m in {"것", "거"} and t2 == "VA" and m2 == "같":
            return True
        if t == "VA" and m == "좋" and m2 == "겠":
            return True
    return False


def _predicate_tag(morphs: Sequence[tuple[str, str]], last: int | None) -> str:
    if last is None:
        return ""
    for m, t in reversed(morphs[:last]):
        if t in {"VV", "VA", "VCP", "XSV", "VX", "XSA", "VCN"}:
            return t
    return ""


# ---------------------------------------------------------------- English modality
_EN_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
_AGREEMENT_WORDS = frozenset("okay ok yes yeah yep sure fine agreed alright right great good perfect deal "
                             "absolutely exactly correct done works".split())
_AUX_QUESTION = frozenset("do does did is are was were can could should would will shall may might have has".split())
_WH = frozenset("what which who when where why how".split())


def english_modality(text: str) -> dict[str, float]:
    """Modal verbs, person, mood, negation and conditionals from closed-class words."""
    words = _EN_WORD.findall(text.lower().replace("’", "'"))
    ws = set(words)
    first = words[0] if words else ""
    f: dict[str, float] = {}
    question = text.rstrip().endswith("?") or (first in _AUX_QUESTION | _WH and len(words) > 2)
    f["mood_interrogative"] = float(question)
    f["mood_propositive"] = float("let's" in ws or "lets" in ws or ("let" in ws and "us" in ws))
    will = bool(ws & {"will", "we'll", "i'll", "shall", "gonna"}) or _bigram(words, "going", "to")
    f["mood_volitional"] = float(will and bool(ws & {"we", "i", "we'll", "i'll", "us"}))
    f["mood_declarative"] = float(not question and bool(ws & {"is", "are", "it's", "that's", "we're", "'s"}))
    f["en_weak_modal"] = float(bool(ws & {"could", "might", "may", "would", "maybe", "perhaps", "probably", "possibly"}))
    f["en_obligation"] = float(bool(ws & {"should", "must"}) or _bigram(words, "need", "to") or _bigram(words, "have", "to"))
    f["negated"] = float(bool(ws & {"not", "no", "never", "nobody", "nothing"}) or any(w.endswith("n't") for w in words))
    f["conditional"] = float(bool(ws & {"if", "unless", "suppose", "assuming"}))
    f["first_person"] = float(bool(ws & {"we", "we'll", "we're", "us", "our", "i", "i'll", "i'm", "my"}))
    f["en_second_person"] = float(bool(ws & {"you", "you'll", "your", "you're"}))
    f["en_third_person"] = float(bool(ws & {"they", "they'll", "they're", "he", "she", "their"}))
    f["en_past"] = float(bool(ws & {"said", "was", "were", "had", "did", "decided", "agreed"}))
    f["opens_interjection"] = float(first in _AGREEMENT_WORDS or first in {"so", "then", "um", "uh"})
    f["quotative"] = float(bool(ws & {"said", "says", "told", "asked"}))
    return f


def _bigram(words: Sequence[str], a: str, b: str) -> bool:
    return any(words[i] == a and words[i + 1] == b for i in range(len(words) - 1))


# ---------------------------------------------------------------- adopting a proposal
_EN_SUBJECTS = frozenset("i you we they he she it that this there i'm i'll i'd i've we're we'll we'd we've you're "
                         "you've they're they've it's that's there's what".split())
_EN_PREPOSITIONS = frozenset({"with", "for", "to", "on"})
_EN_TAIL = frozenset({"then", "now", "please", "today"})
_EN_OPENERS = _AGREEMENT_WORDS | {"so", "then", "um", "uh", "well", "and", "enough", "fair"}
_EN_ANAPHORA = frozenset({"it", "that", "this", "them"})
_DO_GO = frozenset({"하", "가"})


def adopts_proposal(info: TurnInfo) -> bool:
    """The turn takes up what was just proposed by a pro-form, and settles it: in Korean 그렇게
    / 그걸로 with 하다 or 가다 ("그렇게 하죠", "그렇게 갑시다", "어 그래, 그렇게 해"); in
    English a sentence that is "let's" or the opening interjections, a verb and it / that as
    its object, closing the sentence ("Yes, let's keep it", "Fine, do it", "okay, go with
    that"). A question or a negation adopts nothing, nor does a reply without the pro-form ("네,
    좀 빠듯해요" answers; "그땐 원가가 달랐죠" confirms; "그건 그때 가서 봅시다" defers)."""
    if info.asks:
        return False
    if info.korean:
        morphs = info.morphemes
        if any((m, t) in {("안", "MAG"), ("않", "VX"), ("못", "MAG")} for m, t in morphs):
            return False
        for i, (m, t) in enumerate(morphs[:-2]):
            nxt = morphs[i + 1:i + 3]
            # the light verbs of doing and going only: "그렇게 말씀드릴게요" tells, it adopts nothing
            if (m, t) == ("그렇", "VA") and nxt[0] == ("게", "EC") and nxt[1][0] in _DO_GO:
                return True
            if t == "NP" and m.startswith("그") and nxt[0][0] in {"로", "으로"} and nxt[1][0] in _DO_GO:
                return True
        return False
    modality = english_modality(info.text)
    if modality["negated"] or modality["mood_interrogative"]:
        return False
    return any(_en_adopts(s) for s in split_sentences(info.text) or [info.text])


def _en_adopts(sentence: str) -> bool:
    words = _EN_WORD.findall(sentence.lower().replace("’", "'"))
    while words and words[-1] in _EN_TAIL:
        words.pop()
    k = 0
    while k < len(words) and words[k] in _EN_OPENERS:
        k += 1
    rest, lead = words[k:], k > 0
    if rest[:1] == ["let's"]:
        rest, lead = rest[1:], True
    # a verb, then the pro-form as its object closing the sentence: "do it", "go with that"
    if not lead or len(rest) not in (2, 3) or rest[0] in _EN_SUBJECTS or len(rest[0]) < 2 or rest[-1] not in _EN_ANAPHORA:
        return False
    return len(rest) == 2 or rest[1] in _EN_PREPOSITIONS


# ---------------------------------------------------------------- values and stance
def value_types(values: Sequence[Value]) -> dict[str, float]:
    """How many values of each kind the turn carries (0, 1 or 2+)."""
    f = {f"value_{k}": min(2.0, float(sum(v.kind == k for v in values))) for k in VALUE_KINDS}
    f["value_any"] = float(bool(values))
    f["value_numeric_or_date"] = float(any(v.kind not in {"person", "name"} for v in values))
    return f


def stance_cues(text: str) -> dict[str, float]:
    """record/stance.py's cues over the turn's sentences, each a single feature."""
    sentences = split_sentences(text) or [text]
    cues = [stance(s) for s in sentences]
    f = {}
    for name in ("settles", "states", "opening", "hedged", "requested", "hypothetical", "negated",
                 "question", "reported", "points_back", "changes", "keeps"):
        f[f"cue_{name}"] = float(any(getattr(c, name) for c in cues))
    f["cue_last_settles"] = float(cues[-1].settles)
    f["sentences"] = min(4.0, float(len(sentences)))
    return f


# ---------------------------------------------------------------- one turn
def analyse_turn(text: str, *, reference: date | None, names: Sequence[str]) -> TurnInfo:
    korean = has_hangul(text)
    morphs = _korean_morphemes(text) if korean else ()
    values = tuple(extract_values(text, reference=reference, names=names))
    words = len(text.split())
    if korean:
        head = [m for m in morphs if not m[1].startswith("S")][:2]
        agrees = bool(head) and (head[0][1] == "IC" or head[0][0] in {"좋", "맞", "그렇", "알"})
        asks = korean_morphology(morphs)["mood_interrogative"] > 0
    else:
        first = (_EN_WORD.findall(text.lower()) or [""])[0]
        agrees = first in _AGREEMENT_WORDS
        asks = english_modality(text)["mood_interrogative"] > 0
    return TurnInfo(text, korean, morphs, values, words, agrees, asks)


def turn_own_features(info: TurnInfo) -> dict[str, float]:
    """The features of a turn alone (no neighbours)."""
    f = korean_morphology(info.morphemes) if info.korean else english_modality(info.text)
    f["lang_ko"] = float(info.korean)
    f["log_words"] = math.log1p(info.words)
    f["short"] = float(info.words <= 4)
    f.update(value_types(info.values))
    f.update(stance_cues(info.text))
    return f


# ---------------------------------------------------------------- neighbours
def dialogue_context(infos: Sequence[TurnInfo], speakers: Sequence[str], i: int, lookahead: int) -> dict[str, float]:
    """The lines around turn i: a proposal or question before; agreement and who speaks next."""
    f: dict[str, float] = {}
    prev = infos[i - 1] if i > 0 else None
    f["prev_asks"] = float(prev is not None and prev.asks)
    f["prev_has_value"] = float(prev is not None and bool(prev.values))
    f["prev_same_speaker"] = float(i > 0 and speakers[i - 1] == speakers[i])
    earlier = [v for info in infos[max(0, i - 3):i] for v in info.values]
    own = infos[i].values
    f["value_taken_up"] = float(any(values_agree(v, w) for v in own for w in earlier))
    f["value_new"] = float(any(not any(values_agree(v, w) for w in earlier) for v in own))
    after = infos[i + 1:i + 1 + lookahead]
    after_speakers = speakers[i + 1:i + 1 + lookahead]
    nxt = after[0] if after else None
    f["next_agrees"] = float(nxt is not None and nxt.agrees and not nxt.asks)
    f["next_short"] = float(nxt is not None and nxt.words <= 4)
    f["next_asks"] = float(nxt is not None and nxt.asks)
    f["next_other_speaker"] = float(bool(after_speakers) and after_speakers[0] != speakers[i])
    f["next_repeats_value"] = float(nxt is not None and any(values_agree(v, w) for v in own for w in nxt.values))
    agreeing = {s for info, s in zip(after, after_speakers, strict=False) if info.agrees and not info.asks and s != speakers[i]}
    f["agreeing_speakers_after"] = float(len(agreeing))
    f["next_new_value"] = float(nxt is not None and any(not any(values_agree(w, v) for v in own) for w in nxt.values))
    return f


def speaker_role(role: str | None, share: float) -> dict[str, float]:
    f = {f"role_{r}": float(role == r) for r in ROLES}
    f["speaker_turn_share"] = share
    return f


def embedding_shift(vectors: np.ndarray | None, i: int, lookahead: int) -> dict[str, float]:
    """Novelty of the turn against the 5 before; a shift of subject right after it (a
    settled point often closes a topic)."""
    if vectors is None or len(vectors) == 0:
        return {"novelty": 0.0, "shift_after": 0.0}
    before = vectors[max(0, i - 5):i]
    novelty = 1.0 - _cos(vectors[i], before.mean(axis=0)) if len(before) else 0.0
    after = vectors[i + 1:i + 1 + lookahead]
    shift = 1.0 - _cos(after.mean(axis=0), vectors[max(0, i - 2):i + 1].mean(axis=0)) if len(after) else 0.0
    return {"novelty": novelty, "shift_after": shift}


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else 0.0


# ---------------------------------------------------------------- a meeting
def speaker_roles_so_far(turns: Sequence[Turn]) -> list[tuple[str | None, float]]:
    """Each turn's speaker role and turn share from the turns up to it (what a live meeting knows)."""
    context = SpeakerContext()
    out: list[tuple[str | None, float]] = []
    counts: dict[str, int] = {}
    for n, turn in enumerate(turns, 1):
        context.add_utterance(_as_utterance(n, turn))
        counts[turn.speaker] = counts.get(turn.speaker, 0) + 1
        roles = context.infer_roles()
        out.append((roles.get(turn.speaker), counts[turn.speaker] / n))
    return out


def _as_utterance(n: int, turn: Turn) -> Utterance:
    from datetime import datetime, timezone

    return Utterance(id=n, speaker_id=turn.speaker, speaker_name=turn.speaker, text=turn.text,
                     absolute_timestamp=datetime(2000, 1, 1, tzinfo=timezone.utc))


def meeting_features(
    turns: Sequence[Turn], *, reference: date | None, lookahead: int,
    vectors: np.ndarray | None = None, infos: Sequence[TurnInfo] | None = None,
    roles: Sequence[tuple[str | None, float]] | None = None,
) -> list[dict[str, float]]:
    """One feature dict per turn. `vectors`: the turns' sentence embeddings (optional);
    `infos`/`roles`: precomputed analyses, to reuse across calls."""
    names = sorted({t.speaker for t in turns})
    infos = list(infos) if infos is not None else [analyse_turn(t.text, reference=reference, names=names) for t in turns]
    roles = list(roles) if roles is not None else speaker_roles_so_far(turns)
    speakers = [t.speaker for t in turns]
    rows = []
    for i, info in enumerate(infos):
        f = turn_own_features(info)
        f.update(dialogue_context(infos, speakers, i, lookahead))
        f.update(speaker_role(*roles[i]))
        f.update(embedding_shift(vectors, i, lookahead))
        rows.append(f)
    return rows


def vectorize(rows: Sequence[dict[str, float]], names: Sequence[str]) -> np.ndarray:
    """Rows as a matrix in the order of `names`; a feature a row lacks is 0."""
    return np.asarray([[row.get(n, 0.0) for n in names] for row in rows], dtype=np.float64)


def turns_of(utterances: Sequence[Utterance]) -> list[Turn]:
    return [Turn(u.speaker_name, u.text) for u in utterances]
