"""Search over the current meeting's own transcript: a question about something said forty
minutes ago is in neither L0 nor, verbatim, in L1.

Each turn is scored by BM25 over content tokens (Korean morphemes, English words) and by
cosine similarity of its embedding to the query; the two are fused with weighted RRF (as the
document retriever does). Turn scores are then spread to their neighbours, because an answer
is discussed over several turns, and the best short windows are returned verbatim.

Long turns in an excerpt are condensed to their sentences that match the query (seed 000,
context compression: key sentences first, then cut to the budget), marked with "…", so one
budget covers more of an exchange: meetings are full of long turns of which one sentence
answers the question.

The index grows incrementally: BM25 keeps postings and document frequencies (no rebuild per
utterance), embeddings come through the cached embedder (the topic detector already paid
for them).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
import numpy as np

from mithub.budget import estimate_tokens
from mithub.context.models import TranscriptExcerpt, Utterance
from mithub.context.spans import best_span
from mithub.context.speaker_context import is_question
from mithub.embedders import Embedder
from mithub.text import content_tokens, has_hangul
from mithub.text.sentences import split_sentences

_K1, _B = 1.5, 0.75
# Selection parameters, chosen on the QMSum meeting-QA benchmark (benchmarks/meeting_qa.py).
SPAN_SHARE = 0.7
SPAN_BASELINE_QUANTILE = 0.8
SINGLE_TURN_GAP = 6
QUESTION_TURN_WEIGHT = 0.5
ELLIPSIS = "…"
LINE_BREAK_TOKENS = 1
KEY_TURN_ROOM_FACTOR = 4  # the most relevant turn keeps this many times the condensing room
MIN_CUT_WORDS = 4  # a sentence cut shorter than this says too little to quote
_SPAN_KERNEL = np.hanning(23)[1:-1]


def _smooth(values: np.ndarray, kernel: np.ndarray) -> np.ndarray:
    """Centred convolution with the length of `values` (numpy's "same" mode takes the length
    of the longer input, which is the kernel for a short meeting)."""
    full = np.convolve(values, kernel, mode="full")
    offset = (len(kernel) - 1) // 2
    return full[offset : offset + len(values)]


class IncrementalBM25:
    """BM25 whose corpus only grows; scoring touches the postings of the query terms only."""

    def __init__(self) -> None:
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._lengths: list[int] = []
        self._length_array = np.zeros(0, dtype=np.float32)
        self._total_length = 0

    def add(self, tokens: Sequence[str]) -> None:
        row = len(self._lengths)
        for term, tf in Counter(tokens).items():
            self._postings[term].append((row, tf))
        self._lengths.append(len(tokens))
        self._total_length += len(tokens)

    def __len__(self) -> int:
        return len(self._lengths)

    def has(self, term: str) -> bool:
        return bool(self._postings.get(term))

    def scores(self, query_tokens: Sequence[str]) -> np.ndarray:
        n = len(self._lengths)
        out = np.zeros(n, dtype=np.float32)
        if n == 0:
            return out
        avg = self._total_length / n or 1.0
        if len(self._length_array) != n:
            self._length_array = np.asarray(self._lengths, dtype=np.float32)
        lengths = self._length_array
        for term in set(query_tokens):
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = math.log(1 + (n - len(postings) + 0.5) / (len(postings) + 0.5))
            rows = np.fromiter((r for r, _ in postings), dtype=np.int64, count=len(postings))
            tf = np.fromiter((t for _, t in postings), dtype=np.float32, count=len(postings))
            norm = _K1 * (1 - _B + _B * lengths[rows] / avg)
            out[rows] += idf * tf * (_K1 + 1) / (tf + norm)
        return out


# Words that frame a question without saying what it is about ("summarize the discussion
# about X", "what did the team think about Y", "…에 대해 어떻게 얘기했나요").
QUERY_FRAME_WORDS = frozenset(
    """summarize summarise summary discussion discussed discuss discussing talk talked talking
    about what why how did does think thought opinion opinions say said team group meeting
    members member regarding whole decide decided decision 요약 논의 얘기 이야기 회의 말 생각 의견
    어떻게 무엇 뭐 대해 관련 내용""".split()
)


def turn_tokens(utterance: Utterance) -> list[str]:
    """A turn's BM25 tokens: its speaker's name and its words (questions name who said it)."""
    return content_tokens(f"{utterance.speaker_name} {utterance.text}")


def query_terms(query: str) -> list[str]:
    terms = content_tokens(query)
    focused = [t for t in terms if t not in QUERY_FRAME_WORDS]
    return focused or terms


class TranscriptIndex:
    """The meeting's turns, searchable by lexical and dense relevance."""

    def __init__(
        self,
        embedder: Embedder,
        count_tokens: Callable[[Utterance], int],
        *,
        dense_weight: float = 0.5,
        speaker_boost: float = 1.0,
        turn_max_tokens: int = 0,
        count_text: Callable[[str], int] | None = None,
    ) -> None:
        """`count_tokens` costs a turn as formatted in the prompt, `count_text` a bare text
        (the seed 003 estimate if not given); `turn_max_tokens` > 0 condenses longer turns in
        excerpts to that many tokens of text."""
        self._embedder = embedder
        self._count = count_tokens
        self._bm25 = IncrementalBM25()
        self._utterances: list[Utterance] = []
        self._costs: list[int] = []
        self._line_costs: list[int] = []  # a turn's formatted line without its text
        self._cost_array = self._line_cost_array = np.zeros(0)  # the two above, as of the last search
        self._sentences: dict[int, tuple[list[str], list[frozenset[str]]]] = {}  # per row, on first quote
        self._questions: list[bool] = []
        self._vector_rows = np.zeros((0, embedder.dim), dtype=np.float32)  # capacity >= turns
        self._seqs: list[int] = []
        self._speaker_names: dict[str, str] = {}
        self._speaker_codes: dict[str, int] = {}
        self._turn_arrays: tuple[np.ndarray, np.ndarray] | None = None
        self._dense_weight = dense_weight
        self._speaker_boost = speaker_boost
        self._turn_max_tokens = turn_max_tokens
        self._count_text = count_text or estimate_tokens

    @property
    def model_id(self) -> str:
        """The embedder's model: vectors given to `add` must be of it."""
        return str(getattr(self._embedder, "model_id", ""))

    @property
    def last_seq(self) -> int:
        return self._utterances[-1].id if self._utterances else 0

    @property
    def utterances(self) -> list[Utterance]:
        """The indexed turns, in order."""
        return list(self._utterances)

    @property
    def seqs(self) -> list[int]:
        """Seq of each indexed turn, in the order of `relevance()`."""
        return list(self._seqs)

    @property
    def total_tokens(self) -> int:
        return sum(self._costs)

    def __len__(self) -> int:
        return len(self._utterances)

    def add(self, utterances: Sequence[Utterance], *, vectors: np.ndarray | None = None,
            tokens: Sequence[Sequence[str]] | None = None) -> None:
        """Index turns (in seq order; turns already indexed are skipped). `vectors` and
        `tokens`, one per turn of `utterances`, are what this index would compute (the
        embedder's document vectors, `turn_tokens`): a finished meeting's cache holds them, so
        a call on it neither embeds nor analyses its turns again."""
        keep = [i for i, u in enumerate(utterances) if u.id > self.last_seq]
        if not keep:
            return
        fresh = [utterances[i] for i in keep]
        if vectors is None:
            vectors = self._embedder.embed_documents([u.text for u in fresh])
        else:
            vectors = np.asarray(vectors)[keep]
        vectors = vectors.astype(np.float32)
        fresh_tokens = [tokens[i] for i in keep] if tokens is not None else [turn_tokens(u) for u in fresh]
        for utterance, turn in zip(fresh, fresh_tokens, strict=True):
            self._bm25.add(turn)
            self._costs.append(self._count(utterance))
            self._line_costs.append(self._count(utterance.model_copy(update={"text": ""})))
            self._questions.append(is_question(utterance.text))
            self._seqs.append(utterance.id)
            self._speaker_names.setdefault(utterance.speaker_id, utterance.speaker_name.lower())
        self._utterances.extend(fresh)
        self._append_vectors(vectors)

    def vector_rows(self, start: int, stop: int) -> np.ndarray:
        """A copy of the turn vectors of rows [start, stop)."""
        return self._vectors[start:stop].copy()

    @property
    def _vectors(self) -> np.ndarray:
        return self._vector_rows[: len(self._utterances)]

    def _append_vectors(self, vectors: np.ndarray) -> None:
        """Grow the matrix with room to spare: a series index is filled meeting by meeting,
        and copying it whole for each would cost the square of its size."""
        start = len(self._utterances) - len(vectors)
        if len(self._vector_rows) < start + len(vectors):
            grown = np.zeros((max(start + len(vectors), 2 * len(self._vector_rows)), vectors.shape[1]),
                             dtype=np.float32)
            grown[:start] = self._vector_rows[:start]
            self._vector_rows = grown
        self._vector_rows[start:start + len(vectors)] = vectors

    def mentions(self, terms: Sequence[str]) -> set[str]:
        """The terms that occur in some indexed turn."""
        return {t for t in terms if self._bm25.has(t)}

    def relevance(self, query: str) -> np.ndarray:
        """Per turn: BM25 (scaled to the best turn) mixed with the dense cosine above the
        meeting's median; turns of a speaker the query names count double."""
        n = len(self._utterances)
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        lexical = self._bm25.scores(query_terms(query))
        lexical = lexical / lexical.max() if lexical.max() > 0 else lexical
        query_vector = self._embedder.embed_queries([query])[0].astype(np.float32)
        cosine = self._vectors @ query_vector
        median = float(np.median(cosine))
        dense = np.clip((cosine - median) / max(float(cosine.max()) - median, 1e-6), 0.0, None)
        relevance = (1 - self._dense_weight) * lexical + self._dense_weight * dense
        if is_question(query):
            # A question is answered by statements: the turns that ask it again rank lower.
            relevance = relevance * np.where(self._arrays()[0], QUESTION_TURN_WEIGHT, 1.0)
        named = self._named_speakers(query)
        if named:
            speakers = self._arrays()[1]
            mask = np.isin(speakers, [self._speaker_codes[s] for s in named])
            relevance = relevance * (1 + self._speaker_boost * mask)
        return relevance.astype(np.float32)

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """Per turn: is it a question, and its speaker's code (kept as arrays between calls;
        a long series has tens of thousands of turns)."""
        if self._turn_arrays is None or len(self._turn_arrays[0]) != len(self._utterances):
            codes = [self._speaker_codes.setdefault(u.speaker_id, len(self._speaker_codes))
                     for u in self._utterances]
            self._turn_arrays = (np.asarray(self._questions, dtype=bool), np.asarray(codes, dtype=np.int32))
        return self._turn_arrays

    def _named_speakers(self, query: str) -> set[str]:
        lowered = query.lower()
        named = set()
        for speaker_id, name in self._speaker_names.items():
            given = name[1:] if len(name) >= 3 and has_hangul(name) else name
            if name in lowered or (len(given) >= 2 and given in lowered):
                named.add(speaker_id)
        return named

    def search(
        self,
        query: str,
        *,
        budget_tokens: int,
        exclude_from_seq: int | None = None,
        span_share: float = SPAN_SHARE,
    ) -> list[TranscriptExcerpt]:
        """Turns worth quoting for `query`, within `budget_tokens`, as excerpts of consecutive
        turns, most relevant first. Part of the budget goes to the best contiguous stretch of
        discussion (recall of a whole exchange), the rest to the best single turns elsewhere,
        kept apart from each other (so the answer is found wherever it was said)."""
        relevance = self.relevance(query)
        n = int(np.searchsorted(self._seqs, exclude_from_seq)) \
            if exclude_from_seq is not None else len(self._utterances)
        relevance = relevance[:n]
        if n == 0 or not relevance.any():
            return []
        if len(self._cost_array) != len(self._costs):
            self._cost_array = np.asarray(self._costs, dtype=np.float64)
            self._line_cost_array = np.asarray(self._line_costs, dtype=np.float64)
        costs = self._cost_array[:n]
        top = int(np.argmax(relevance))
        rooms = self._rooms(n, top)
        if rooms is not None:  # a long turn costs what its condensed form will
            costs = np.minimum(costs, self._line_cost_array[:n] + rooms)
        # Each quoted turn is a line of the prompt: one token more for its line break and the
        # rounding a per-line count loses; a single turn also opens an excerpt (a separator).
        costs = costs + LINE_BREAK_TOKENS
        chosen = np.zeros(n, dtype=bool)
        smooth = _smooth(relevance, _SPAN_KERNEL / _SPAN_KERNEL.sum())
        gains = smooth - np.quantile(smooth, SPAN_BASELINE_QUANTILE)
        _, start, end = best_span(gains, costs, budget_tokens * span_share)
        top_cost = costs[top] + LINE_BREAK_TOKENS
        if not start <= top < end and costs[start:end].sum() + top_cost > budget_tokens:
            # The most relevant turn always gets in: in a small budget the stretch yields to it.
            _, start, end = best_span(gains, costs, budget_tokens - top_cost)
        chosen[start:end] = True
        used = float(costs[chosen].sum())
        blocked = chosen.copy()  # a single turn keeps SINGLE_TURN_GAP turns from the others
        cheapest = float(costs.min())
        positive = np.flatnonzero(relevance > 0)
        for i in positive[np.argsort(-relevance[positive], kind="stable")]:
            if budget_tokens - used < cheapest:
                break
            if blocked[i] or used + costs[i] + LINE_BREAK_TOKENS > budget_tokens:
                continue
            chosen[i] = True
            used += costs[i] + LINE_BREAK_TOKENS
            blocked[max(0, i - SINGLE_TURN_GAP + 1): i + SINGLE_TURN_GAP] = True
        self._with_replies(chosen, relevance, costs, budget_tokens - used)
        return self._excerpts(chosen, relevance, query_terms(query), rooms)

    def _with_replies(self, chosen: np.ndarray, relevance: np.ndarray, costs: np.ndarray, room: float) -> float:
        """A quoted question brings the turn that replies to it (the next one, by someone
        else), most relevant question first, while `room` lasts: a question matches the query's
        words, but what was said about it is in the reply. Returns the room left."""
        n = len(chosen)
        questions, speakers = self._arrays()
        asked = np.flatnonzero(chosen & questions[:n])
        for i in asked[np.argsort(-relevance[asked], kind="stable")]:
            j = i + 1
            if j < n and not chosen[j] and speakers[j] != speakers[i] and costs[j] <= room:
                chosen[j] = True
                room -= costs[j]
        return room

    def _rooms(self, n: int, top: int) -> np.ndarray | None:
        """Tokens of text each of the first `n` turns may keep when quoted: `turn_max_tokens`,
        and KEY_TURN_ROOM_FACTOR times that for the most relevant turn `top` (the best evidence
        is quoted nearly whole; a Korean sentence alone is often 30 tokens). None when
        condensing is off."""
        if self._turn_max_tokens <= 0:
            return None
        rooms = np.full(n, self._turn_max_tokens, dtype=np.int64)
        rooms[top] *= KEY_TURN_ROOM_FACTOR
        return rooms

    def _excerpts(
        self, chosen: np.ndarray, relevance: np.ndarray, terms: list[str], rooms: np.ndarray | None
    ) -> list[TranscriptExcerpt]:
        excerpts: list[TranscriptExcerpt] = []
        run: list[int] = []
        for i in [*np.flatnonzero(chosen).tolist(), -2]:
            if run and i != run[-1] + 1:
                shown = [self._shown(j, terms, 0 if rooms is None else int(rooms[j])) for j in run]
                excerpts.append(TranscriptExcerpt(
                    utterances=[u for u, _ in shown],
                    said=[self._utterances[j].text for j in run],
                    score=float(relevance[run].max()),
                    # each line and its break, then the separator (as `search` costed them)
                    tokens=sum(cost + LINE_BREAK_TOKENS for _, cost in shown) + LINE_BREAK_TOKENS,
                ))
                run = []
            run.append(i)
        return sorted(excerpts, key=lambda e: -e.score)

    def _shown(self, row: int, terms: list[str], room: int) -> tuple[Utterance, int]:
        """The turn as quoted, and its line's tokens: whole, or condensed to `room` tokens of
        its sentences that match the query (0: whole)."""
        utterance = self._utterances[row]
        if room <= 0 or self._costs[row] <= self._line_costs[row] + room:
            return utterance, self._costs[row]
        split = self._sentences.get(row)
        if split is None:
            sentences = split_sentences(utterance.text) or [utterance.text]
            split = self._sentences[row] = (sentences, [frozenset(content_tokens(t)) for t in sentences])
        line = self._line_costs[row]
        # Trial cuts are costed as the line plus the text (one token of slack for the rounding
        # of the sum); the chosen cut is then checked as the formatted line.
        for slack in (1, 2, 4, 8):
            text = condense(split[0], set(terms), lambda t: line + self._count_text(t) + slack,
                            line + room, sentence_terms=split[1])
            shown = utterance.model_copy(update={"text": text})
            cost = self._count(shown)
            if cost <= line + room:
                break
        return shown, cost


def condense(
    sentences: Sequence[str],
    terms: set[str],
    cost: Callable[[str], int],
    budget: int,
    *,
    sentence_terms: Sequence[frozenset[str]] | None = None,
) -> str:
    """The sentences that best match `terms` (more distinct matches first, then earlier), in
    their order, whose joined text costs at most `budget`; the room left is filled with the
    best-matching stretch of the best sentence that did not fit whole. Whatever is left out
    is marked "…". `sentence_terms` are the sentences' content tokens, if already known."""
    texts = list(sentences)
    cut_start = [False] * len(texts)
    cut_end = [False] * len(texts)
    known = sentence_terms or [frozenset(content_tokens(t)) for t in sentences]

    def score(i: int) -> tuple[int, int]:
        return (-len(terms.intersection(known[i])), i)

    def joined(kept: list[int]) -> str:
        parts = [ELLIPSIS] if kept[0] > 0 or cut_start[kept[0]] else []
        for previous, i in zip([None, *kept], kept):
            if previous is not None and (i != previous + 1 or cut_end[previous] or cut_start[i]):
                parts.append(ELLIPSIS)
            parts.append(texts[i])
        if kept[-1] < len(texts) - 1 or cut_end[kept[-1]]:
            parts.append(ELLIPSIS)
        return " ".join(parts)

    order = sorted(range(len(texts)), key=score)
    alone = [cost(t) for t in texts]
    kept: list[int] = []
    for i in order:
        if alone[i] <= budget and cost(joined(sorted([*kept, i]))) <= budget:
            kept = sorted([*kept, i])
    rest = [i for i in order if i not in kept]
    if rest:  # the best stretch of the best sentence left out, cut to the room
        i, words = rest[0], sentences[rest[0]].split()
        lowered = [w.lower() for w in words]  # a term inside a word: "commit" in "commits", 예산 in 예산은
        matches = [any(term in w for term in terms) for w in lowered]
        # Start from the share of its words the room could hold, then shorten.
        length = min(len(words) * 4 // 5, len(words) * budget // max(alone[i], 1) + 2)
        while length >= MIN_CUT_WORDS:
            first = _best_window(matches, length)
            texts[i] = " ".join(words[first : first + length])
            cut_start[i], cut_end[i] = first > 0, first + length < len(words)
            if cost(joined(sorted([*kept, i]))) <= budget:
                return joined(sorted([*kept, i]))
            length = length * 4 // 5
        texts[i], cut_start[i], cut_end[i] = sentences[i], False, False
    return joined(kept) if kept else ELLIPSIS


def _best_window(matches: list[bool], length: int) -> int:
    """Start of the `length`-word window with the most matching words (the earliest of equals)."""
    count = best = sum(matches[:length])
    start = 0
    for first in range(1, len(matches) - length + 1):
        count += matches[first + length - 1] - matches[first - 1]
        if count > best:
            best, start = count, first
    return start
