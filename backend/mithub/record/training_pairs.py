"""Pair rows for the change model: each meeting-2 line against each meeting-1 decision the
settle model lists (as the live path sees them), labelled from the series' `events_m2`.

A pair is positive when the line is an `explicit_change` / `implicit_conflict` event and the
listed decision's line snaps to the event's `refers_to_m1_index` (nearest gold decision within 2
lines, score_record.py's rule); every other pair is negative, including the line against the
other decisions and the restatements and distractors against theirs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from mithub.context.models import Utterance
from mithub.learn.estimator import LogisticModel
from mithub.record.changes import past_view
from mithub.record.decisions import decisions_from, spoken
from mithub.record.pair_model import (
    PAIR_FEATURES,
    LineView,
    PastDecision,
    called_off,
    choice_phrases,
    key_terms,
    line_cues,
    name_tokens,
    pair_features,
    plausible,
    split_values,
    value_subjects,
)
from mithub.record.training_data import Meeting, Series
from mithub.record.turn_features import TurnInfo, analyse_turn
from mithub.record.values import Value, extract_values



def snap(gold_lines: Sequence[int], line: int | None) -> int | None:
    """The gold decision a cited line names: the nearest within 2 lines, none on a tie."""
    if line is None or not gold_lines:
        return None
    ordered = sorted(gold_lines, key=lambda d: abs(d - line))
    if abs(ordered[0] - line) > 2 or (len(ordered) > 1 and abs(ordered[1] - line) == abs(ordered[0] - line)):
        return None
    return ordered[0]


def meeting_infos(m: Meeting) -> list[TurnInfo]:
    """Each turn's analysis: kept from `prepare`, or made once here when the features came from
    the cache (which holds the feature rows, not the analyses)."""
    if not m.infos:
        names = sorted({t.speaker for t in m.turns})
        m.infos = [analyse_turn(t.text, reference=m.reference, names=names) for t in m.turns]
    return m.infos


def meeting_values(m: Meeting) -> list[list[Value]]:
    """The values of each turn (computed once per meeting)."""
    cached = getattr(m, "_values", None)
    if cached is None:
        cached = [extract_values(t.text, reference=m.reference) for t in m.turns]
        m._values = cached  # type: ignore[attr-defined]
    return cached


@dataclass
class SeriesPairs:
    """The pair rows of one series, grouped by meeting-2 line."""

    decision_lines: list[int]
    lines: list[int] = field(default_factory=list)  # meeting-2 line of each group
    groups: list[list[dict[str, float]]] = field(default_factory=list)
    group_labels: list[list[int]] = field(default_factory=list)

    @property
    def rows(self) -> list[dict[str, float]]:
        return [r for g in self.groups for r in g]

    @property
    def labels(self) -> np.ndarray:
        return np.asarray([y for g in self.group_labels for y in g], dtype=np.float64)

    def flags(self, model: LogisticModel) -> list[tuple[int, list[float]]]:
        """(meeting-2 line, the pair probability against each listed decision) per line."""
        out = []
        for line, rows in zip(self.lines, self.groups, strict=True):
            X = np.asarray([[r[n] for n in PAIR_FEATURES] for r in rows], dtype=np.float64)
            gate = [plausible(r) for r in rows]
            out.append((line, [float(p) if g else 0.0 for p, g in zip(model.predict_proba(X), gate, strict=True)]))
        return out


def past_decisions(s: Series, p1: np.ndarray, floor: float, threshold: float) -> tuple[list[int], list[PastDecision]]:
    """Meeting 1's decisions as the live check reads them: listed from the settle probabilities
    as `extract_decisions` lists them (a proposal adopted by a pro-form is listed at the
    agreement, at least at the `threshold` users see, with the proposal's words), each read by
    `changes.past_view` from the words it rests on."""
    m1 = s.m1
    names = sorted({t.speaker for t in m1.turns})
    turns = [Utterance(id=i + 1, speaker_id=t.speaker, speaker_name=t.speaker, text=t.text,
                       absolute_timestamp=m1.started_at) for i, t in enumerate(m1.turns)]
    decisions = decisions_from(m1.meeting_id, turns, p1, meeting_infos(m1), m1.reference, names,
                               threshold=threshold, floor=floor)
    lines = [d.seq - 1 for d in decisions]
    # a decision's own line is embedded already; an adopted proposal's words are embedded here
    other = [d.said for d, j in zip(decisions, lines, strict=True) if d.said != spoken(m1.turns[j].text)]
    embedded = dict(zip(other, _embed(other), strict=True)) if other else {}
    past = [past_view(d, embedded.get(d.said, m1.vectors[j]), names, m1.reference)
            for d, j in zip(decisions, lines, strict=True)]
    return lines, past


def _embed(texts: list[str]) -> np.ndarray:
    from mithub.embedders import load_embedder

    return np.asarray(load_embedder().embed_documents(texts), dtype=np.float32)


def line_view(s: Series, i: int, p2: np.ndarray) -> LineView:
    m2 = s.m2
    names = sorted({t.speaker for t in m2.turns} | {t.speaker for t in s.m1.turns})
    text = m2.turns[i].text
    new, old = split_values(text, extract_values(text, reference=m2.reference, names=names))
    context = m2.vectors[max(0, i - 2):i].mean(axis=0) if i else None
    before = [m2.turns[k].text for k in range(max(0, i - 2), i)]
    terms = key_terms(text) | set().union(*(key_terms(t) for t in before))
    context_values = [v for t in before for v in split_values(t, extract_values(t, reference=m2.reference, names=names))[0]]
    return LineView(text, new, old, m2.vectors[i], context, terms, float(p2[i]), line_cues(text),
                    context_values, name_tokens(text), *choice_phrases(text), value_subjects(text, new),
                    called_off=called_off(text))


def pair_rows(s: Series, p1: np.ndarray, p2: np.ndarray, floor: float, threshold: float) -> SeriesPairs:
    """The series' pair rows; meeting 1's decisions listed at `floor` (adoptions at least at the
    settle `threshold`, as `extract_decisions` lists them)."""
    lines, past = past_decisions(s, p1, floor, threshold)
    gold = sorted(d["index"] for d in s.gold["decisions_m1"])
    positives = {e["index"]: e["refers_to_m1_index"] for e in s.gold["events_m2"]
                 if e["kind"] in ("explicit_change", "implicit_conflict")}
    out = SeriesPairs(lines)
    if not past:
        return out
    for i in range(len(s.m2.turns)):
        view = line_view(s, i, p2)
        out.lines.append(i)
        out.groups.append(pair_features(view, past))
        out.group_labels.append([int(i in positives and snap(gold, j) == positives[i]) for j in lines])
    return out
