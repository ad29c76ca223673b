"""A meeting's memory as a stable JSON-able report and as readable text (CLI output)."""

from __future__ import annotations

import json
from typing import Any

from mithub.context.manager import ContextManager


def meeting_report(manager: ContextManager) -> dict[str, Any]:
    """Topics, summaries, roles, current topic and counts. Stable across runs of the same
    input, so two reports can be compared for equality (restore tests, resumed replays)."""
    roles = manager.speaker_context.infer_roles()
    stats = manager.speaker_context.speaker_stats
    return {
        "meeting_id": manager.meeting_id,
        "utterance_count": manager.last_seq,
        "current_topic": manager.current_topic,
        "last_summarized_seq": manager.last_summarized_utterance_id,
        "speakers": [
            {"speaker_id": sid, "name": s.name, "role": roles.get(sid), "turns": s.utterance_count,
             "questions": s.question_count, "words": s.total_words}
            for sid, s in stats.items()
        ],
        "topics": [segment.model_dump(mode="json") for segment in manager.get_l1_segments()],
        "pending_items": manager.get_pending_items(),
    }



def render_report(report: dict[str, Any], *, mode: str) -> str:
    lines = [
        f"Meeting {report['meeting_id']}: {report['utterance_count']} utterances, "
        f"{len(report['topics'])} topics, {len(report['speakers'])} speakers ({mode})",
        "",
        "Speakers",
    ]
    for s in report["speakers"]:
        lines.append(f"  {s['name']:<14} {s['role'] or '-':<12} {s['turns']:>4} turns, "
                     f"{s['questions']} questions")
    lines += ["", "Topic timeline"]
    for index, topic in enumerate(report["topics"], start=1):
        lines.append(f"  {index}. {topic['name']}  (utterances #{topic['start_utterance_id']}–"
                     f"#{topic['end_utterance_id']}, {topic['summary_mode']} summary, "
                     f"version {topic['version']})")
        lines += [f"       {row}" for row in topic["summary"].splitlines()]
        for label, key in (("Decisions", "key_decisions"), ("Pending", "pending_items"),
                           ("Action items", "action_items")):
            if topic[key]:
                lines.append(f"     {label}:")
                lines += [f"       - {item}" for item in topic[key]]
        if topic["keywords"]:
            lines.append(f"     Keywords: {', '.join(topic['keywords'])}")
        lines.append("")
    lines.append(f"Current topic: {report['current_topic']}")
    return "\n".join(lines)


def report_json(report: dict[str, Any]) -> str:
    return json.dumps(report, ensure_ascii=False, indent=2, sort_keys=True)
