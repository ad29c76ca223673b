"""LLM-free summarizer that fills the same fields as the LLM one (labelled `extractive`).

Salient sentences: centrality to the topic's centroid over sentence embeddings, selected with
MMR so the summary does not repeat itself, shown with the speaker: the most informative one
first (`_informative`), the others in meeting order. Decisions,
pending and action items come from Korean/English cue patterns; keywords are the topic's most
frequent noun-like tokens. A recursive update treats the previous summary's sentences as
candidates too, so earlier key content survives.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mithub.budget import TokenBudgetManager
from mithub.context import cues
from mithub.context.models import TopicSegment, Utterance
from mithub.context.speaker_context import is_question
from mithub.context.statements import main_clause_negated
from mithub.context.summary import SummaryResult, fit_summary
from mithub.embedders import Embedder
from mithub.record.actions import action_lines
from mithub.record.values import extract_values
from mithub.text import keyword_candidates, split_sentences

_SPEAKER_LINE = re.compile(r"^(?P<speaker>[^:\n]{1,60}): (?P<text>.+)$")
_MIN_CHARS = 8
_SUMMARY_SENTENCES = 4
_KEY_POINTS = 5
_LIST_CAP = 6


@dataclass(frozen=True)
class Candidate:
    speaker: str
    text: str
    order: float  # position in the meeting; previous-summary sentences come first
    from_previous: bool = False


def _is_substantive(text: str) -> bool:
    letters = re.sub(r"[\W\d_]+", "", text)
    return len(letters) >= _MIN_CHARS


def _candidates(utterances: Sequence[Utterance], previous: TopicSegment | None) -> list[Candidate]:
    out: list[Candidate] = []
    if previous is not None:
        for i, line in enumerate(previous.summary.splitlines()):
            match = _SPEAKER_LINE.match(line.strip())
            if match and _is_substantive(match["text"]):
                out.append(Candidate(match["speaker"], match["text"], -1000 + i, True))
    for u in utterances:
        sentences = split_sentences(u.text) if len(u.text) > 80 else [u.text]
        for j, sentence in enumerate(sentences):
            if _is_substantive(sentence):
                out.append(Candidate(u.speaker_name, sentence, u.id + j / 100))
    return out


def _mmr(vectors: np.ndarray, relevance: np.ndarray, k: int, lam: float = 0.7) -> list[int]:
    chosen: list[int] = []
    remaining = list(range(len(relevance)))
    while remaining and len(chosen) < k:
        if chosen:
            redundancy = (vectors[remaining] @ vectors[chosen].T).max(axis=1)
        else:
            redundancy = np.zeros(len(remaining))
        scores = lam * relevance[remaining] - (1 - lam) * redundancy
        best = remaining[int(np.argmax(scores))]
        chosen.append(best)
        remaining.remove(best)
    return chosen


def _keywords(texts: Sequence[str], previous: Sequence[str], limit: int = 10) -> list[str]:
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(keyword_candidates(text)))
    for rank, word in enumerate(previous):  # keep earlier keywords in play, decaying with rank
        counts[word] += max(1, 3 - rank // 3)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], -len(kv[0]), kv[0]))
    return [word for word, count in ranked[:limit] if count >= 2 or len(texts) < 5]


def _dedupe(items: Sequence[str], limit: int) -> list[str]:
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        key = re.sub(r"\W+", "", item.lower())
        if key and key not in seen:
            seen.add(key)
            out.append(item)
    return out[-limit:]  # later statements supersede earlier ones in a discussion


_STATEMENT_CHARS = 200


def _statement(sentences: list[str], start: int) -> str:
    """The cue sentence and what follows it in the same utterance (the figures, dates and
    conditions that belong to a decision), up to about 200 characters."""
    out = sentences[start]
    for sentence in sentences[start + 1 :]:
        if len(out) + len(sentence) > _STATEMENT_CHARS or sentence.rstrip().endswith("?"):
            break
        out = f"{out} {sentence}"
    return out


def scan_cues(
    utterances: Sequence[Utterance], names: Sequence[str]
) -> tuple[list[str], list[str], list[str]]:
    """Decision and pending statements (one per utterance, from its first cue sentence on) and
    action items (per sentence, rendered with owner and due date)."""
    decisions: list[str] = []
    pending: list[str] = []
    for u in utterances:
        sentences = [s for s in split_sentences(u.text) if _is_substantive(s)]
        for found, test in ((decisions, cues.is_decision), (pending, cues.is_pending)):
            first = next((i for i, s in enumerate(sentences) if test(s)), None)
            if first is not None:
                found.append(_statement(sentences, first))
    # Action items come from the record's commitment model (one owner everywhere, issue 19 §5).
    actions = action_lines(utterances)
    return decisions, pending, actions


def _informative(candidate: Candidate, keywords: Sequence[str]) -> tuple[bool, int, bool, bool, int]:
    """How much a sentence tells, to choose the summary's first line: what the topic settled
    (a decision), then the values it names (amounts, counts, dates: the facts a reader looks
    for), then a statement over a question ("네, 다들 들어오셨죠? 시작할게요." tells nothing)
    and over a negated one ("기억이 안 나네요"), then the topic's key terms it holds."""
    text = candidate.text
    return (cues.is_decision(text), len(extract_values(text)), not is_question(text),
            not main_clause_negated(text), len(set(keyword_candidates(text)) & set(keywords)))


class ExtractiveSummarizer:
    """Summaries without an LLM; deterministic for the same input."""

    def __init__(self, embedder: Embedder, budget: TokenBudgetManager, max_tokens: int) -> None:
        self._embedder = embedder
        self._budget = budget
        self._max_tokens = max_tokens

    async def summarize(
        self,
        topic_name: str,
        utterances: Sequence[Utterance],
        previous: TopicSegment | None = None,
        participants: Sequence[str] = (),
    ) -> SummaryResult:
        candidates = _candidates(utterances, previous)
        selected = await asyncio.to_thread(self._select, candidates)
        names = list(dict.fromkeys([*(previous.participants if previous else []), *participants,
                                    *(u.speaker_name for u in utterances)]))
        result = self._assemble(topic_name, utterances, previous, selected, names)
        return fit_summary(result, self._budget, self._max_tokens)

    def _select(self, candidates: list[Candidate]) -> list[Candidate]:
        if not candidates:
            return []
        vectors = self._embedder.embed_documents([c.text for c in candidates])
        weights = np.array([min(len(c.text), 200) for c in candidates], dtype=np.float32)
        centroid = (vectors * weights[:, None]).sum(axis=0)
        centroid /= max(float(np.linalg.norm(centroid)), 1e-9)
        relevance = vectors @ centroid
        relevance += np.array([0.15 if cues.is_decision(c.text) else 0.0 for c in candidates])
        relevance += np.array([0.05 if c.from_previous else 0.0 for c in candidates])
        picked = _mmr(vectors, relevance, _KEY_POINTS)
        return [candidates[i] for i in picked]

    def _assemble(
        self,
        topic_name: str,
        utterances: Sequence[Utterance],
        previous: TopicSegment | None,
        selected: list[Candidate],
        names: list[str],
    ) -> SummaryResult:
        decisions, pending, actions = scan_cues(utterances, names)
        prev = previous or TopicSegment(id="", name="", summary="", start_utterance_id=0, end_utterance_id=0)
        keywords = _keywords([u.text for u in utterances], prev.keywords)
        shown = selected[:_SUMMARY_SENTENCES]
        # the first of equals is the most central (MMR's order)
        lead = max(shown, key=lambda c: _informative(c, keywords), default=None)
        in_order = [lead, *sorted((c for c in shown if c is not lead), key=lambda c: c.order)] if lead else []
        summary = "\n".join(f"{c.speaker}: {c.text}" for c in in_order)
        return SummaryResult(
            summary=summary,
            key_points=[c.text for c in selected],
            decisions=_dedupe([*prev.key_decisions, *decisions], _LIST_CAP),
            pending=_dedupe([*prev.pending_items, *pending], _LIST_CAP),
            action_items=_dedupe([*prev.action_items, *actions], _LIST_CAP),
            participants=names,
            keywords=keywords,
            mode="extractive",
        )
