"""Features of a candidate topic boundary, computed online (topics/boundary.py learns from them).

A candidate is a turn i: "a new topic starts at i". Its features look at most RIGHT_TURNS turns
ahead (i .. i+RIGHT_TURNS-1) and LEFT_TURNS turns back (LEFT_HISTORY for the windows counted in
content terms), plus running per-meeting summaries of everything before i (a decayed topic
memory, channel statistics, speaker counts). Every feature is scale-free: a similarity, a share,
a z-score against this meeting's own values, or a turn's own property, so one model serves a
60-turn team meeting with 12-turn topics and a 1,000-turn hearing with 200-turn topics. Why each
feature is there:

- `emb_w` (w = 2, 4, 8, 16): 1 - cosine of the mean sentence embeddings of the w turns before
  and the w turns from i (TextTiling on embeddings, at several scales because topics last from
  ten to hundreds of turns);
- `lex_w`: the same with content-word bags (kiwi morphemes for Korean): lexical cohesion;
- `emb_tW`, `lex_tW` (W = 64 .. 256 content terms): the same over the turns that hold about W
  content terms on each side, so a window spans the same amount of talk in a hearing of
  speeches and in a design meeting of quick exchanges (the right side never beyond RIGHT_TURNS);
- `mem_emb`, `mem_lex`, `mem_spk`: the next 8 turns against a decayed memory of the whole
  meeting so far whose half-life grows with the meeting (topics/shift_memory.py): is this new
  with respect to the current topic, not only the last few turns;
- `z_*`: those novelties as z-scores against this meeting's earlier values (lagged so the change
  being scored does not inflate the spread): what is unusual differs between a lively and a
  focused meeting;
- `spk_8`, `speaker_change`, `chair_opens`, `new_speakers`: who talks changes with the topic, a
  topic is often opened by the chair (the most active speaker so far), a new item brings new
  voices;
- `spk_tW` (W = 128, 256 content terms): who holds the floor over a topic's length of talk on
  each side (a presenter, a witness panel, the member leading an item) changes with the item,
  which the 8-turn window misses when one speaker talks for many turns;
- `cue`, `cue_near`: a cue phrase announcing a topic ("다음 안건", "moving on") on the turn or
  next to it (topics/cues.py), as one feature each;
- `decision_before`: a decision stated in the three turns before: a settled point closes a topic;
- `substance`, `substance_gain`: a topic opens with substantive turns and fades in backchannel;
- `early`: the first turns of a meeting, where the per-meeting statistics are still thin;
- `density`, and every feature above times `density`: the meeting's running mean substance per
  turn. A meeting of dense turns (a prepared team meeting, a hearing) and one of quick exchanges
  full of backchannel (a design session) show a new topic differently; the products let one
  linear model weigh each feature differently in the two, with no switch to set.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mithub.topics.shift_memory import LaggedStats, TopicMemory
from mithub.topics.turns import TurnFeatures

RIGHT_TURNS = 16
LEFT_TURNS = 16
EMBEDDING_SCALES = (2, 4, 8, 16)
LEXICAL_SCALES = (4, 8, 16)
# Windows counted in content terms (emb_t<W>, lex_t<W>): a QMSum topic lasts 28 turns in a hearing
# and 105-181 in a design or research meeting, but 300-800 content terms in all three. The right
# side stops at the online lookahead (RIGHT_TURNS), the left at LEFT_HISTORY turns already said.
EMBEDDING_TERMS = (64, 128, 256)
LEXICAL_TERMS = (128, 256)
LEFT_HISTORY = 64
MEMORY_WINDOW = 8
SPEAKER_WINDOW = 8
SPEAKER_TERMS = (128, 256)
NEAR_TURNS = 2
DECISION_TURNS = 3
SUBSTANCE_TURNS = 4
EARLY_TURNS = 20.0
Z_SOURCES = ("emb_8", "emb_16", "lex_8", "mem_emb", "mem_lex")
STATE_VERSION = 1

# The running mean substance starts from this value worth this many turns, between the means
# of quick exchanges (about 1) and dense turns (about 2), so the first turns do not swing it.
DENSITY_PRIOR = 1.5
DENSITY_PRIOR_TURNS = 5.0

BASE_FEATURES: tuple[str, ...] = (
    *(f"emb_{w}" for w in EMBEDDING_SCALES),
    *(f"lex_{w}" for w in LEXICAL_SCALES),
    *(f"emb_t{w}" for w in EMBEDDING_TERMS),
    *(f"lex_t{w}" for w in LEXICAL_TERMS),
    "mem_emb", "mem_lex", "mem_spk",
    *(f"z_{name}" for name in Z_SOURCES),
    "spk_8", *(f"spk_t{w}" for w in SPEAKER_TERMS), "speaker_change", "chair_opens", "new_speakers",
    "cue", "cue_near", "decision_before", "substance", "substance_gain", "early",
)
FEATURE_NAMES: tuple[str, ...] = (*BASE_FEATURES, "density", *(f"{n}_x_density" for n in BASE_FEATURES))
CUE_FEATURES = ("cue", "cue_near", "cue_x_density", "cue_near_x_density")


@dataclass(frozen=True)
class Candidate:
    position: int  # 0-based turn index in the meeting
    seq: int
    values: np.ndarray  # in FEATURE_NAMES order


def memory_half_life(turns_before: int) -> float:
    """A quarter of the meeting so far, between 4 and 100 turns: early on the memory is the last
    few turns, later the current topic as a whole."""
    return min(100.0, max(4.0, 0.25 * turns_before))


def embedding_novelty(left: Sequence[TurnFeatures], right: Sequence[TurnFeatures]) -> float:
    """1 - cosine of the content-weighted embedding sums; 0 when a side has no content."""
    a, b = _embedding_sum(left), _embedding_sum(right)
    if a is None or b is None:
        return 0.0
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return 1.0 - float(a @ b) / norm if norm > 1e-12 else 0.0


def lexical_novelty(left: Sequence[TurnFeatures], right: Sequence[TurnFeatures]) -> float:
    """1 - cosine of the content-word bags; 0 when a side has no content words."""
    return _bag_novelty(_bag(t.terms for t in left), _bag(t.terms for t in right))


def speaker_novelty(left: Sequence[TurnFeatures], right: Sequence[TurnFeatures]) -> float:
    """1 - cosine of who speaks (weighted by substance) before and after."""
    def bag(turns: Sequence[TurnFeatures]) -> Counter[str]:
        out: Counter[str] = Counter()
        for turn in turns:
            out[turn.speaker] += turn.speaker_weight
        return out
    return _bag_novelty(bag(left), bag(right))


def new_speaker_share(left: Sequence[TurnFeatures], right: Sequence[TurnFeatures]) -> float:
    """Share of the turns ahead whose speaker did not speak in the turns before."""
    before = {t.speaker for t in left}
    return sum(t.speaker not in before for t in right) / len(right) if right else 0.0


def mean_substance(turns: Sequence[TurnFeatures]) -> float:
    return sum(math.log1p(len(t.terms)) for t in turns) / len(turns) if turns else 0.0


class OnlineFeatures:
    """Feed turns in order with `push`; each call returns the candidates whose features are now
    complete (the candidate RIGHT_TURNS - 1 turns back). `finish` returns the rest at the end of
    a meeting, with the windows ahead cut at the last turn. Turn 0 is never a candidate."""

    def __init__(self) -> None:
        self._turns: deque[TurnFeatures] = deque(maxlen=max(LEFT_TURNS, LEFT_HISTORY) + RIGHT_TURNS)
        self._seen = 0
        self._next = 0
        self._memory = TopicMemory()
        self._stats = [LaggedStats(RIGHT_TURNS) for _ in Z_SOURCES]
        self._speakers: Counter[str] = Counter()
        self._substance = 0.0  # sum of log1p(content terms) of the turns before the candidate

    @property
    def turns_seen(self) -> int:
        return self._seen

    @staticmethod
    def history_turns() -> int:
        return max(LEFT_TURNS, LEFT_HISTORY) + RIGHT_TURNS

    def push(self, turn: TurnFeatures) -> list[Candidate]:
        self._turns.append(turn)
        self._seen += 1
        out = []
        while self._next + RIGHT_TURNS <= self._seen:
            out += self._advance()
        return out

    def finish(self) -> list[Candidate]:
        out = []
        while self._next < self._seen:
            out += self._advance()
        return out

    def buffered(self) -> list[tuple[int, TurnFeatures]]:
        """(position, turn) of the turns still held."""
        return self._indexed(self._seen - len(self._turns), self._seen)

    def turn_at(self, position: int) -> TurnFeatures:
        return self._turns[position - (self._seen - len(self._turns))]

    def _span(self, start: int, stop: int) -> list[TurnFeatures]:
        first = self._seen - len(self._turns)
        return [self._turns[p - first] for p in range(max(start, first), min(stop, self._seen))]

    def _advance(self) -> list[Candidate]:
        i = self._next
        out = [] if i == 0 else [Candidate(i, self.turn_at(i).seq, self._features(i))]
        turn = self.turn_at(i)
        self._memory.add(turn, 0.5 ** (1.0 / memory_half_life(i + 1)))
        self._speakers[turn.speaker] += 1
        self._substance += math.log1p(len(turn.terms))
        self._next += 1
        return out

    def _features(self, i: int) -> np.ndarray:
        values: dict[str, float] = {}
        for w in EMBEDDING_SCALES:
            values[f"emb_{w}"] = embedding_novelty(self._span(i - w, i), self._span(i, i + w))
        for w in LEXICAL_SCALES:
            values[f"lex_{w}"] = lexical_novelty(self._span(i - w, i), self._span(i, i + w))
        # The term-counted windows, each size sliced once: (turns before i, turns from i).
        before, after = self._span(i - LEFT_HISTORY, i)[::-1], self._span(i, i + RIGHT_TURNS)
        windows = {w: (_fill(before, w)[::-1], _fill(after, w))
                   for w in {*EMBEDDING_TERMS, *LEXICAL_TERMS, *SPEAKER_TERMS}}
        for w in EMBEDDING_TERMS:
            values[f"emb_t{w}"] = embedding_novelty(*windows[w])
        for w in LEXICAL_TERMS:
            values[f"lex_t{w}"] = lexical_novelty(*windows[w])
        for w in SPEAKER_TERMS:
            values[f"spk_t{w}"] = speaker_novelty(*windows[w])
        similarities = self._memory.similarities(self._span(i, i + MEMORY_WINDOW))
        for name, similarity in zip(("mem_emb", "mem_lex", "mem_spk"), similarities, strict=True):
            values[name] = 1.0 - similarity
        for name, stats in zip(Z_SOURCES, self._stats, strict=True):
            values[f"z_{name}"] = stats.push(values[name])
        values.update(self._speaker_features(i))
        values.update(self._turn_features(i))
        base = np.array([values[name] for name in BASE_FEATURES], dtype=np.float64)
        density = (self._substance + DENSITY_PRIOR * DENSITY_PRIOR_TURNS) / (i + DENSITY_PRIOR_TURNS)
        return np.concatenate([base, [density], base * density])

    def _speaker_features(self, i: int) -> dict[str, float]:
        turn, before = self.turn_at(i), self.turn_at(i - 1)
        chair = max(self._speakers.items(), key=lambda kv: kv[1])[0] if self._speakers else ""
        left, right = self._span(i - SPEAKER_WINDOW, i), self._span(i, i + SPEAKER_WINDOW)
        return {
            "spk_8": speaker_novelty(left, right),
            "speaker_change": float(turn.speaker != before.speaker),
            "chair_opens": float(turn.speaker == chair),
            "new_speakers": new_speaker_share(self._span(i - LEFT_TURNS, i), right),
        }

    def _turn_features(self, i: int) -> dict[str, float]:
        near = [t.cue for p, t in self._indexed(i - NEAR_TURNS, i + NEAR_TURNS + 1) if p != i]
        before = self._span(i - DECISION_TURNS, i)
        gain = (mean_substance(self._span(i, i + SUBSTANCE_TURNS))
                - mean_substance(self._span(i - SUBSTANCE_TURNS, i)))
        return {
            "cue": self.turn_at(i).cue,
            "cue_near": max(near, default=0.0),
            "decision_before": max((t.decision for t in before), default=0.0),
            "substance": math.log1p(len(self.turn_at(i).terms)),
            "substance_gain": gain,
            "early": math.exp(-i / EARLY_TURNS),
        }

    def _indexed(self, start: int, stop: int) -> list[tuple[int, TurnFeatures]]:
        first = self._seen - len(self._turns)
        return [(p, self._turns[p - first]) for p in range(max(start, first), min(stop, self._seen))]

    # ------------------------------------------------------------------ state

    def state_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "seen": self._seen,
            "next": self._next,
            "memory": self._memory.state_dict(),
            "stats": [s.state() for s in self._stats],
            "speakers": sorted(self._speakers.items()),
            "substance": self._substance,
        }

    def load_state(self, state: dict[str, Any], history: Sequence[TurnFeatures]) -> None:
        """Restore from `state_dict()` plus the features of the last turns it had seen."""
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported boundary feature state version {state.get('version')!r}")
        self._seen, self._next = int(state["seen"]), int(state["next"])
        self._memory = TopicMemory.from_state(state["memory"])
        self._stats = [LaggedStats(RIGHT_TURNS, int(c), float(m), float(m2), map(float, pending))
                       for c, m, m2, pending in state["stats"]]
        self._speakers = Counter({str(k): int(v) for k, v in state["speakers"]})
        self._substance = float(state["substance"])
        self._turns = deque(history[-self._turns.maxlen:], maxlen=self._turns.maxlen)


def meeting_candidates(turns: Sequence[TurnFeatures]) -> list[Candidate]:
    """Every candidate of a whole meeting, as the online extractor emits them."""
    extractor = OnlineFeatures()
    out = []
    for turn in turns:
        out += extractor.push(turn)
    return out + extractor.finish()


def _fill(turns: Sequence[TurnFeatures], terms: int) -> list[TurnFeatures]:
    """The first turns of `turns` that hold about `terms` content terms (all if fewer): a window
    on either side of a candidate, the left one given nearest first."""
    out, held = [], 0
    for turn in turns:
        out.append(turn)
        held += len(turn.terms)
        if held >= terms:
            break
    return out


def _embedding_sum(turns: Sequence[TurnFeatures]) -> np.ndarray | None:
    rows = [t.vector * t.embedding_weight for t in turns if t.vector is not None]
    return np.sum(rows, axis=0, dtype=np.float64) if rows else None


def _bag(groups: Any) -> Counter[str]:
    bag: Counter[str] = Counter()
    for terms in groups:
        bag.update(terms)
    return bag


def _bag_novelty(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 0.0
    dot = sum(v * b.get(k, 0.0) for k, v in a.items())
    norm = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    return 1.0 - dot / norm if norm > 1e-12 else 0.0
