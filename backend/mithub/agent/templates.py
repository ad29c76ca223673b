"""Answers built from the context without an LLM, for when the LLM is off, down or its output
does not parse. Each is labelled with its mode by the pipeline.

- template: SUMMARY lists each topic's summary, decisions and pending items; ACTION_EXTRACTION
  lists action items with owner and due date parsed from the turns; IMMEDIATE_RESPONSE and
  SEARCH quote the best matching turns and passages.
- retrieval_only: the evidence itself, unordered by any synthesis, when there is nothing to
  template from (no topic summarized yet, no action found).
"""

from __future__ import annotations

from collections.abc import Sequence

from mithub.agent.answer import Citation
from mithub.agent.answering import supplies_answer
from mithub.agent.record_answers import record_actions, record_summary
from mithub.agent.attribution import context_citations
from mithub.context import cues
from mithub.context.formatting import topic_label
from mithub.context.models import AgentContext
from mithub.context.past_cues import asks_about_past
from mithub.context.speaker_context import is_question
from mithub.record.meeting_record import MeetingRecord
from mithub.record.models import DecisionChange
from mithub.text import content_tokens, has_hangul, split_sentences

_LABELS = {
    True: {"summary": "회의 요약 (LLM 없이 회의 기록에서 정리)", "decisions": "결정", "pending": "미해결",
           "actions": "액션 아이템 (발언에서 추출)", "related": "질문과 관련된 발언과 자료 {n}건 (LLM 없이 검색 결과로 답함):",
           "lead": "가장 관련 있는 발언 — {source}: \"{sentence}\"",
           "evidence": "관련 자료 (검색 결과 그대로)", "none": "아직 관련 내용이 없습니다.",
           "changed": "이 결정은 {date}에 바뀌었습니다: \"{value}\" → \"{to}\""},
    False: {"summary": "Meeting summary (compiled from the record, no LLM)", "decisions": "Decided",
            "pending": "Open", "actions": "Action items (from what was said)",
            "related": "{n} related statements and passages (answered from search results, no LLM):",
            "lead": "Closest statement — {source}: \"{sentence}\"", "evidence": "Related material (search results)",
            "none": "Nothing related yet.",
            "changed": "This decision was changed on {date}: \"{value}\" → \"{to}\""},
}


def is_korean(ctx: AgentContext) -> bool:
    sample = " ".join(u.text for u in (ctx.recent_utterances or [])[-10:]) or (ctx.user_query or "")
    return has_hangul(sample) or not sample


def template_answer(
    ctx: AgentContext, record: MeetingRecord | None = None, changes: Sequence[DecisionChange] = ()
) -> tuple[str, list[Citation]] | None:
    """A real answer assembled from the context (and, for SUMMARY and ACTION_EXTRACTION, the
    meeting's record when there is one), or None if there is nothing to answer from."""
    korean = is_korean(ctx)
    if record is not None and ctx.call_type == "SUMMARY":
        found = record_summary(ctx, record, changes, korean)
        if found is not None:
            return found
    if record is not None and ctx.call_type == "ACTION_EXTRACTION":
        found = record_actions(record, korean)
        if found is not None:
            return found
    builders = {"SUMMARY": _summary, "ACTION_EXTRACTION": _actions,
                "IMMEDIATE_RESPONSE": _related, "SEARCH": _related}
    return builders[ctx.call_type](ctx, _LABELS[korean])


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
    """Leads with the sentence that best answers the question (speaker, time and, for a past
    meeting, which one), then lists the other matching turns and passages."""
    available = context_citations(ctx)
    terms = set(content_tokens(ctx.user_query or ""))

    def best_turns(ids: list[str]) -> list[str]:
        """The two turns of an excerpt that share most words with the question, in order."""
        ranked = sorted(ids, key=lambda i: -len(terms.intersection(content_tokens(available[i].quote or ""))))
        return [i for i in ids if i in ranked[:2]]

    today = [[f"U{u.id}" for u in e.utterances if f"U{u.id}" in available] for e in ctx.transcript_excerpts]
    past, k = [], 0
    for excerpt in ctx.past_excerpts:
        past.append([f"P{k + i}" for i in range(1, len(excerpt.utterances) + 1)])
        k += len(excerpt.utterances)
    groups = (past + today) if asks_about_past(ctx.user_query) else (today + past)
    picked = [available[i] for ids in groups[:4] for i in best_turns(ids) if i in available]
    picked += [available[f"PT{i}"] for i in range(1, len(ctx.past_topics) + 1)]
    picked += [available[f"D{i}"] for i in range(1, min(len(ctx.documents), 3) + 1)]
    if not picked:
        return None
    lead = _current_value(ctx, available, terms) or _lead_sentence(
        [[available[i] for i in ids if i in available] for ids in groups], terms, ctx.user_query or "")
    lines = [labels["lead"].format(source=_source(lead[0]), sentence=lead[1])] if lead else []
    lines += [labels["changed"].format(value=c.value, date=c.changed_on.isoformat(), to=c.changed_to)
              for c in ctx.decision_changes]
    others = [c for c in picked if not lead or c is not lead[0]]
    lines.append(labels["related"].format(n=len(others)))
    return "\n".join(lines), ([lead[0]] if lead else []) + others


def _current_value(ctx: AgentContext, available: dict[str, Citation], terms: set[str]
                   ) -> tuple[Citation, str] | None:
    """When the evidence quotes a decision the ledger marks changed, the answer leads with the
    turn of the value that holds now (its sentence sharing most words with the question)."""
    for change in ctx.decision_changes:
        today = change.current_meeting_id == ctx.meeting_id
        found = available.get(f"U{change.current_seq}") if today else next(
            (c for c in available.values()
             if c.meeting_id == change.current_meeting_id and c.seq == change.current_seq), None)
        if found is None:
            continue
        sentences = [t.strip() for t in split_sentences(found.quote or "") if not is_question(t)] or [found.quote or ""]
        best = max(sentences, key=lambda t: len(terms.intersection(content_tokens(t))))
        return found, best
    return None


def _lead_sentence(groups: list[list[Citation]], terms: set[str], question: str = ""
                   ) -> tuple[Citation, str] | None:
    """The statement sharing most words with the question (first in evidence order on a tie),
    with the turn it comes from. A matching question in the evidence ("숫자 인식은 우선순위를
    어떻게 두죠?") points at its answer: the next turn of the excerpt, by someone else. A
    statement that does not supply what the question asks for (`supplies_answer`: "기억이 안
    나네요") leads only when nothing else can."""
    best: tuple[tuple[bool, int], Citation, list[str]] | None = None
    for group in groups:
        for i, citation in enumerate(group):
            for sentence in split_sentences(citation.quote or "") or [citation.quote or ""]:
                score = len(terms.intersection(content_tokens(sentence)))
                found = _statement(group, i, sentence) if score else None
                if found is None:
                    continue
                rank = (supplies_answer(found[1][0], question), score)
                if best is None or rank > best[0]:
                    best = (rank, *found)
    return (best[1], " ".join(best[2])) if best else None


def _statement(group: list[Citation], i: int, sentence: str) -> tuple[Citation, list[str]] | None:
    """The statement a matching sentence stands for: itself, or for a question the first
    statements of its reply (None when no reply in the excerpt has one)."""
    citation = group[i]
    if not is_question(sentence):
        return citation, [sentence.strip()]
    reply = next((c for c in group[i + 1:] if c.speaker != citation.speaker), None)
    statements = [t.strip() for t in split_sentences(reply.quote or "") if not is_question(t)] if reply else []
    return (reply, statements[:2]) if reply is not None and statements else None


def _source(citation: Citation) -> str:
    when = f" {citation.time.strftime('%H:%M')}" if citation.time else ""
    past = f"({citation.meeting_label}) " if citation.meeting_label else ""
    return f"{past}{citation.speaker}{when}"
