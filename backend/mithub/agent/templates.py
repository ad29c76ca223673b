"""Answers built from the context without an LLM, for when the LLM is off, down or its output
does not parse. Each is labelled with its mode by the pipeline.

- template: SUMMARY lists each topic's summary, decisions and pending items; ACTION_EXTRACTION
  lists action items with owner and due date parsed from the turns; IMMEDIATE_RESPONSE and
  SEARCH quote the best matching turns and passages.
- retrieval_only: the evidence itself, unordered by any synthesis, when there is nothing to
  template from (no topic summarized yet, no action found).
"""

from __future__ import annotations

from mithub.agent.answer import Citation
from mithub.agent.attribution import context_citations
from mithub.context import cues
from mithub.context.formatting import topic_label
from mithub.context.models import AgentContext, Utterance
from mithub.text import content_tokens, has_hangul, split_sentences

_LABELS = {
    True: {"summary": "회의 요약 (LLM 없이 회의 기록에서 정리)", "decisions": "결정", "pending": "미해결",
           "actions": "액션 아이템 (발언에서 추출)", "related": "질문과 관련된 발언과 자료 {n}건 (LLM 없이 검색 결과로 답함):",
           "evidence": "관련 자료 (검색 결과 그대로)", "none": "아직 관련 내용이 없습니다."},
    False: {"summary": "Meeting summary (compiled from the record, no LLM)", "decisions": "Decided",
            "pending": "Open", "actions": "Action items (from what was said)",
            "related": "{n} related statements and passages (answered from search results, no LLM):", "evidence": "Related material (search results)",
            "none": "Nothing related yet."},
}


def is_korean(ctx: AgentContext) -> bool:
    sample = " ".join(u.text for u in (ctx.recent_utterances or [])[-10:]) or (ctx.user_query or "")
    return has_hangul(sample) or not sample


def template_answer(ctx: AgentContext) -> tuple[str, list[Citation]] | None:
    """A real answer assembled from the context, or None if the context has nothing for it."""
    builders = {"SUMMARY": _summary, "ACTION_EXTRACTION": _actions,
                "IMMEDIATE_RESPONSE": _related, "SEARCH": _related}
    return builders[ctx.call_type](ctx, _LABELS[is_korean(ctx)])


def retrieval_only_answer(ctx: AgentContext) -> tuple[str, list[Citation]]:
    labels = _LABELS[is_korean(ctx)]
    available = list(context_citations(ctx).values())
    evidence = [c for c in available if c.kind != "utterance"] + \
        [c for c in available if c.kind == "utterance"][-5:]
    if not evidence:
        return labels["none"], []
    return "\n".join([labels["evidence"], *(c.render() for c in evidence)]), evidence


def _summary(ctx: AgentContext, labels: dict[str, str]) -> tuple[str, list[Citation]] | None:
    segments = ctx.topic_segments or []
    if not segments:
        return None
    available = context_citations(ctx)
    lines = [labels["summary"]]
    for segment in segments:
        lines.append(f"• {segment.name}")
        lines += [f"   {line}" for line in segment.summary.splitlines()[:2] if line.strip()]
        lines += [f"   - {labels['decisions']}: {d}" for d in segment.key_decisions]
        lines += [f"   - {labels['pending']}: {p}" for p in segment.pending_items]
    return "\n".join(lines), [available[topic_label(s)] for s in segments if topic_label(s) in available]


def _actions(ctx: AgentContext, labels: dict[str, str]) -> tuple[str, list[Citation]] | None:
    available = context_citations(ctx)
    names = [p.name for p in ctx.participants]
    items: dict[str, Citation | None] = {}
    for segment in ctx.topic_segments or []:
        for action in segment.action_items:
            items.setdefault(action, available.get(topic_label(segment)))
    for u in ctx.recent_utterances or []:
        for sentence in split_sentences(u.text):
            found = cues.extract_action(sentence, u.speaker_name, names or [u.speaker_name], u.id)
            if found is not None:
                items.setdefault(found.render(), available.get(f"U{u.id}"))
    if not items:
        return None
    # A stored item cut to its token share ("…") repeats one found whole in the turns.
    whole = [i for i in items if not i.endswith("…")]
    shown = [i for i in items if not (i.endswith("…") and any(w.startswith(i[:-1]) for w in whole))]
    lines = [labels["actions"], *(f"• {item}" for item in shown)]
    citations = list({c.id: c for c in items.values() if c is not None}.values())
    return "\n".join(lines), citations


def _related(ctx: AgentContext, labels: dict[str, str]) -> tuple[str, list[Citation]] | None:
    available = context_citations(ctx)
    terms = set(content_tokens(ctx.user_query or ""))

    def best_turns(utterances: list[Utterance]) -> list[Utterance]:
        """The two turns of an excerpt that share most words with the question, in order."""
        ranked = sorted(utterances, key=lambda u: -len(terms.intersection(content_tokens(u.text))))
        return sorted(ranked[:2], key=lambda u: u.id)

    picked = [available[f"U{u.id}"] for e in ctx.transcript_excerpts[:3] for u in best_turns(e.utterances)
              if f"U{u.id}" in available]
    picked += [available[f"D{i}"] for i in range(1, min(len(ctx.documents), 3) + 1)]
    if not picked:
        return None
    return labels["related"].format(n=len(picked)), picked
