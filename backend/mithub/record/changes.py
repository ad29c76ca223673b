"""Change detection: does a line of today's meeting change or contradict an active decision
of the series? LLM-free by default.

A line conflicts with a past decision when it firmly states (not asks, supposes, rejects or
reports) a value of the same kind as one the decision settled, that value differs from
every value of that kind in the decision, and the line is about the decision's subject:
sentence embeddings plus shared key terms. The decision the line is most about wins; if
that one agrees with the line ("이억 사천 그대로"), it is a restatement, not a change.

`ChangeDetector` embeds the ledger once; `check` then costs one embedding of the line,
and only when the line carries a value comparable with some decision.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import numpy as np

from mithub.clock import local_date
from mithub.context.models import Utterance
from mithub.embedders.base import Embedder
from mithub.record.decisions import NOW_WORDS, condense
from mithub.record.models import Decision, DecisionChange, PastRef
from mithub.record.stance import (
    clause_is_conditional,
    clause_points_back,
    is_approximate,
    stance,
    value_is_rejected,
)
from mithub.record.values import Value, comparable, display_text, extract_values, values_agree
from mithub.text import keyword_candidates, split_sentences

# An optional second opinion on a candidate pair (an LLM when one is configured): True
# confirms, False vetoes, None abstains.
PairCheck = Callable[[Decision, Utterance, Sequence[Utterance]], "bool | None"]


@dataclass(frozen=True)
class ChangeSettings:
    """`embed_weight` mixes embedding similarity with key-term overlap into the subject
    score; a conflict is flagged when the score reaches `min_score`. Defaults are chosen by
    leave-one-series-out cross-validation in benchmarks/decisions.py."""

    embed_weight: float = 0.3
    min_score: float = 0.15
    explicit_bonus: float = 0.3


@dataclass(frozen=True)
class DecisionMatch:
    """How one line relates to one past decision with comparable values."""

    index: int  # position in the detector's decisions
    cosine: float
    overlap: float
    conflict: bool  # a new value differs from all of the decision's values of its kind
    old_value_cited: bool  # the line cites the decision's value as the old one
    points_back: bool  # "지난주에", "last week", "we said"

    def score(self, settings: ChangeSettings) -> float:
        base = settings.embed_weight * self.cosine + (1 - settings.embed_weight) * self.overlap
        return base + (settings.explicit_bonus if self.old_value_cited else 0.0)


@dataclass
class _Ledger:
    decisions: list[Decision]
    values: list[list[Value]] = field(default_factory=list)
    terms: list[set[str]] = field(default_factory=list)
    vectors: np.ndarray | None = None


def _terms(text: str) -> set[str]:
    return {t.lower() for t in keyword_candidates(text) if not any(c.isdigit() for c in t)}


def _overlap(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / math.sqrt(len(a) * len(b))


def decision_values(decision: Decision, names: Sequence[str] = (), reference: date | None = None) -> list[Value]:
    """The values a decision settled: those of its quote that its `value` names."""
    found = extract_values(decision.quote, reference=reference or decision.time.date(), names=names)
    named = [v for v in found if display_text(v) and display_text(v) in decision.value]
    return named or found


class ChangeDetector:
    """Checks lines of one meeting against the active decisions of its series."""

    def __init__(
        self,
        embedder: Embedder,
        decisions: Sequence[Decision],
        *,
        meeting_id: str,
        started_at: datetime,
        names: Sequence[str] = (),
        meeting_dates: Mapping[str, date] | None = None,
        settings: ChangeSettings | None = None,
        pair_check: PairCheck | None = None,
    ) -> None:
        """`meeting_dates`: the local date of each past meeting, to resolve relative dates in
        its decisions ("다음 주 금요일"); without it, a decision's UTC date is used."""
        self.embedder = embedder
        self.meeting_id = meeting_id
        self.reference: date = local_date(started_at, started_at.tzinfo)  # on the meeting's clock
        self.names = list(names)
        self.settings = settings or ChangeSettings()
        self.pair_check = pair_check
        self._meeting_dates = dict(meeting_dates or {})
        self._ledger = _Ledger([])
        self._retired: set[int] = set()
        self.add_decisions(decisions)

    def add_decisions(self, decisions: Sequence[Decision]) -> None:
        """Add active decisions to the ledger (embedded once, here)."""
        active = [d for d in decisions if d.status == "active"]
        if not active:
            return
        for decision in active:
            reference = self._meeting_dates.get(decision.meeting_id)
            self._ledger.values.append(decision_values(decision, self.names, reference))
            self._ledger.terms.append(_terms(f"{decision.subject} {decision.quote}"))
        vectors = np.asarray(self.embedder.embed_documents([f"{d.subject}. {d.quote}" for d in active]),
                             dtype=np.float32)
        old = self._ledger.vectors
        self._ledger.vectors = vectors if old is None else np.vstack([old, vectors])
        self._ledger.decisions.extend(active)

    def mark_changed(self, decision_id: str) -> None:
        """A line of this meeting changed the decision: a later line most about it restates or
        refines that change ("베타 오픈 시간은 오전 10시로"), so it is no second change, and it
        is not taken for a change of the next-closest decision either."""
        for index, decision in enumerate(self._ledger.decisions):
            if decision.id == decision_id:
                self._retired.add(index)

    @property
    def decisions(self) -> list[Decision]:
        return self._ledger.decisions

    def assess(self, utterance: Utterance, previous_lines: Sequence[Utterance] = ()) -> list[DecisionMatch]:
        """Every past decision that has a value comparable with a value this line states."""
        new_values, old_values, points_back, stating = self._stated_values(utterance.text)
        if not new_values or self._ledger.vectors is None:
            return []
        related = []
        for index, settled in enumerate(self._ledger.values):
            pairs = [(v, w) for v in new_values for w in settled if comparable(v, w)]
            if pairs:
                related.append((index, pairs))
        if not related:
            return []
        query = np.asarray(self.embedder.embed_queries([stating]), dtype=np.float32)[0]
        # A short line leans on the lines before it for its subject ("베타 모집 건이요" …
        # "모집 인원은 300명으로").
        terms = _terms(stating) | set().union(*(_terms(p.text) for p in previous_lines[-2:]))
        matches = []
        for index, pairs in related:
            settled = self._ledger.values[index]
            conflict = any(not any(values_agree(v, w) for w in settled if comparable(v, w)) for v, _ in pairs)
            cited = any(values_agree(o, w) for o in old_values for w in settled)
            matches.append(DecisionMatch(
                index=index, cosine=float(self._ledger.vectors[index] @ query),
                overlap=_overlap(terms, self._ledger.terms[index]), conflict=conflict,
                old_value_cited=cited, points_back=points_back,
            ))
        return matches

    def _stated_values(self, text: str) -> tuple[list[Value], list[Value], bool, str]:
        """(new values stated firmly, old values pointed back at, whether the line points
        back, the sentences that state the new values)."""
        new: list[Value] = []
        old: list[Value] = []
        stating: list[str] = []
        sentences = [(s, stance(s)) for s in split_sentences(text) or [text]]
        found = [extract_values(s, reference=self.reference, names=self.names) for s, _ in sentences]
        # "모집 인원은 300명. 그렇게 가겠습니다.": a settling sentence without values settles
        # the values said beside it.
        bare_settle = any(c.settles and not vs and len(s.split()) <= 5 and not _SELF.search(s)
                          for (s, c), vs in zip(sentences, found, strict=True))
        for (sentence, cues), values in zip(sentences, found, strict=True):
            doubtful = cues.question or cues.hedged or cues.reported or cues.keeps
            # A negated sentence settles only what it does not turn down ("22일 말고 8월 5일로").
            firm = (cues.settles or cues.states or bare_settle) and not doubtful
            before = len(new)
            for value in values:
                if value.text.strip(" 은는에") in NOW_WORDS or is_approximate(sentence, value):
                    continue  # "오늘", "한 300 정도": the meeting itself, an estimate
                if clause_points_back(sentence, value.end) or value_is_rejected(sentence, value):
                    old.append(value)  # "60%로 정했던", "15일 프리즈가 안 됩니다": the old value
                elif firm and not clause_is_conditional(sentence, value.end) \
                        and not (cues.hypothetical and _is_english(sentence)):
                    new.append(value)
            if len(new) > before:
                stating.append(sentence)
        points_back = any(c.points_back for _, c in sentences)
        return new, old, points_back, " ".join(stating)

    def select(self, matches: Sequence[DecisionMatch]) -> DecisionMatch | None:
        """The decision the line is most about; a change only if that one conflicts."""
        if not matches:
            return None
        best = max(matches, key=lambda m: m.score(self.settings))
        if not best.conflict or best.score(self.settings) < self.settings.min_score:
            return None
        return best

    def check(self, utterance: Utterance, previous_lines: Sequence[Utterance] = ()) -> DecisionChange | None:
        """The change this line makes to a past decision, or None."""
        best = self.select(self.assess(utterance, previous_lines))
        if best is None or best.index in self._retired:
            return None
        decision = self._ledger.decisions[best.index]
        if self.pair_check is not None and self.pair_check(decision, utterance, previous_lines) is False:
            return None
        explicit = best.points_back or best.old_value_cited
        return DecisionChange(
            meeting_id=self.meeting_id, seq=utterance.id, speaker=utterance.speaker_name,
            time=utterance.absolute_timestamp, quote=condense(utterance.text),
            kind="explicit" if explicit else "implicit", decision_id=decision.id,
            past=PastRef(meeting_id=decision.meeting_id, seq=decision.seq, quote=decision.quote),
        )


_SELF = re.compile(r"제가|저희가|\bI(?:'ll| will)\b")


def _is_english(text: str) -> bool:
    return not any("가" <= c <= "힣" for c in text)
