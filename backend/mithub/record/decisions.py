"""Decisions a meeting settled, LLM-free: a learned model says which turns settle something
(record/settle_model.py, fitted on data by `python -m mithub.record.training decisions`), and
each settling turn becomes a decision (subject, value type, value), with who said it, the
utterance it cites and the model's confidence.

A decision below the model's threshold (chosen by cross-validation for precision) is kept as
a candidate: stored, shown only on request (`--candidates`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import date, datetime

import numpy as np

from mithub.clock import local_date
from mithub.context.models import Utterance
from mithub.embedders.base import Embedder
from mithub.record.models import Decision
from mithub.record.pair_model import (
    called_off,
    choice_phrases,
    discussed_terms,
    proposed_values,
    puts_on_table,
    split_values,
)
from mithub.record.settle_model import SettleModel, settle_model
from mithub.record.stance import is_korean
from mithub.record.turn_features import TurnInfo, adopts_proposal, analyse_turn, turns_of
from mithub.record.values import Value, display_text, extract_values, values_agree
from mithub.text import keyword_candidates

# Words of the settling form itself, dropped from a subject.
_CUE_WORDS = frozenset(
    "확정 결정 배정 진행 그럼 그러면 okay ok so then final answer let go agreed decided fixed "
    "that works treat".split()
)
# "…로 하죠" with no value: the thing chosen is the words before "로" ("과제형으로").
_KO_CHOICE = re.compile(r"([가-힣A-Za-z0-9·]+?(?:\s[가-힣A-Za-z0-9·]+?)?)(?:으로|로|걸로)\s*(?:하|할|가|갈|갑)")
_EN_CHOICE = re.compile(r"\bgo(?:ing)? with ([A-Z][\w-]*(?:\s[A-Z][\w-]*)*)")
_FILLERS = re.compile(r"^(?:\W|음|어|네|아|그럼|그러면|um|uh|yeah|okay|ok|so)+\s*", re.IGNORECASE)
_MAX_QUOTE = 160
WINDOW = 2  # one decision per two lines either side: a proposal, its settling line and a confirmation


def _choice(sentence: str) -> str | None:
    match = (_KO_CHOICE if is_korean(sentence) else _EN_CHOICE).search(sentence)
    if match is None:
        return None
    words = [w for w in match.group(1).split() if w.lower() not in _CUE_WORDS and w not in {"그렇게", "이렇게", "그걸", "그거", "이걸"}]
    return " ".join(words) or None


def decision_subject(sentence: str, values: Sequence[Value]) -> str:
    """Key terms of what was decided: the sentence's nouns without its values and cues."""
    text = sentence
    for value in sorted(values, key=lambda v: v.start, reverse=True):
        text = text[:value.start] + " " + text[value.end:]
    terms: list[str] = []
    for term in keyword_candidates(text):
        if term.lower() not in _CUE_WORDS and term not in terms:
            terms.append(term)
    return " ".join(terms[:6])


def condense(text: str, limit: int = _MAX_QUOTE) -> str:
    """The utterance's words, cut with "…" when long (a quote in a notice or a list)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def listed_lines(probs: np.ndarray, floor: float, values: Sequence[Sequence[Value]] | None = None,
                 window: int = WINDOW) -> list[int]:
    """Turns kept as decisions: at least `floor`, the most probable first. A turn within
    `window` lines of a kept one is the same decision (its proposal or confirmation) unless both
    carry values and none of them agree: a chair settling two things on two lines settles two."""
    chosen: list[int] = []
    for i in np.argsort(-probs, kind="stable"):
        i = int(i)
        if probs[i] < floor:
            break
        near = [j for j in chosen if abs(i - j) <= window]
        if not near or (values is not None and _distinct(values, i, near)):
            chosen.append(i)
    return sorted(chosen)


def _distinct(values: Sequence[Sequence[Value]], i: int, near: Sequence[int]) -> bool:
    mine = [v for v in values[i] if v.kind not in {"person", "name"}]
    for j in near:
        theirs = [v for v in values[j] if v.kind not in {"person", "name"}]
        if not mine or not theirs or any(values_agree(a, b) for a in mine for b in theirs):
            return False
    return True


def takes_up(speaker: str, line: TurnInfo, proposer: str, proposal: TurnInfo) -> bool:
    """`line` adopts `proposal`, said just before it: it takes it up by a pro-form
    (`turn_features.adopts_proposal`: "네 그렇게 하죠", "fine, go with that"), states no value
    or option of its own, and answers another speaker whose line put a value, an option or a
    cancellation on the table."""
    if speaker == proposer or not adopts_proposal(line):
        return False
    if split_values(line.text, line.values)[0] or choice_phrases(line.text)[0]:
        return False
    return puts_on_table(proposal.text, proposal.values)


def spoken(text: str) -> str:
    """A line's words as a decision keeps them (`Decision.said`): uncut, spaces collapsed."""
    return " ".join(text.split())


def adopted_words(agreement: str, proposer: str, proposal: str) -> str:
    """An adopted proposal's words, uncut: "네, 그렇게 하죠. ← 이수민: 오픈을 9시로 당기면 어떨까요?"."""
    return spoken(f"{agreement} ← {proposer}: {proposal}")


def adopted_quote(agreement: str, proposer: str, proposal: str) -> str:
    """What an adopted proposal is quoted as: "네, 그렇게 하죠. ← 이수민: …9시로 당기면 어떨까요?"."""
    return condense(adopted_words(agreement, proposer, proposal))


def adoptions(turns: Sequence[Utterance], infos: Sequence[TurnInfo]) -> dict[int, int]:
    """Each line that adopts the proposal just before it (`takes_up`), with the proposal's line."""
    return adoptions_by([t.speaker_name for t in turns], infos)


def adoptions_by(speakers: Sequence[str], infos: Sequence[TurnInfo]) -> dict[int, int]:
    """`adoptions` from each line's speaker and analysis (training has no utterances)."""
    return {i: i - 1 for i in range(1, len(speakers)) if takes_up(speakers[i], infos[i], speakers[i - 1], infos[i - 1])}


def with_adoptions(adopted: dict[int, int], proposals: Mapping[int, str], probs: Sequence[float] | np.ndarray,
                   values: Sequence[list[Value]], threshold: float) -> tuple[np.ndarray, list[list[Value]]]:
    """A proposal adopted by the next speaker is settled: the agreement is listed, at least at
    the threshold users see (its own probability is low: a bare "그렇게 하죠" names nothing),
    with the proposal's values (what it settles). `proposals`: each adopted proposal's words."""
    lifted, settled = np.array(probs, dtype=np.float64), list(values)
    for line, proposal in adopted.items():
        lifted[line] = max(lifted[line], threshold)
        settled[line] = proposed_values(proposals[proposal], values[proposal])
    return lifted, settled


def describe(meeting_id: str, utterance: Utterance, previous: str, reference: date, names: Sequence[str],
             confidence: float, threshold: float, proposal: Utterance | None = None) -> Decision:
    """A settling turn as a decision: its values (the first one's kind is the value type),
    else the option chosen ("과제형으로 하죠"), and the key terms it is about; a short line
    takes its subject from the line before ("Okay, two-year term."). A line that adopts a
    `proposal` settles the proposal's values and subject, and quotes it."""
    if proposal is not None:
        decision = describe(meeting_id, proposal, previous, reference, names, confidence, threshold)
        values = proposed_values(proposal.text, extract_values(proposal.text, reference=reference, names=names))
        value = ", ".join(dict.fromkeys(display_text(v) for v in values if display_text(v))) or decision.value
        said = adopted_words(utterance.text, proposal.speaker_name, proposal.text)
        return decision.model_copy(update={
            "id": f"{meeting_id}#d{utterance.id}", "seq": utterance.id, "speaker": utterance.speaker_name,
            "time": utterance.absolute_timestamp, "quote": condense(said), "said": said, "value": value,
            "value_type": values[0].kind if values else decision.value_type})
    text = utterance.text
    # Only the value it settles: not the one it turns down or points back at ("22일 말고 8월
    # 5일로", "지난주 7월 22일로 정했던 베타는 8월 5일"), a condition or an estimate.
    values = split_values(text, extract_values(text, reference=reference, names=names))[0]
    value = ", ".join(dict.fromkeys(display_text(v) for v in values if display_text(v)))
    value_type = values[0].kind if values else "choice"
    if called_off(text) is not None:  # "…잡았던 외부 모의해킹은 취소하겠습니다": what it settles is that nothing holds
        value, value_type = ("취소" if is_korean(text) else "called off"), "choice"
        values = extract_values(text, reference=reference, names=names)  # none is the subject
    if not value:
        value = _choice(text) or _FILLERS.sub("", text)[:60]
    subject = decision_subject(text, values)
    if len(subject.split()) < 2:
        subject = " ".join(dict.fromkeys((subject + " " + decision_subject(previous, [])).split()))
    return Decision(
        id=f"{meeting_id}#d{utterance.id}", meeting_id=meeting_id, seq=utterance.id,
        speaker=utterance.speaker_name, time=utterance.absolute_timestamp,
        subject=subject.strip() or _FILLERS.sub("", text)[:60], value=value, value_type=value_type,
        quote=condense(text), said=spoken(text), confidence=round(float(confidence), 4),
        candidate=bool(confidence < threshold),
    )


def extract_decisions(meeting_id: str, utterances: Sequence[Utterance], started_at: datetime, *,
                      embedder: Embedder | None = None, model: SettleModel | None = None) -> list[Decision]:
    """The decisions of one meeting, in order, candidates included (`candidate=True`).
    Raises ModelLoadError (naming the rebuild command) when the weights are missing."""
    turns = list(utterances)
    if not turns:
        return []
    model = model or settle_model(live=False)
    if embedder is None:
        from mithub.embedders import load_embedder

        embedder = load_embedder()
    reference = local_date(started_at, started_at.tzinfo)  # started_at is on the meeting's clock
    names = sorted({u.speaker_name for u in turns})
    vectors = np.asarray(embedder.embed_documents([u.text for u in turns]), dtype=np.float32)
    infos = [analyse_turn(u.text, reference=reference, names=names) for u in turns]
    probs = model.probabilities(turns_of(turns), reference=reference, vectors=vectors, infos=infos)
    return decisions_from(meeting_id, turns, probs, infos, reference, names, threshold=model.threshold,
                          floor=model.floor)


def decisions_from(meeting_id: str, turns: Sequence[Utterance], probs: Sequence[float] | np.ndarray,
                   infos: Sequence[TurnInfo], reference: date, names: Sequence[str], *, threshold: float,
                   floor: float) -> list[Decision]:
    """The decisions listed from each turn's settle probability (`extract_decisions`; training
    lists them the same way from out-of-fold probabilities)."""
    adopted = adoptions(turns, infos)
    probs, values = with_adoptions(adopted, {p: turns[p].text for p in adopted.values()}, probs,
                                   [extract_values(u.text, reference=reference) for u in turns], threshold)
    out = []
    lines = dict(enumerate(u.text for u in turns))
    settled = -1  # the last line of a decision users see: the talk that led to the next one starts after it
    for i in listed_lines(probs, floor, values):
        start = adopted.get(i, i)  # the subject falls back on the line before what is settled
        decision = describe(meeting_id, turns[i], turns[start - 1].text if start else "", reference, names, probs[i],
                            threshold, turns[adopted[i]] if i in adopted else None)
        out.append(decision.model_copy(update={"discussed": discussed_terms(lines, i, settled)}))
        if not decision.candidate:
            settled = i
    return out
