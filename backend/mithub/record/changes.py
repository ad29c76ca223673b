"""Change detection: does a line of today's meeting change or contradict an active decision
of the series? LLM-free by default, learned from data.

A change is a new settled value of the same type for the same subject, differing from an
active decision's value (a cancellation too; a restatement is not). Two fitted models say so:
the live settle model (does this line settle something, judged when it is said) and the pair
model (this line against each active decision: value types and values, subject by embeddings
and key terms, the line's stance). The most probable decision wins; at or above the pair
model's threshold the change is announced, between its floor and the threshold it is kept as
a candidate. A decision changed today is retired: a later line about it restates the change.

`ChangeDetector` embeds the ledger once; `check` then costs one embedding and one kiwi
analysis of the line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime

import numpy as np

from mithub.clock import local_date
from mithub.context.models import Utterance
from mithub.context.speaker_context import SpeakerContext
from mithub.embedders.base import Embedder
from mithub.record.decisions import adopted_quote, condense, takes_up
from mithub.record.models import Decision, DecisionChange, PastRef
from mithub.record.pair_model import (
    LineView,
    PairModel,
    PastDecision,
    adopted,
    called_off,
    choice_phrases,
    key_terms,
    line_cues,
    name_tokens,
    pair_model,
    split_values,
    value_subjects,
)
from mithub.record.settle_model import SettleModel, settle_model
from mithub.record.turn_features import Turn, TurnInfo, analyse_turn, meeting_features
from mithub.record.values import Value, extract_values

# An optional second opinion on a candidate pair (an LLM when one is configured): True
# confirms, False vetoes, None abstains.
PairCheck = Callable[[Decision, Utterance, Sequence[Utterance]], "bool | None"]
HISTORY = 6  # lines a live feature reads: three before for the dialogue, five for novelty


def decision_values(decision: Decision, names: Sequence[str] = (), reference: date | None = None) -> list[Value]:
    """The values a decision settled: those of the words it rests on (`Decision.said`, uncut)."""
    return extract_values(said_of(decision), reference=reference or decision.time.date(), names=names)


def said_of(decision: Decision) -> str:
    """What the change check reads of a decision: its words uncut, or its quote in a record
    stored before they were kept."""
    return decision.said or decision.quote


def past_view(decision: Decision, vector: np.ndarray, names: Sequence[str], reference: date | None) -> PastDecision:
    """A decision as the pair model reads it (the live check, and training the same way)."""
    values = decision_values(decision, names, reference)
    said = said_of(decision)
    return PastDecision(decision.id, said, values, vector, key_terms(said), decision.confidence, name_tokens(said),
                        choice_phrases(said)[0], value_subjects(said, values), set(decision.discussed))


class ChangeDetector:
    """Checks the lines of one meeting, in order, against the active decisions of its series."""

    def __init__(
        self,
        embedder: Embedder,
        decisions: Sequence[Decision],
        *,
        meeting_id: str,
        started_at: datetime,
        names: Sequence[str] = (),
        meeting_dates: Mapping[str, date] | None = None,
        pair_check: PairCheck | None = None,
        settle: SettleModel | None = None,
        pair: PairModel | None = None,
    ) -> None:
        """`meeting_dates`: the local date of each past meeting, to resolve relative dates in
        its decisions ("다음 주 금요일"). Raises ModelLoadError when the weights are missing."""
        self.embedder = embedder
        self.meeting_id = meeting_id
        self.reference: date = local_date(started_at, started_at.tzinfo)  # on the meeting's clock
        self.names = list(names)
        self.pair_check = pair_check
        self.settle = settle or settle_model(live=True)
        self.pair = pair or pair_model()
        self._meeting_dates = dict(meeting_dates or {})
        self._decisions: list[Decision] = []
        self._past: list[PastDecision] = []
        self._retired: set[int] = set()
        self._turns: list[Turn] = []
        self._infos: list[TurnInfo] = []
        self._vectors: list[np.ndarray] = []
        self._roles: list[tuple[str | None, float]] = []
        self._views: deque[LineView] = deque(maxlen=2)  # this line's and the one before (a proposal)
        self._announced = -1  # the last line whose change was announced
        self._speakers = SpeakerContext()
        self._counts: dict[str, int] = {}
        self.add_decisions(decisions)

    def add_decisions(self, decisions: Sequence[Decision]) -> None:
        """Add active decisions (candidates too: the pair model weighs their confidence)."""
        active = [d for d in decisions if d.status == "active"]
        if not active:
            return
        vectors = np.asarray(self.embedder.embed_documents([said_of(d) for d in active]), dtype=np.float32)
        for decision, vector in zip(active, vectors, strict=True):
            self._past.append(past_view(decision, vector, self.names, self._meeting_dates.get(decision.meeting_id)))
            self._decisions.append(decision)

    def mark_changed(self, decision_id: str) -> None:
        """A line of this meeting changed the decision: a later line most about it restates or
        refines that change, so it is no second change (nor a change of the next-closest one)."""
        for index, decision in enumerate(self._decisions):
            if decision.id == decision_id:
                self._retired.add(index)

    @property
    def decisions(self) -> list[Decision]:
        return self._decisions

    def _remember(self, utterance: Utterance) -> tuple[float, LineView]:
        """Add the line to the meeting's history; its live settle probability and its view."""
        turn = Turn(utterance.speaker_name, utterance.text)
        names = sorted(set(self.names) | {utterance.speaker_name})
        info = analyse_turn(turn.text, reference=self.reference, names=names)
        vector = np.asarray(self.embedder.embed_documents([turn.text]), dtype=np.float32)[0]
        self._speakers.add_utterance(utterance)
        self._counts[turn.speaker] = self._counts.get(turn.speaker, 0) + 1
        roles = self._speakers.infer_roles()
        self._turns.append(turn)
        self._infos.append(info)
        self._vectors.append(vector)
        self._roles.append((roles.get(utterance.speaker_id), self._counts[turn.speaker] / len(self._turns)))
        window = slice(max(0, len(self._turns) - HISTORY), len(self._turns))
        vectors = np.vstack(self._vectors[window])
        rows = meeting_features(self._turns[window], reference=self.reference, lookahead=0, vectors=vectors,
                                infos=self._infos[window], roles=self._roles[window])
        settle = float(self.settle.estimator.predict_proba(self.settle.matrix(rows[-1:], vectors[-1:]))[0])
        before = list(zip(self._turns[-3:-1], self._infos[-3:-1], strict=True))
        new, old = split_values(turn.text, info.values)
        terms = key_terms(turn.text) | set().union(*(key_terms(t.text) for t, _ in before))
        context = np.vstack(self._vectors[-3:-1]).mean(axis=0) if len(self._vectors) > 1 else None
        context_values = [v for t, i in before for v in split_values(t.text, i.values)[0]]
        view = LineView(turn.text, new, old, vector, context, terms, settle, line_cues(turn.text),
                        context_values, name_tokens(turn.text), *choice_phrases(turn.text),
                        value_subjects(turn.text, new), called_off=called_off(turn.text))
        self._views.append(view)
        return settle, view

    def _proposal(self, view: LineView) -> tuple[int, LineView] | None:
        """The proposal this line adopts (`decisions.takes_up`: the line just before, another
        speaker's, whose change was not announced; a line between them may be what is agreed
        to), as the agreement makes it (`pair_model.adopted`)."""
        i, k = len(self._turns) - 1, len(self._turns) - 2
        if k < 0 or k == self._announced:
            return None
        if not takes_up(self._turns[i].speaker, self._infos[i], self._turns[k].speaker, self._infos[k]):
            return None
        return k, adopted(self._views[0], self._turns[k].text, self._infos[k].values, view.settle)

    def check(self, utterance: Utterance, previous_lines: Sequence[Utterance] = ()) -> DecisionChange | None:
        """The change this line makes to a past decision (`candidate=True` below the
        threshold), or None. Every line of the meeting goes through here, in order."""
        _, view = self._remember(utterance)
        open_ = [i for i in range(len(self._past)) if i not in self._retired]
        if not open_:
            return None
        past = [self._past[i] for i in open_]
        probs = self.pair.probabilities(view, past)
        best = int(np.argmax(probs))
        p = float(probs[best])
        source: int | None = None  # the proposal adopted, when the agreement settles it
        if (taken := self._proposal(view)) is not None:
            adopted_probs = self.pair.probabilities(taken[1], past)
            if float(adopted_probs.max()) > p:
                best, p, source, view = int(np.argmax(adopted_probs)), float(adopted_probs.max()), *taken
        if p < self.pair.floor:
            return None
        decision = self._decisions[open_[best]]
        candidate = p < self.pair.threshold
        if not candidate and self.pair_check is not None and self.pair_check(decision, utterance, previous_lines) is False:
            return None
        cues = view.cues
        cited = any(o for o in view.old_values)
        explicit = bool(cues.get("line_points_back") or cited or view.rejected)  # "A 대신 B" names the old option
        quote = condense(utterance.text) if source is None else \
            adopted_quote(utterance.text, self._turns[source].speaker, self._turns[source].text)
        if not candidate:
            self._announced = len(self._turns) - 1
        return DecisionChange(
            meeting_id=self.meeting_id, seq=utterance.id, speaker=utterance.speaker_name,
            time=utterance.absolute_timestamp, quote=quote,
            kind="explicit" if explicit else "implicit", decision_id=decision.id,
            past=PastRef(meeting_id=decision.meeting_id, seq=decision.seq, quote=decision.quote),
            confidence=round(p, 4), candidate=candidate,
        )
